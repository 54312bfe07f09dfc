package varlink

import (
	"bytes"
	"sync"

	"github.com/signaltty/signaltty/service"
	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
)

// paneRecords keeps each pane's record as Mux.ListPanes encodes it, by
// pane id with the record's revision (service/records.go; docs/scale.md),
// so that listing many panes encodes only the ones that changed since the
// last listing. The bytes are those json.Marshal makes of the mux.Pane
// without HTML escaping (as encodeReply encodes a reply: <, > and & of a
// title or an argv as themselves), so the reply is the same as an encoding
// of the whole list.
type paneRecords struct {
	mu   sync.Mutex // held while a listing is made (not sent): s.mu is taken inside it, never around it
	recs map[string]paneRecord
	size int // bytes of the last reply
	// bytes of the last ListPaneFields reply without a limit, per pane
	selSize int
}

// maxKeptRecords bounds the records kept between listings of all panes
// (which drop those of removed panes).
const maxKeptRecords = 1 << 16

type paneRecord struct {
	rev   uint64
	enc   []byte
	spans []int32 // enc's member spans, once a selection asked (pane_fields.go)
}

func newPaneRecords() *paneRecords { return &paneRecords{recs: map[string]paneRecord{}} }

// listPanes encodes the reply message to Mux.ListPanes (NUL included): the
// panes of svc.ListPaneRecords that allowed keeps, from the kept records
// where the revision is the same. Errors are ListPaneRecords'.
func (pr *paneRecords) listPanes(svc *service.Service, ws, tab string, allowed func(id string) bool) ([]byte, error) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	list, err := svc.ListPaneRecords(ws, tab, pr.have)
	if err != nil {
		return nil, err
	}
	b := bytes.NewBuffer(make([]byte, 0, pr.size+64))
	b.WriteString(`{"parameters":{"panes":`)
	if err := pr.encode(b, list, ws == "" && tab == "", allowed, 0, nil); err != nil {
		return nil, err
	}
	b.WriteString("}}\x00")
	pr.size = b.Len()
	return b.Bytes(), nil
}

// getWorkspace encodes the reply message to Mux.GetWorkspace (NUL
// included) as the generated ReplyGetWorkspace would: workspace, tabs,
// panes, the panes from the kept records. Errors are GetWorkspaceRecords'.
func (pr *paneRecords) getWorkspace(svc *service.Service, ref string) ([]byte, error) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	w, tabs, list, err := svc.GetWorkspaceRecords(ref, pr.have)
	if err != nil {
		return nil, err
	}
	tout := make([]mux.Tab, 0, len(tabs))
	for _, t := range tabs {
		tout = append(tout, tabOut(t))
	}
	wenc, err := marshalNoHTML(workspaceOut(w))
	if err != nil {
		return nil, err
	}
	tenc, err := marshalNoHTML(tout)
	if err != nil {
		return nil, err
	}
	b := bytes.NewBuffer(make([]byte, 0, len(wenc)+len(tenc)+len(list)*400+64))
	b.WriteString(`{"parameters":{"workspace":`)
	b.Write(wenc)
	b.WriteString(`,"tabs":`)
	b.Write(tenc)
	b.WriteString(`,"panes":`)
	if err := pr.encode(b, list, false, nil, 0, nil); err != nil {
		return nil, err
	}
	b.WriteString("}}\x00")
	return b.Bytes(), nil
}

// have reports whether rev of the pane's record is kept; pr.mu is held.
func (pr *paneRecords) have(id string, rev uint64) bool { return pr.recs[id].rev == rev }

// paneReader is the filter of a listing for caller: whether it may read a
// pane, by id; nil (every pane) for the owner, so that listing a thousand
// panes builds no resource name per pane.
func paneReader(svc *service.Service, caller service.Principal) func(id string) bool {
	if caller.IsOwner() {
		return nil
	}
	return func(id string) bool { return svc.Access().Allowed(caller, service.RightRead, "pane:"+id) }
}

// encode writes the JSON array of the records of list that allowed keeps
// (nil keeps all), encoding and keeping those not kept; whole: list is
// every pane, and records of other panes are dropped. A set other than 0
// writes only its fields of each record, and a page only its panes
// (Mux.ListPaneFields). pr.mu is held.
func (pr *paneRecords) encode(b *bytes.Buffer, list []service.PaneRecord, whole bool, allowed func(id string) bool, set paneFieldSet, pg *panePage) error {
	b.WriteByte('[')
	first := true
	for _, r := range list {
		rec := pr.recs[r.ID]
		if r.Pane != nil || rec.rev != r.Rev {
			if r.Pane == nil { // cannot happen: ListPaneRecords asked
				continue
			}
			enc, err := marshalNoHTML(paneOut(*r.Pane))
			if err != nil {
				return err
			}
			rec = paneRecord{rev: r.Rev, enc: enc}
			pr.recs[r.ID] = rec
		}
		if set != 0 && rec.spans == nil {
			rec.spans = memberSpans(rec.enc)
			pr.recs[r.ID] = rec
		}
		if (allowed != nil && !allowed(r.ID)) || !pg.take(r.ID) {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		if set == 0 {
			b.Write(rec.enc)
			continue
		}
		writeSelected(b, rec.enc, rec.spans, set)
	}
	b.WriteByte(']')
	switch {
	case whole && len(pr.recs) > len(list):
		// Every listed pane has its record now; the others are of removed
		// panes and go. (Equal counts: there are none, and the map stays.)
		kept := make(map[string]paneRecord, len(list))
		for _, r := range list {
			if rec, ok := pr.recs[r.ID]; ok {
				kept[r.ID] = rec
			}
		}
		pr.recs = kept
	case !whole && len(pr.recs) > maxKeptRecords: // removed panes' records, never listed whole
		pr.recs = map[string]paneRecord{}
	}
	return nil
}

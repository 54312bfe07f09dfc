package varlink

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/signaltty/signaltty/service"
	"github.com/signaltty/signaltty/service/errcode"
	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
)

// Mux.ListPaneFields (docs/scale.md, "Selected fields and pages:
// Mux.ListPaneFields"): the panes of ListPanes with only the fields a
// caller names. A selected record is cut from the pane's kept ListPanes
// record (pane_records.go): the members of its top-level object are found
// once per revision, and a selection copies the named ones, so a listing
// encodes nothing that ListPanes has already encoded.

// paneFieldNames are the selectable fields of a Pane in their order: every
// member of mux.Pane but wait_baseline, which ListPanes never fills. The
// IDL's PaneField enum names the same fields (pane_fields_test.go).
var paneFieldNames, paneFieldIndex = selectableFields()

func selectableFields() ([]string, map[string]int) {
	var names []string
	index := map[string]int{}
	t := reflect.TypeFor[mux.Pane]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" || name == "wait_baseline" {
			continue
		}
		index[name] = len(names)
		names = append(names, name)
	}
	if len(names) > 64 {
		panic("paneFieldSet holds 64 fields")
	}
	return names, index
}

// paneFieldSet is a selection: bit i is paneFieldNames[i].
type paneFieldSet uint64

// parsePaneFields validates a ListPaneFields selection: at least one
// field, each a PaneField (repeats are allowed and count once). Errors:
// invalid_params.fields, reason "empty" or "unknown" (data.field: the
// first unknown name, data.known: the selectable fields).
func parsePaneFields(fields []mux.PaneField) (paneFieldSet, error) {
	if len(fields) == 0 {
		return 0, service.Invalid("fields", "empty", "fields must name at least one field of Pane")
	}
	var set paneFieldSet
	for _, f := range fields {
		i, ok := paneFieldIndex[string(f)]
		if !ok {
			err := service.Invalid("fields", "unknown", "unknown pane field %q (known: %s)", string(f), strings.Join(paneFieldNames, ", "))
			err.Data["field"] = string(f)
			err.Data["known"] = paneFieldNames
			return 0, err
		}
		set |= 1 << i
	}
	return set, nil
}

// maxPaneLimit is the largest limit of ListPaneFields.
const maxPaneLimit = 100000

func (m *Mux) ListPaneFields(ctx context.Context, c mux.VarlinkCall, ws, tab *string, fields []mux.PaneField, after *string, limit *int64) error {
	set, err := parsePaneFields(fields)
	if err != nil {
		return m.fail(ctx, c, err)
	}
	pg := &panePage{after: str(after), started: str(after) == ""}
	if limit != nil {
		if *limit < 1 || *limit > maxPaneLimit {
			return m.fail(ctx, c, service.Invalid("limit", "range", "limit must be 1..%d, not %d", maxPaneLimit, *limit))
		}
		pg.limit = int(*limit)
	}
	msg, err := m.records.listPaneFields(m.svc, str(ws), str(tab), set, pg, paneReader(m.svc, principalOf(ctx)))
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return writeReply(ctx, c.Call, msg)
}

// panePage is the part of a listing ListPaneFields returns: the panes
// after the pane after ("" = from the first), at most limit (0 = all).
type panePage struct {
	after   string
	limit   int
	started bool   // after was seen (or is "")
	n       int    // panes taken
	last    string // the last pane taken
	more    bool   // a pane was left out past limit
}

// take reports whether the listed pane id is on the page; a nil page takes
// every pane.
func (pg *panePage) take(id string) bool {
	switch {
	case pg == nil:
		return true
	case !pg.started:
		pg.started = id == pg.after
		return false
	case pg.limit > 0 && pg.n == pg.limit:
		pg.more = true
		return false
	}
	pg.n++
	pg.last = id
	return true
}

// listPaneFields is listPanes with only the fields of set in each record,
// and only the panes of pg. Errors: ListPaneRecords', not_found.pane for
// an after that is not listed.
func (pr *paneRecords) listPaneFields(svc *service.Service, ws, tab string, set paneFieldSet, pg *panePage, allowed func(id string) bool) ([]byte, error) {
	if pg == nil {
		pg = &panePage{started: true}
	}
	pr.mu.Lock()
	defer pr.mu.Unlock()
	list, err := svc.ListPaneRecords(ws, tab, pr.have)
	if err != nil {
		return nil, err
	}
	per := pr.selSize
	if per == 0 {
		per = 24 * bitCount(set)
	}
	n := len(list)
	if pg.limit > 0 {
		n = min(n, pg.limit)
	}
	b := bytes.NewBuffer(make([]byte, 0, 64+n*per))
	b.WriteString(`{"parameters":{"panes":`)
	if err := pr.encode(b, list, ws == "" && tab == "", allowed, set, pg); err != nil {
		return nil, err
	}
	if !pg.started {
		return nil, &service.Error{Code: errcode.NotFoundPane, Message: fmt.Sprintf("pane %q (after) is not listed: list again from the start", pg.after),
			Data: map[string]any{"pane": pg.after, "param": "after"}}
	}
	if pg.more {
		next, _ := json.Marshal(pg.last)
		b.WriteString(`,"next":`)
		b.Write(next)
	}
	b.WriteString("}}\x00")
	if pg.limit == 0 && len(list) > 0 {
		pr.selSize = b.Len()/len(list) + 1
	}
	return b.Bytes(), nil
}

func bitCount(set paneFieldSet) int {
	n := 0
	for ; set != 0; set &= set - 1 {
		n++
	}
	return n
}

// writeSelected writes the JSON object of the members of enc (a kept
// record) that set names, in enc's order; spans are enc's member spans.
func writeSelected(b *bytes.Buffer, enc []byte, spans []int32, set paneFieldSet) {
	b.WriteByte('{')
	first := true
	for i := range paneFieldNames {
		if set&(1<<i) == 0 || spans[2*i] < 0 {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.Write(enc[spans[2*i]:spans[2*i+1]])
	}
	b.WriteByte('}')
}

// memberSpans finds the members ("name":value) of the top-level object
// enc, as encoding/json writes it (no white space): spans[2i] and
// spans[2i+1] are the start and end of paneFieldNames[i]'s member, -1 when
// enc has none (a null field, omitted).
func memberSpans(enc []byte) []int32 {
	spans := make([]int32, 2*len(paneFieldNames))
	for i := range spans {
		spans[i] = -1
	}
	i := 1 // after '{'
	for i < len(enc) && enc[i] != '}' {
		if enc[i] == ',' {
			i++
		}
		start := i
		kend := skipString(enc, i)
		key := enc[start+1 : kend-1] // json tags need no escapes
		i = skipValue(enc, kend+1)   // after ':'
		if f, ok := paneFieldIndex[string(key)]; ok {
			spans[2*f], spans[2*f+1] = int32(start), int32(i)
		}
	}
	return spans
}

// skipString returns the index after the string starting at enc[i] ('"').
func skipString(enc []byte, i int) int {
	for j := i + 1; j < len(enc); j++ {
		switch enc[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(enc)
}

// skipValue returns the index after the JSON value starting at enc[i].
func skipValue(enc []byte, i int) int {
	depth := 0
	for i < len(enc) {
		switch enc[i] {
		case '"':
			i = skipString(enc, i)
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // end of the enclosing object
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case ',':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return i
}

package persist

import (
	"math"

	"github.com/signaltty/signaltty/snapshot"
	"github.com/signaltty/signaltty/term"
)

// TailRows is how many of a pane's last rows are offered to the snapshot
// store, which keeps as many as fit in snapshot.MaxTailBytes (of text).
const TailRows = 4096

// SavedRows is what a snapshot keeps of a terminal's rows: its last
// TailRows rows up to the last non-blank one, without trailing spaces, in
// their colours (term.Terminal.TailStyled; snapshot/SCHEMA.md).
func SavedRows(t *term.Terminal) []string {
	rows, _ := savedTail(t)
	return rows
}

// savedTail is SavedRows(t) and the numbering epoch of those rows.
func savedTail(t *term.Terminal) ([]string, int64) {
	tail := t.TailStyled(TailRows, math.MaxInt)
	return tail.Lines, tail.Epoch
}

// Tails remembers, per terminal, its change counter (term.Terminal.Changes)
// when its tail was last saved, so that a save offers the store only the
// tails that changed (docs/persistence.md, "When"). The
// caller serialises saves; a Tails is used by one save at a time.
type Tails struct {
	at map[*term.Terminal]uint64
}

// Changed reports whether t changed since its tail was last saved (or was
// never saved). It reads t's change counter only, without t's lock.
func (tl *Tails) Changed(t *term.Terminal) bool {
	last, ok := tl.at[t]
	return !ok || last != t.Changes()
}

// Forget makes the next save offer every tail again.
func (tl *Tails) Forget() { tl.at = nil }

// TailSave is the tails of one save: the change counters it read and the
// panes whose tails it offers.
type TailSave struct {
	tails   *Tails
	at      map[*term.Terminal]uint64
	changed map[string]*paneTailRead
}

// paneTailRead is a changed pane whose tail a save reads when the store
// comes to it; moved is set when its numbering epoch was no longer the one
// the document records.
type paneTailRead struct {
	t     *term.Terminal
	epoch int64
	moved bool
}

// Begin starts a save of panes, whose terminals are terms by pane id (nil
// or missing: a relaunch under way before its first output, nothing yet).
// It sets each pane's Epoch, under that terminal's lock only: the epochs
// go into the document, which is encoded before any tail is written.
func (tl *Tails) Begin(panes []snapshot.Pane, terms map[string]*term.Terminal) *TailSave {
	ts := &TailSave{tails: tl, at: make(map[*term.Terminal]uint64, len(terms)), changed: make(map[string]*paneTailRead, len(terms))}
	for i, sp := range panes {
		t := terms[sp.ID]
		if t == nil {
			continue
		}
		panes[i].Epoch = t.Epoch()
		c := t.Changes() // before the rows: a change while reading them is saved next time
		ts.at[t] = c
		if last, ok := tl.at[t]; ok && last == c {
			continue // unchanged since its tail was saved: the store keeps the file
		}
		ts.changed[sp.ID] = &paneTailRead{t: t, epoch: panes[i].Epoch}
	}
	return ts
}

// Func is the snapshot.TailFunc of the save: it reads the tail of a
// changed pane when the store asks for it, one pane at a time per tail
// writer, under that terminal's lock only. Each pane is asked for at most
// once, so the writers never share one. Nil when no tail changed: the
// store then looks at none.
func (ts *TailSave) Func() snapshot.TailFunc {
	if len(ts.changed) == 0 {
		return nil
	}
	return func(id string) ([]string, bool) {
		r := ts.changed[id]
		if r == nil {
			return nil, false
		}
		rows, epoch := savedTail(r.t)
		r.moved = epoch != r.epoch
		return rows, true
	}
}

// End records the outcome of the save: when every tail was written (ok),
// the counters it read, except those of terminals whose rows had moved to
// a later epoch than the document's (written again next time); otherwise
// every tail is offered again next time.
func (ts *TailSave) End(ok bool) {
	for _, r := range ts.changed {
		if r.moved {
			delete(ts.at, r.t)
		}
	}
	if ok {
		ts.tails.at = ts.at
	} else {
		ts.tails.at = nil
	}
}

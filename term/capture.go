package term

import (
	"slices"

	"github.com/signaltty/signaltty/term/rowstore"
)

// Capture returns rows; see CaptureRequest, and docs/rows.md for the numbering.
// Errors: ErrStaleEpoch, *RangeError.
func (t *Terminal) Capture(req CaptureRequest) (Capture, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.parking.unparkLocked()
	t.flushHeld()
	if req.Epoch != nil && *req.Epoch != t.epoch {
		return Capture{}, ErrStaleEpoch
	}
	h := t.pushed
	oldest := h - int64(t.hist.Len())
	end := h + int64(t.rows)
	start, stop, clamped, err := captureRange(req, oldest, end, int64(t.rows))
	if err != nil {
		return Capture{}, err
	}
	cut := false
	if fit := t.fitLocked(start, stop, h, oldest, req); fit < stop {
		if !req.Cut {
			return Capture{}, &RangeError{Oldest: oldest, End: end, Reason: "too_large", MaxBytes: req.MaxBytes, FitEnd: fit}
		}
		stop, cut = max(fit, start+1), true
	}
	c := Capture{
		Epoch:   t.epoch,
		Oldest:  oldest,
		End:     end,
		First:   start,
		Cols:    t.cols,
		Rows:    t.rows,
		Screen:  ScreenPrimary,
		Lines:   make([]string, 0, stop-start),
		Next:    stop,
		Clamped: clamped,
		Cut:     cut,
	}
	if t.altLocked() {
		c.Screen = ScreenAlternate
	}
	for r := start; r < stop; r++ {
		row := t.rowLocked(r, h, oldest, req.Escapes)
		c.Lines = append(c.Lines, row.Line(t.cols, req.Trim, req.Escapes))
	}
	return c, nil
}

// rowLocked returns row r (oldest ≤ r < h+rows, h the rows pushed to
// history in this epoch), with its style runs when withRuns; t.mu is held.
func (t *Terminal) rowLocked(r, h, oldest int64, withRuns bool) rowstore.Row {
	switch {
	case r >= h:
		return t.screenRow(int(r-h), withRuns)
	case withRuns:
		return t.hist.At(int(r - oldest))
	}
	return t.hist.TextAt(int(r - oldest))
}

// captureRange resolves a request to the rows [start, stop) it selects
// (docs/rows.md, "Capture ranges"), given the kept rows [oldest, end) and
// the screen height; clamped reports that Clamp moved a bound. Errors:
// *RangeError (before_oldest, after_end, inverted).
func captureRange(req CaptureRequest, oldest, end, rows int64) (start, stop int64, clamped bool, err error) {
	switch {
	case req.Last != nil:
		start, stop = end-*req.Last, end
	case req.History && req.End != nil:
		start, stop = oldest, *req.End
	case req.History:
		start, stop = oldest, end
	case req.Start == nil && req.End == nil:
		start, stop = end-rows, end
	case req.End == nil:
		start, stop = *req.Start, end
	case req.Start == nil:
		stop = *req.End
		start = max(oldest, stop-rows)
		if stop < oldest {
			start = stop
		}
	default:
		start, stop = *req.Start, *req.End
	}
	if req.Clamp {
		if req.Start != nil && req.End != nil && start > stop {
			return 0, 0, false, &RangeError{Oldest: oldest, End: end, Reason: "inverted"}
		}
		s, e := min(max(start, oldest), end), min(max(stop, oldest), end)
		s = min(s, e)
		return s, e, s != start || e != stop, nil
	}
	switch {
	case start < oldest:
		return 0, 0, false, &RangeError{Oldest: oldest, End: end, Reason: "before_oldest"}
	case stop > end:
		return 0, 0, false, &RangeError{Oldest: oldest, End: end, Reason: "after_end"}
	case start > stop:
		return 0, 0, false, &RangeError{Oldest: oldest, End: end, Reason: "inverted"}
	}
	return start, stop, false, nil
}

func (t *Terminal) altLocked() bool {
	if t.emu == nil {
		return t.frozenAlt
	}
	return t.emu.IsAltScreen()
}

// Tail returns the terminal's last rows, as a run's output tail and a
// snapshot's saved rows use them (docs/rows.md numbers them). End is one
// past the last row, in history or on the screen, with a non-space cell
// (Oldest when there is none); Start is the smallest row ≥ Oldest such that
// rows [Start, End) are at most maxRows rows and at most maxBytes bytes of
// line text (each line padded to Cols cells, as Capture returns it, counts
// len(line) bytes). Rows are whole or left out; maxRows ≤ 0 or maxBytes ≤ 0
// gives no rows (Start = End). Lines is never nil.
//
// Everything is read under one hold of the lock, so the result is
// consistent against concurrent writes; each row is looked at once, from
// the last one up, and only the rows returned are padded.
func (t *Terminal) Tail(maxRows, maxBytes int) Tail {
	return t.tail(maxRows, maxBytes, tailPadded)
}

// tail is Tail, TailTrimmed or TailStyled, as form says (tailtrim.go,
// savedrows.go).
func (t *Terminal) tail(maxRows, maxBytes int, form tailForm) Tail {
	trim := form != tailPadded
	t.mu.Lock()
	defer t.mu.Unlock()
	t.parking.unparkLocked()
	t.flushHeld()
	h := t.pushed
	oldest := h - int64(t.hist.Len())
	cols := t.cols
	tl := Tail{Screen: ScreenPrimary, Epoch: t.epoch, Cols: cols, Rows: t.rows, Oldest: oldest, Lines: []string{}}
	if t.altLocked() {
		tl.Screen = ScreenAlternate
	}
	r := h + int64(t.rows) - 1
	var row rowstore.Row
	for ; r >= oldest; r-- {
		if row = t.rowLocked(r, h, oldest, false); !row.BlankIn(cols) {
			break
		}
	}
	tl.End, tl.Start = r+1, r+1
	if maxRows <= 0 || maxBytes <= 0 {
		return tl
	}
	lo := max(oldest, tl.End-int64(maxRows))
	tl.Lines = make([]string, 0, tl.End-lo)
	for ; r >= lo; r-- {
		if r < tl.End-1 || form == tailStyled {
			row = t.rowLocked(r, h, oldest, form == tailStyled)
		}
		var line string
		var n int
		if trim {
			line = row.Line(cols, true, form == tailStyled)
			n = len(line)
		} else {
			n = row.PaddedLen(cols)
		}
		if tl.Bytes+n > maxBytes {
			break
		}
		if !trim {
			line = row.Padded(cols)
		}
		tl.Bytes += n
		tl.Lines = append(tl.Lines, line)
		tl.Start = r
	}
	slices.Reverse(tl.Lines)
	return tl
}

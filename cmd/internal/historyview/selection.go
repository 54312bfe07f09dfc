package historyview

import (
	"context"
	"strings"
)

// keepCursor keeps the cursor on a row shown.
func (v *View) keepCursor() {
	v.cur = max(min(v.cur, v.top+int64(v.body())-1, v.bottom-1), v.top)
}

// moveCursor moves the cursor by n rows, scrolling when it leaves the rows
// shown.
func (v *View) moveCursor(n int64) {
	v.cur = max(min(v.cur+n, v.bottom-1), v.oldest)
	if v.cur < v.top {
		v.top = v.clampTop(v.cur)
	} else if v.cur >= v.top+int64(v.body()) {
		v.top = v.clampTop(v.cur - int64(v.body()) + 1)
	}
	v.keepCursor()
}

// Cursor is the cursor's row; Column its column; Selection the selected
// rows [from, to] (ok false when not selecting), SelectionMode its shape.
func (v *View) Cursor() int64 { return v.cur }

func (v *View) Column() int { return v.col }

func (v *View) SelectionMode() Mode { return v.mode }

func (v *View) Selection() (from, to int64, ok bool) {
	if v.sel < 0 {
		return 0, 0, false
	}
	return min(v.sel, v.cur), max(v.sel, v.cur), true
}

// span is the columns [c0, c1] (inclusive; c1 -1 for none, a huge c1 for
// the whole row) that the selection takes of row n, which it covers.
func (v *View) span(n int64) (c0, c1 int) {
	const all = 1 << 30
	a, b := cell{v.sel, v.selCol}, cell{v.cur, v.col}
	if b.row < a.row || b.row == a.row && b.col < a.col {
		a, b = b, a
	}
	switch v.mode {
	case Lines:
		return 0, all
	case Rectangle:
		return min(v.selCol, v.col), max(v.selCol, v.col)
	}
	c0, c1 = 0, all
	if n == a.row {
		c0 = a.col
	}
	if n == b.row {
		c1 = b.col
	}
	return c0, c1
}

// toggleSelect starts a selection of shape m at the cursor, or ends the one
// under way when it has that shape already (Chars: any shape).
func (v *View) toggleSelect(m Mode) {
	switch {
	case v.sel < 0:
		v.sel, v.selCol, v.mode = v.cur, v.col, m
	case m == Chars || v.mode == m:
		v.sel = -1
	default:
		v.mode = m
	}
}

// rectangle toggles the selection between a rectangle and characters,
// starting a rectangle when there is none.
func (v *View) rectangle() {
	switch {
	case v.sel < 0:
		v.sel, v.selCol, v.mode = v.cur, v.col, Rectangle
	case v.mode == Rectangle:
		v.mode = Chars
	default:
		v.mode = Rectangle
	}
}

// moveColumn moves the cursor's column by n cells, within the area.
func (v *View) moveColumn(n int) {
	v.col = max(min(v.col+n, v.width-1), 0)
}

// lineEnd puts the cursor on its row's last character (trailing spaces
// not counted).
func (v *View) lineEnd(ctx context.Context) error {
	line, _, err := v.row(ctx, v.cur)
	if err != nil {
		return err
	}
	v.col = max(min(len([]rune(strings.TrimRight(Plain(line), " ")))-1, v.width-1), 0)
	return nil
}

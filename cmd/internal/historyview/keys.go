package historyview

import (
	"context"
	"fmt"
	"strings"
)

// mouse handles an SGR mouse report: the wheel scrolls three rows; the
// left button puts the cursor on the cell pressed, a drag with it selects
// characters from there and its release copies them (as tmux's copy mode
// does with the mouse).
func (v *View) mouse(ctx context.Context, seq string) error {
	var btn, x, y int
	var fin byte
	if _, err := fmt.Sscanf(seq, "[<%d;%d;%d%c", &btn, &x, &y, &fin); err != nil {
		return nil
	}
	at := cell{v.top + int64(y-1-v.row0), x - 1 - v.col0}
	inside := at.row >= v.top && at.row < v.top+int64(v.body()) && at.row < v.bottom && at.col >= 0 && at.col < v.width
	switch b := btn &^ 0x1c; { // without shift, meta, control
	case fin == 'M' && b == 64:
		v.Scroll(-3)
	case fin == 'M' && b == 65:
		v.Scroll(3)
	case fin == 'M' && b == 0 && inside:
		v.press, v.dragged = &at, false
		v.sel = -1
		v.cur, v.col = at.row, at.col
	case fin == 'M' && b == 32 && v.press != nil: // motion with the left button down
		if !v.dragged {
			v.dragged = true
			v.sel, v.selCol, v.mode = v.press.row, v.press.col, Chars
		}
		switch {
		case y-1-v.row0 < 0:
			v.Scroll(-1)
			at.row = v.top
		case y-1-v.row0 >= v.body():
			v.Scroll(1)
			at.row = min(v.top+int64(v.body()), v.bottom) - 1
		}
		v.cur, v.col = max(at.row, v.oldest), max(min(at.col, v.width-1), 0)
		v.keepCursor()
	case fin == 'm' && v.press != nil:
		v.press = nil
		if v.dragged {
			v.dragged = false
			return v.copy(ctx)
		}
	}
	return nil
}

// Key handles one read of the terminal's input (keys, SGR mouse reports).
// quit is true when the user left the view. Errors: a Source's, from a
// search.
func (v *View) Key(ctx context.Context, b []byte) (quit bool, err error) {
	for len(b) > 0 {
		n, q, err := v.key(ctx, b)
		if q || err != nil {
			return q, err
		}
		b = b[n:]
	}
	return false, nil
}

// key handles the key at the start of b and returns how many bytes it took.
func (v *View) key(ctx context.Context, b []byte) (int, bool, error) {
	if v.prompt != nil {
		return v.promptKey(ctx, b)
	}
	page := int64(max(v.body()-1, 1))
	if b[0] == 0x1b {
		seq, n := escape(b)
		switch {
		case seq == "":
			return 1, true, nil // Escape alone
		case seq == "[A" || seq == "OA":
			v.moveCursor(-1)
		case seq == "[B" || seq == "OB":
			v.moveCursor(1)
		case seq == "[D" || seq == "OD":
			v.moveColumn(-1)
		case seq == "[C" || seq == "OC":
			v.moveColumn(1)
		case seq == "[5~":
			v.Scroll(-page)
		case seq == "[6~":
			v.Scroll(page)
		case seq == "[H" || seq == "OH" || seq == "[1~":
			v.moveCursor(v.oldest - v.cur)
		case seq == "[F" || seq == "OF" || seq == "[4~":
			v.newest()
		case strings.HasPrefix(seq, "[<"): // SGR mouse: ESC [ < button ; x ; y M|m
			return n, false, v.mouse(ctx, seq)
		}
		return n, false, nil
	}
	v.msg = ""
	switch b[0] {
	case 'q', 0x03: // q, C-c
		return 1, true, nil
	case 'k':
		v.moveCursor(-1)
	case 'j':
		v.moveCursor(1)
	case 0x19: // C-y
		v.Scroll(-1)
	case 0x05: // C-e
		v.Scroll(1)
	case 'h':
		v.moveColumn(-1)
	case 'l':
		v.moveColumn(1)
	case '0', '^':
		v.col = 0
	case '$':
		return 1, false, v.lineEnd(ctx)
	case 'v', ' ':
		v.toggleSelect(Chars)
	case 'V':
		v.toggleSelect(Lines)
	case 0x16, 'r': // C-v, r
		v.rectangle()
	case 'y', '\r':
		if v.sel < 0 {
			if b[0] == '\r' {
				v.moveCursor(1)
			} else {
				v.msg = "nothing selected: v or Space starts a selection, V selects rows"
			}
			return 1, false, nil
		}
		return 1, false, v.copy(ctx)
	case 's':
		s := ""
		v.prompt, v.kind = &s, 's'
	case 0x02: // C-b
		v.Scroll(-page)
	case 0x06: // C-f
		v.Scroll(page)
	case 0x15: // C-u
		v.Scroll(-page / 2)
	case 0x04: // C-d
		v.Scroll(page / 2)
	case 'g':
		v.moveCursor(v.oldest - v.cur)
	case 'G':
		v.newest()
	case '/', '?':
		s := ""
		v.prompt, v.kind = &s, b[0]
	case 'n':
		return 1, false, v.next(ctx, v.up)
	case 'N':
		return 1, false, v.next(ctx, !v.up)
	}
	return 1, false, nil
}

// escape splits off the escape sequence at the start of b (which starts
// with ESC): seq is what follows ESC ("" for ESC alone), n its length.
func escape(b []byte) (seq string, n int) {
	if len(b) < 2 {
		return "", 1
	}
	switch b[1] {
	case '[':
		for i := 2; i < len(b); i++ {
			if b[i] >= 0x40 && b[i] <= 0x7e {
				return string(b[1 : i+1]), i + 1
			}
		}
		return string(b[1:]), len(b)
	case 'O':
		if len(b) >= 3 {
			return string(b[1:3]), 3
		}
	}
	return "", 1 // ESC then another key: Escape
}

// promptKey handles a key while a search is typed: characters add to it,
// Backspace removes the last, Enter searches, Escape or C-c gives up.
func (v *View) promptKey(ctx context.Context, b []byte) (int, bool, error) {
	c := b[0]
	switch {
	case c == '\r' || c == '\n':
		q := *v.prompt
		v.prompt = nil
		if v.kind == 's' {
			return 1, false, v.save(ctx, q)
		}
		if q == "" {
			q = v.query
		}
		if q == "" {
			return 1, false, nil
		}
		return 1, false, v.Search(ctx, q, v.kind == '?')
	case c == 0x1b || c == 0x03:
		v.prompt = nil
		if c == 0x1b {
			_, n := escape(b)
			return n, false, nil
		}
	case c == 0x7f || c == 0x08:
		r := []rune(*v.prompt)
		if len(r) > 0 {
			s := string(r[:len(r)-1])
			v.prompt = &s
		}
	case c >= 0x20:
		s := *v.prompt + string(c)
		v.prompt = &s
	}
	return 1, false, nil
}

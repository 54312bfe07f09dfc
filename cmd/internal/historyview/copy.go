package historyview

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"
)

// maxCopy bounds what is copied to the clipboard, in bytes of text
// (terminals cap OSC 52; tmux's input buffer holds about 1 MB).
const maxCopy = 1 << 20

// text is the selection's text, each row's part without its trailing
// spaces, one a line; without a selection, the cursor's row.
func (v *View) text(ctx context.Context) (string, int64, error) {
	from, to, ok := v.Selection()
	if !ok {
		from, to = v.cur, v.cur
	}
	var b strings.Builder
	for n := from; n <= to; n++ {
		line, _, err := v.row(ctx, n)
		if err != nil {
			return "", 0, err
		}
		text := Plain(line)
		if ok {
			c0, c1 := v.span(n)
			sp := cells(text, c0, c1)
			text = text[sp[0]:sp[1]]
		}
		b.WriteString(strings.TrimRight(text, " "))
		b.WriteByte('\n')
		if b.Len() > maxCopy {
			return "", 0, fmt.Errorf("the selection is over %d bytes: save it to a file (s)", maxCopy)
		}
	}
	return b.String(), to - from + 1, nil
}

// copy sends the selection's text to the terminal's clipboard with OSC 52
// (written with the next Render), as tmux does with set-clipboard, and
// ends the selection.
func (v *View) copy(ctx context.Context) error {
	text, n, err := v.text(ctx)
	if err != nil {
		v.msg = err.Error()
		return nil
	}
	v.out = append(v.out, Clipboard(strings.TrimSuffix(text, "\n"))...)
	v.sel = -1
	v.msg = fmt.Sprintf("copied %d rows to the clipboard", n)
	if v.mode != Lines {
		v.msg = fmt.Sprintf("copied %d characters of %s to the clipboard", utf8.RuneCountInString(text)-int(n), rows(n))
	}
	return nil
}

// save writes the selection's text (or the cursor's row) to the file at
// path (created 0600, or truncated), one row a line.
func (v *View) save(ctx context.Context, path string) error {
	if path == "" {
		return nil
	}
	text, n, err := v.text(ctx)
	if err == nil {
		err = os.WriteFile(path, []byte(text), 0o600)
	}
	if err != nil {
		v.msg = "cannot save: " + err.Error()
		return nil
	}
	v.sel = -1
	v.msg = fmt.Sprintf("saved %d rows to %s", n, path)
	return nil
}

// rows is "1 row" or "N rows".
func rows(n int64) string {
	if n == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", n)
}

// Clipboard is the OSC 52 sequence that puts text on the terminal's
// clipboard ("c"), base64 as the sequence has it.
func Clipboard(text string) []byte {
	return []byte("\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\x07")
}

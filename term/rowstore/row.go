package rowstore

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Row is one physical row kept as text plus style runs. It never holds
// cells: Text is the row's content with wide-character continuation cells
// dropped, control characters replaced by spaces and trailing spaces trimmed;
// Cells is the display width of Text in cells. Padding to the screen width
// happens when the row is captured.
type Row struct {
	Text  string
	Runs  []StyleRun
	Cells int32
}

// StyleRun marks cells [Start, Start+N) of a row as drawn in a non-default
// style. Style is an opaque, comparable encoding: the SGR sequence of the
// style followed by an OSC 8 sequence when the cells carry a hyperlink.
// Runs may extend past the text (styled trailing spaces).
type StyleRun struct {
	Start, N uint16
	Style    string
}

// RunCost is what one style run costs the byte budget besides its style string.
const RunCost = 4

// Size is what the row costs the byte budget: text plus runs.
func (r *Row) Size() int {
	n := len(r.Text)
	for i := range r.Runs {
		n += RunCost + len(r.Runs[i].Style)
	}
	return n
}

// Blank reports whether the row shows no text.
func (r *Row) Blank() bool { return r.Text == "" }

// Padded returns the row as exactly cols cells of text.
func (r *Row) Padded(cols int) string {
	return padText(r.Text, int(r.Cells), cols)
}

// PaddedLen returns len(r.Padded(cols)), padding only a row wider than
// cols cells.
func (r *Row) PaddedLen(cols int) int {
	if int(r.Cells) <= cols {
		return len(r.Text) + cols - int(r.Cells)
	}
	return len(r.Padded(cols))
}

// BlankIn reports whether the row, padded to cols cells, is all spaces.
// Text, trimmed, ends with something else; only a row wider than cols
// cells may lose it.
func (r *Row) BlankIn(cols int) bool {
	if r.Text == "" {
		return true
	}
	if int(r.Cells) <= cols {
		return false
	}
	return strings.TrimRight(r.Padded(cols), " ") == ""
}

// padText pads (or cuts) text of the given display width to exactly cols cells.
func padText(text string, cells, cols int) string {
	switch {
	case cells == cols:
		return text
	case cells < cols:
		var b strings.Builder
		b.Grow(len(text) + cols - cells)
		b.WriteString(text)
		for i := cells; i < cols; i++ {
			b.WriteByte(' ')
		}
		return b.String()
	}
	// The row is wider than the screen (the screen got narrower since).
	if isASCII(text) {
		return text[:cols]
	}
	var b strings.Builder
	w := 0
	rest := text
	for len(rest) > 0 {
		cl, cw := ansi.FirstGraphemeCluster(rest, ansi.GraphemeWidth)
		if len(cl) == 0 {
			break
		}
		if w+cw > cols {
			break
		}
		b.WriteString(cl)
		w += cw
		rest = rest[len(cl):]
	}
	for ; w < cols; w++ {
		b.WriteByte(' ')
	}
	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Trimmed is strings.TrimRight(r.Padded(cols), " "), padding nothing.
func (r *Row) Trimmed(cols int) string {
	if int(r.Cells) <= cols {
		return strings.TrimRight(r.Text, " ")
	}
	return strings.TrimRight(r.Padded(cols), " ")
}

// Line returns the row as a capture shows it (docs/rows.md, "Row text"):
// Padded to cols cells, or with trim ended at its last non-space cell;
// with escapes, its style runs as SGR sequences (see Styled), and trim
// keeps the styled cells (a coloured blank stays).
func (r *Row) Line(cols int, trim, escapes bool) string {
	switch {
	case !escapes && !trim:
		return r.Padded(cols)
	case !escapes:
		return r.Trimmed(cols)
	case !trim:
		return r.Styled(cols)
	}
	w := int(r.Cells)
	if w > cols { // cut: the text may end, trimmed, before the screen's edge
		w = ansi.StringWidth(r.Trimmed(cols))
	}
	if n := len(r.Runs); n > 0 {
		w = max(w, int(r.Runs[n-1].Start+r.Runs[n-1].N))
	}
	return r.Styled(min(w, cols))
}

// Styled returns the row padded to cols cells with its style runs as SGR
// (and OSC 8) sequences, reset after each run.
func (r *Row) Styled(cols int) string {
	text := r.Padded(cols)
	if len(r.Runs) == 0 {
		return text
	}
	if isASCII(text) {
		return r.styledASCII(text)
	}
	return r.styledClusters(text)
}

// styledClusters is styled for any padded text, walking its grapheme
// clusters.
func (r *Row) styledClusters(text string) string {
	var b strings.Builder
	pos, run, open := 0, 0, false
	closeRun := func() {
		b.WriteString(ansi.ResetStyle)
		if strings.Contains(r.Runs[run].Style, "\x1b]8;") {
			b.WriteString(ansi.ResetHyperlink())
		}
		open = false
		run++
	}
	for rest := text; len(rest) > 0; {
		cl, w := ansi.FirstGraphemeCluster(rest, ansi.GraphemeWidth)
		if len(cl) == 0 {
			break
		}
		if open && pos >= int(r.Runs[run].Start+r.Runs[run].N) {
			closeRun()
		}
		if !open && run < len(r.Runs) && pos >= int(r.Runs[run].Start) {
			b.WriteString(r.Runs[run].Style)
			open = true
		}
		b.WriteString(cl)
		pos += w
		rest = rest[len(cl):]
	}
	if open {
		closeRun()
	}
	return b.String()
}

// resetLink ends a hyperlink (ansi.ResetHyperlink, made once).
var resetLink = ansi.ResetHyperlink()

// styledASCII is styled for a row whose padded text is ASCII, one byte a
// cell: the runs cut the text where they start and end.
func (r *Row) styledASCII(text string) string {
	n := len(text)
	for _, run := range r.Runs {
		n += len(run.Style) + len(ansi.ResetStyle) + len(resetLink)
	}
	var b strings.Builder
	b.Grow(n)
	pos := 0
	for _, run := range r.Runs {
		s, e := max(int(run.Start), pos), min(int(run.Start)+int(run.N), len(text))
		if s >= e {
			if s >= len(text) {
				break
			}
			continue
		}
		b.WriteString(text[pos:s])
		b.WriteString(run.Style)
		b.WriteString(text[s:e])
		b.WriteString(ansi.ResetStyle)
		if strings.Contains(run.Style, "\x1b]8;") {
			b.WriteString(resetLink)
		}
		pos = e
	}
	b.WriteString(text[pos:])
	return b.String()
}

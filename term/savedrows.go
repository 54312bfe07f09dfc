package term

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/signaltty/signaltty/term/rowstore"
)

// Rows in their saved form (docs/rows.md, "Saved rows"): a row as a
// capture with escapes and trim renders it (rowstore.Row.Line), its text with
// each style run's SGR sequence (and OSC 8 hyperlink) before it and a reset
// after it. It is what a snapshot keeps of a pane's rows and what a
// relaunch carries over, and parsing it gives the stored row back: the
// same text and the same runs, so the row is drawn and captured in its
// colours as before. A line of plain text is its own saved form.

// TailStyled is TailTrimmed with each line in the saved form: its style
// runs as SGR (and OSC 8) sequences, ended at its last non-space or styled
// cell (rowstore.Row.Line with trim and escapes); maxBytes counts those
// lines. Rows without styles are the same lines as TailTrimmed's.
func (t *Terminal) TailStyled(maxRows, maxBytes int) Tail {
	return t.tail(maxRows, maxBytes, tailStyled)
}

// savedRows turns lines in the saved form into stored rows, oldest first;
// rows that use the same style share its string.
func savedRows(lines []string) []rowstore.Row {
	rows := make([]rowstore.Row, len(lines))
	var styles map[string]string
	for i, l := range lines {
		rows[i] = parseSavedRow(l, &styles)
	}
	return rows
}

// parseSavedRow makes the stored row of one line in the saved form. It
// accepts any string: a control character, or a cluster that is not valid
// UTF-8, becomes a space; of the escape sequences only SGR (CSI … m, with
// parameters of digits, ';' and ':') and OSC 8 hyperlinks with printable
// parameters and URL are kept, as styles; every other sequence is dropped.
// Style strings are interned in *styles (made when nil) and never alias
// line.
func parseSavedRow(line string, styles *map[string]string) rowstore.Row {
	if isPlainSaved(line) {
		s := strings.TrimRight(line, " ")
		return rowstore.Row{Text: strings.Clone(s), Cells: int32(ansi.StringWidth(s))}
	}
	var p savedParser
	for rest := line; len(rest) > 0; {
		if rest[0] == ansi.ESC {
			n, kind, seq := scanSaved(rest)
			p.sequence(kind, seq, styles)
			rest = rest[n:]
			continue
		}
		if c := rest[0]; c < 0x20 || c == 0x7f {
			p.text(" ", 1)
			rest = rest[1:]
			continue
		}
		cl, w := ansi.FirstGraphemeCluster(rest, ansi.GraphemeWidth)
		if len(cl) == 0 {
			cl = rest[:1]
		}
		if k := strings.IndexByte(cl, ansi.ESC); k > 0 { // a cluster never swallows a sequence
			cl = cl[:k]
			w = ansi.StringWidth(cl)
		}
		rest = rest[len(cl):]
		if !cleanContent(cl) {
			for range max(w, 1) {
				p.text(" ", 1)
			}
			continue
		}
		p.text(cl, w)
	}
	return p.row()
}

// isPlainSaved reports whether line is printable ASCII only.
func isPlainSaved(line string) bool {
	for i := 0; i < len(line); i++ {
		if c := line[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// savedParser accumulates a row of the saved form.
type savedParser struct {
	buf       []byte
	runs      []rowstore.StyleRun
	pos       int    // cells so far
	textLen   int    // bytes of buf up to its last non-space
	textCells int    // cells of buf[:textLen]
	pending   string // the style the next text is drawn in ("": default)
	open      bool   // the last run is still being extended
}

// maxRunCell bounds the cells style runs can describe (rowstore.StyleRun's uint16).
const maxRunCell = 1<<16 - 1

func (p *savedParser) text(cl string, w int) {
	p.buf = append(p.buf, cl...)
	if cl != " " {
		p.textLen, p.textCells = len(p.buf), p.pos+w
	}
	switch {
	case w == 0 || p.pending == "" || p.pos+w > maxRunCell:
	case p.open:
		p.runs[len(p.runs)-1].N += uint16(w)
	case len(p.runs) > 0 && p.runs[len(p.runs)-1].Style == p.pending &&
		int(p.runs[len(p.runs)-1].Start+p.runs[len(p.runs)-1].N) == p.pos:
		p.runs[len(p.runs)-1].N += uint16(w) // adjacent cells in one style share a run
		p.open = true
	default:
		p.runs = append(p.runs, rowstore.StyleRun{Start: uint16(p.pos), N: uint16(w), Style: p.pending})
		p.open = true
	}
	p.pos += w
}

// Kinds of escape sequences in the saved form.
const (
	seqOther     = iota // dropped
	seqSGR              // a style: added to the pending one
	seqReset            // SGR 0: back to the default style
	seqLink             // OSC 8 with a URL: added to the pending style
	seqLinkReset        // OSC 8 without one: the hyperlink ends
)

func (p *savedParser) sequence(kind int, seq string, styles *map[string]string) {
	if kind == seqOther {
		return
	}
	cur := p.pending
	p.open = false // a new style starts with the next text
	switch kind {
	case seqReset:
		p.pending = ""
		return
	case seqLinkReset:
		if i := strings.Index(cur, "\x1b]8;"); i >= 0 {
			cur = cur[:i]
		}
	default:
		cur += seq
	}
	if *styles == nil {
		*styles = map[string]string{}
	}
	s, ok := (*styles)[cur]
	if !ok {
		s = strings.Clone(cur)
		(*styles)[s] = s
	}
	p.pending = s
}

func (p *savedParser) row() rowstore.Row {
	r := rowstore.Row{Cells: int32(p.textCells)}
	if p.textLen > 0 {
		r.Text = string(p.buf[:p.textLen])
	}
	if len(p.runs) > 0 {
		r.Runs = p.runs
	}
	return r
}

// scanSaved returns the length of the escape sequence at the start of s
// (which starts with ESC), its kind and, for a style, the sequence.
func scanSaved(s string) (n, kind int, seq string) {
	if len(s) < 2 {
		return len(s), seqOther, ""
	}
	switch s[1] {
	case '[':
		i, sgr := 2, true
		for ; i < len(s) && s[i] >= 0x20 && s[i] <= 0x3f; i++ {
			sgr = sgr && (s[i] >= '0' && s[i] <= ';')
		}
		if i == len(s) {
			return i, seqOther, ""
		}
		if s[i] < 0x40 || s[i] > 0x7e {
			return i, seqOther, "" // not a CSI's final byte: what follows is text
		}
		if !sgr || s[i] != 'm' {
			return i + 1, seqOther, ""
		}
		if p := s[2:i]; p == "" || strings.Trim(p, "0") == "" {
			return i + 1, seqReset, ""
		}
		return i + 1, seqSGR, s[:i+1]
	case ']':
		end, body := oscEnd(s)
		rest, ok := strings.CutPrefix(body, "8;")
		if !ok {
			return end, seqOther, ""
		}
		_, uri, ok := strings.Cut(rest, ";")
		for i := 0; ok && i < len(rest); i++ {
			ok = rest[i] >= 0x20 && rest[i] != 0x7f
		}
		switch {
		case !ok:
			return end, seqOther, ""
		case uri == "":
			return end, seqLinkReset, ""
		}
		return end, seqLink, "\x1b]" + body + "\x07"
	}
	return 2, seqOther, ""
}

// oscEnd returns the length of the OSC sequence at the start of s and its
// body (between "ESC ]" and the terminator, BEL or ESC \). An unterminated
// one runs to the end of s.
func oscEnd(s string) (int, string) {
	for i := 2; i < len(s); i++ {
		switch {
		case s[i] == ansi.BEL:
			return i + 1, s[2:i]
		case s[i] == ansi.ESC && i+1 < len(s) && s[i+1] == '\\':
			return i + 2, s[2:i]
		case s[i] == ansi.ESC:
			return i, s[2:i]
		}
	}
	return len(s), s[2:]
}

package term

import (
	"strings"
	"unicode/utf8"
	"unsafe"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// storedRow is one physical row kept as text plus style runs. It never holds
// cells: text is the row's content with wide-character continuation cells
// dropped, control characters replaced by spaces and trailing spaces trimmed;
// cells is the display width of text in cells. Padding to the screen width
// happens when the row is captured.
type storedRow struct {
	text  string
	runs  []styleRun
	cells int32
}

// styleRun marks cells [start, start+n) of a row as drawn in a non-default
// style. style is an opaque, comparable encoding: the SGR sequence of the
// style followed by an OSC 8 sequence when the cells carry a hyperlink.
// Runs may extend past the text (styled trailing spaces).
type styleRun struct {
	start, n uint16
	style    string
}

// runCost is what one style run costs the byte budget besides its style string.
const runCost = 4

// size is what the row costs the byte budget: text plus runs.
func (r *storedRow) size() int {
	n := len(r.text)
	for i := range r.runs {
		n += runCost + len(r.runs[i].style)
	}
	return n
}

// blank reports whether the row shows no text.
func (r *storedRow) blank() bool { return r.text == "" }

// padded returns the row as exactly cols cells of text.
func (r *storedRow) padded(cols int) string {
	return padText(r.text, int(r.cells), cols)
}

// paddedLen returns len(r.padded(cols)), padding only a row wider than
// cols cells.
func (r *storedRow) paddedLen(cols int) int {
	if int(r.cells) <= cols {
		return len(r.text) + cols - int(r.cells)
	}
	return len(r.padded(cols))
}

// blankIn reports whether the row, padded to cols cells, is all spaces.
// Text, trimmed, ends with something else; only a row wider than cols
// cells may lose it.
func (r *storedRow) blankIn(cols int) bool {
	if r.text == "" {
		return true
	}
	if int(r.cells) <= cols {
		return false
	}
	return strings.TrimRight(r.padded(cols), " ") == ""
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

// cleanContent reports whether a cell's content can be shown as is: no C0 or
// C1 control characters, no DEL, valid UTF-8.
func cleanContent(s string) bool {
	if len(s) == 1 {
		return s[0] >= 0x20 && s[0] != 0x7f && s[0] < utf8.RuneSelf
	}
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < 0x20 || (r >= 0x7f && r < 0xa0) {
			return false
		}
	}
	return utf8.ValidString(s)
}

// rowBuilder turns cells into storedRows. It keeps scratch space and a small
// cache of style encodings; it is not safe for concurrent use.
type rowBuilder struct {
	buf    []byte
	runs   []styleRun
	styles styleCache
}

// build converts a row of cells. limit is the row width in cells: a wide
// character that would cross it is shown as blanks. Lines coming from the
// emulator's scrollback are trimmed, so len(cells) may be less than limit.
// withRuns=false leaves the style runs out.
func (b *rowBuilder) build(cells []uv.Cell, limit int, withRuns bool) storedRow {
	return b.convert(cells, limit, withRuns, false)
}

// buildScratch is build with style runs, returning a row whose text and
// runs are the builder's scratch space: valid until its next call, for a
// row the row store copies at once (rowRing.push).
func (b *rowBuilder) buildScratch(cells []uv.Cell, limit int) storedRow {
	return b.convert(cells, limit, true, true)
}

// scratchRow returns the row of b.buf[:textLen] and b.runs, copied unless
// scratch.
func (b *rowBuilder) scratchRow(textLen, cells int, scratch bool) storedRow {
	r := storedRow{cells: int32(cells)}
	switch {
	case textLen == 0:
	case scratch:
		r.text = unsafe.String(unsafe.SliceData(b.buf), textLen)
	default:
		r.text = string(b.buf[:textLen])
	}
	switch {
	case len(b.runs) == 0:
	case scratch:
		r.runs = b.runs
	default:
		r.runs = append([]styleRun(nil), b.runs...)
	}
	return r
}

func (b *rowBuilder) convert(cells []uv.Cell, limit int, withRuns, scratch bool) storedRow {
	b.buf = b.buf[:0]
	b.runs = b.runs[:0]
	textLen, textCells := 0, 0 // text up to and including the last non-space
	pos := 0                   // cells emitted so far
	var runCell *uv.Cell       // the cell whose style the open run has
	for x := 0; x < len(cells); {
		c := &cells[x]
		w := 1
		switch {
		case c.Width >= 2 && x+c.Width <= limit && cleanContent(c.Content):
			w = c.Width
			b.buf = append(b.buf, c.Content...)
		case c.Width == 1 && cleanContent(c.Content):
			b.buf = append(b.buf, c.Content...)
		case c.Width >= 2:
			// A wide character that cannot be shown: blanks for its cells.
			w = min(c.Width, max(limit-x, 1))
			for range w {
				b.buf = append(b.buf, ' ')
			}
		default:
			b.buf = append(b.buf, ' ')
		}
		if len(b.buf) > 0 && b.buf[len(b.buf)-1] != ' ' {
			textLen, textCells = len(b.buf), pos+w
		}
		// Style runs: adjacent cells in equal styles share one.
		switch {
		case !withRuns:
		case c.Style.IsZero() && c.Link.IsZero():
			runCell = nil
		case runCell != nil && runCell.Style.Equal(&c.Style) && runCell.Link == c.Link:
			b.runs[len(b.runs)-1].n += uint16(w)
		default:
			runCell = c
			b.runs = append(b.runs, styleRun{start: uint16(pos), n: uint16(w), style: b.styles.key(c)})
		}
		pos += w
		x += w
	}
	return b.scratchRow(textLen, textCells, scratch)
}

// buildSimASCII converts a row of the fast path's simulation whose cells are
// all ASCII characters of width 1 in pens of the given table (pen 0, the
// default, with a space is an empty cell); ok is false, and the row left
// unconverted, when a cell is anything else. The result equals what build
// returns for the same cells after the emulator's scrollback trimmed them;
// like buildScratch's, it is the builder's scratch space.
func (b *rowBuilder) buildSimASCII(row []simCell, pens []pen) (r storedRow, ok bool) {
	// The scrollback drops trailing cells equal to an empty cell.
	n := len(row)
	for n > 0 && row[n-1] == emptySim {
		n--
	}
	if cap(b.buf) < n {
		b.buf = make([]byte, n, 2*n)
	}
	buf := b.buf[:n]
	textLen, used := 0, uint16(0) // used: every cell's pen or-ed together
	for i, c := range row[:n] {
		if c.ch >= utf8.RuneSelf || c.w != 1 {
			return storedRow{}, false
		}
		buf[i] = byte(c.ch)
		if c.ch != ' ' {
			textLen = i + 1
		}
		used |= c.p
	}
	b.buf = buf
	b.runs = b.runs[:0]
	if used == 0 { // the default pen only: no runs
		return b.scratchRow(textLen, textLen, true), true
	}
	open := -1 // pen of the open run
	for i := 0; i < n; i++ {
		p := int(row[i].p)
		switch {
		case pens[p].key == "":
			open = -1
		case open >= 0 && (open == p || (pens[open].cell.Link == pens[p].cell.Link &&
			pens[open].cell.Style.Equal(&pens[p].cell.Style))):
			b.runs[len(b.runs)-1].n++
		default:
			open = p
			b.runs = append(b.runs, styleRun{start: uint16(i), n: 1, style: pens[p].key})
		}
	}
	return b.scratchRow(textLen, textLen, true), true
}

// styleCache remembers the encodings of recently seen styles, so rows in the
// same style share one string and Style.String runs once per style. Styles
// are compared exactly: Style.Equal compares colours by RGBA, and colours
// that look the same may encode differently (256-colour 12 and 21).
type styleCache struct {
	ents [8]styleEnt
	next int
}

type styleEnt struct {
	ok    bool
	style uv.Style
	link  uv.Link
	key   string
}

// key returns the encoding of the cell's style and hyperlink.
func (sc *styleCache) key(c *uv.Cell) string {
	for i := range sc.ents {
		e := &sc.ents[i]
		if e.ok && e.link == c.Link && sameStyle(&e.style, &c.Style) {
			return e.key
		}
	}
	k := ""
	if !c.Style.IsZero() {
		k = c.Style.String()
	}
	if !c.Link.IsZero() {
		k += ansi.SetHyperlink(c.Link.URL, c.Link.Params)
	}
	sc.ents[sc.next] = styleEnt{ok: true, style: c.Style, link: c.Link, key: k}
	sc.next = (sc.next + 1) % len(sc.ents)
	return k
}

package term

import (
	"unicode/utf8"
	"unsafe"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/signaltty/signaltty/term/rowstore"
)

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

// rowBuilder turns cells into rowstore.Rows. It keeps scratch space and a small
// cache of style encodings; it is not safe for concurrent use.
type rowBuilder struct {
	buf    []byte
	runs   []rowstore.StyleRun
	styles styleCache
}

// build converts a row of cells. limit is the row width in cells: a wide
// character that would cross it is shown as blanks. Lines coming from the
// emulator's scrollback are trimmed, so len(cells) may be less than limit.
// withRuns=false leaves the style runs out.
func (b *rowBuilder) build(cells []uv.Cell, limit int, withRuns bool) rowstore.Row {
	return b.convert(cells, limit, withRuns, false)
}

// buildScratch is build with style runs, returning a row whose text and
// runs are the builder's scratch space: valid until its next call, for a
// row the row store copies at once (rowstore.Ring.Push).
func (b *rowBuilder) buildScratch(cells []uv.Cell, limit int) rowstore.Row {
	return b.convert(cells, limit, true, true)
}

// scratchRow returns the row of b.buf[:textLen] and b.runs, copied unless
// scratch.
func (b *rowBuilder) scratchRow(textLen, cells int, scratch bool) rowstore.Row {
	r := rowstore.Row{Cells: int32(cells)}
	switch {
	case textLen == 0:
	case scratch:
		r.Text = unsafe.String(unsafe.SliceData(b.buf), textLen)
	default:
		r.Text = string(b.buf[:textLen])
	}
	switch {
	case len(b.runs) == 0:
	case scratch:
		r.Runs = b.runs
	default:
		r.Runs = append([]rowstore.StyleRun(nil), b.runs...)
	}
	return r
}

func (b *rowBuilder) convert(cells []uv.Cell, limit int, withRuns, scratch bool) rowstore.Row {
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
			b.runs[len(b.runs)-1].N += uint16(w)
		default:
			runCell = c
			b.runs = append(b.runs, rowstore.StyleRun{Start: uint16(pos), N: uint16(w), Style: b.styles.key(c)})
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
func (b *rowBuilder) buildSimASCII(row []simCell, pens []pen) (r rowstore.Row, ok bool) {
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
			return rowstore.Row{}, false
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
			b.runs[len(b.runs)-1].N++
		default:
			open = p
			b.runs = append(b.runs, rowstore.StyleRun{Start: uint16(i), N: 1, Style: pens[p].key})
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

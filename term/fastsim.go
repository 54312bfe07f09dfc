package term

import (
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/signaltty/signaltty/term/rowstore"
)

// The simulation of the line-output fast path (fastpath.go): the rows a run
// of line output leaves, computed without the emulator.

// importRow makes screen row y the simulation's bottom row, cell for cell
// (pens for its styles, clusters for its text). It reports false for a cell
// it cannot represent.
func (f *fastPath) importRow(y int) bool {
	t := f.t
	fs := &f.fs
	for x := 0; x < t.cols; x++ {
		c := t.emu.CellAt(x, y)
		v := emptySim
		switch {
		case c == nil:
		case zeroCell(c):
			v = simCell{}
		case c.Width < 1 || c.Width > 2 || c.Content == "":
			return false
		default:
			if len(c.Content) == 1 && c.Content[0] < utf8.RuneSelf {
				v.ch = uint32(c.Content[0])
			} else {
				fs.clusters = append(fs.clusters, c.Content)
				v.ch = clusterFlag | uint32(len(fs.clusters)-1)
			}
			v.w, v.p = uint8(c.Width), f.penID(c)
		}
		fs.cur[x] = v
		if v.w != 1 {
			fs.curWide = true
		}
	}
	fs.curHi = t.cols
	return true
}

// rowBlank reports whether every cell of screen row y is an empty cell.
func (f *fastPath) rowBlank(y int) bool {
	t := f.t
	for x := 0; x < t.cols; x++ {
		if c := t.emu.CellAt(x, y); c == nil || !c.Equal(&uv.EmptyCell) {
			return false
		}
	}
	return true
}

// sim is the state of one simulation.
type sim struct {
	f       *fastPath
	x       int
	p       uint16
	phantom bool
	last    byte // last ASCII character printed as a cluster of its own
}

// simulate prints b (a run's middle, ending with a line feed) from column x
// of an empty bottom row in pen p, the way the emulator would, pushing the
// rows that leave the screen into the store and keeping the last rows-1 in
// the ring. It returns the final cursor column and the last ASCII character
// printed on its own.
func (f *fastPath) simulate(b []byte, x int, p uint16) (int, byte) {
	t := f.t
	fs := &f.fs
	s := sim{f: f, x: x, p: p}
	limit := -1 // lines ending before it may go straight to the store (fastlines.go)
	if !fs.partial {
		limit = directLimit(b, t.rows)
	}
	for i := 0; i < len(b) && !fs.overflow; i++ {
		c := b[i]
		switch {
		case c >= 0x20 && c < 0x7f:
			// The library prints a buffered lone ASCII character when the
			// next one comes, and holds this one: in a run of printable
			// ASCII, all but the last are printed.
			k := i + 1
			for k < len(b) && b[k] >= 0x20 && b[k] < 0x7f {
				k++
			}
			if len(fs.gr) == 1 && fs.gr[0] < 0x80 {
				s.print(simCell{ch: uint32(fs.gr[0]), w: 1}, true)
			} else {
				s.flush()
			}
			if k < len(b) && b[k] < 0x20 {
				// A control follows, which ends the cluster: the last
				// character prints now, as flush would print it.
				s.printASCII(b[i:k])
				fs.gr = fs.gr[:0]
			} else {
				s.printASCII(b[i : k-1])
				fs.gr = append(fs.gr[:0], b[k-1])
			}
			i = k - 1
			continue
		case c >= 0x80:
			n := runRune(b[i:])
			fs.gr = append(fs.gr, b[i:i+n]...)
			i += n - 1
			continue
		}
		s.flush()
		switch {
		case c == '\n':
			f.scrollRow(s.p)
			s.phantom = false
			if i+1 < limit && s.x == 0 && s.p == 0 {
				i = f.directLines(b, i+1, limit, &s) - 1
			}
		case c == '\r':
			s.x, s.phantom = 0, false
		case c == '\b':
			s.x, s.phantom = max(s.x-1, 0), false
		case c == '\t':
			if ts := fs.tabs.Next(s.x); ts >= s.x {
				s.x = min(ts, t.cols-1)
			}
		case c == 0x1b:
			n := runToken(b[i:])
			seq := b[i : i+n]
			i += n - 1
			if seq[n-1] == 'K' {
				blank := blankSim(fs.pens[s.p].blank)
				for cx := s.x; cx < t.cols; cx++ {
					fs.set(cx, blank)
				}
				s.phantom = false
				continue
			}
			fs.sgr = append(fs.sgr, seq...)
			if next, ok := fs.pens[s.p].next[string(seq)]; ok {
				s.p = uint16(next)
				continue
			}
			prev := s.p
			fs.style = fs.pens[prev].cell.Style
			for _, c := range seq {
				fs.sgrParser.Advance(c)
			}
			s.p = f.penID(&uv.Cell{Style: fs.style, Link: fs.pens[prev].cell.Link})
			if fs.pens[prev].next == nil {
				fs.pens[prev].next = make(map[string]int)
			}
			fs.pens[prev].next[string(seq)] = int(s.p)
			fs.nextN++
		}
	}
	return s.x, s.last
}

// flush prints the buffered clusters.
func (s *sim) flush() {
	fs := &s.f.fs
	gr := fs.gr
	if len(gr) == 1 && gr[0] < 0x80 {
		s.print(simCell{ch: uint32(gr[0]), w: 1}, true)
	} else {
		for len(gr) > 0 {
			cl, w := ansi.FirstGraphemeCluster(gr, ansi.GraphemeWidth)
			if len(cl) == 0 {
				break
			}
			if len(cl) == 1 && cl[0] < 0x80 {
				s.print(simCell{ch: uint32(cl[0]), w: uint8(w)}, w == 1)
			} else {
				fs.clusters = append(fs.clusters, string(cl))
				s.print(simCell{ch: clusterFlag | uint32(len(fs.clusters)-1), w: uint8(w)}, false)
			}
			gr = gr[len(cl):]
		}
	}
	fs.gr = fs.gr[:0]
}

// print writes one cluster at the cursor, as the library does, except that
// a wide character wraps as in xterm (widewrap.go): one that does not fit in
// the last column wraps before it is written, and one that fills the last
// two columns leaves a pending wrap.
func (s *sim) print(c simCell, ascii bool) {
	f := s.f
	t := f.t
	if s.phantom || (c.w == 2 && s.x == t.cols-1) {
		f.scrollRow(s.p)
		s.x, s.phantom = 0, false
	}
	c.p = s.p
	if ascii {
		s.last = byte(c.ch)
	}
	f.fs.set(s.x, c)
	if s.x >= t.cols-1 || (c.w == 2 && s.x == t.cols-2) {
		s.x, s.phantom = t.cols-1, true
	} else {
		s.x = min(s.x+int(c.w), t.cols-1)
	}
}

// printASCII prints ASCII characters, each a cluster of its own, as print
// does; on a row without wide characters it writes them a row at a time.
func (s *sim) printASCII(bs []byte) {
	f := s.f
	t := f.t
	fs := &f.fs
	for len(bs) > 0 && !fs.overflow {
		switch {
		case fs.curWide:
			s.print(simCell{ch: uint32(bs[0]), w: 1}, true)
			bs = bs[1:]
			continue
		case s.phantom:
			f.scrollRow(s.p)
			s.x, s.phantom = 0, false
			continue
		}
		n := min(len(bs), t.cols-s.x)
		row := fs.cur[s.x : s.x+n]
		for j, ch := range bs[:n] {
			row[j] = simCell{ch: uint32(ch), w: 1, p: s.p}
		}
		fs.curHi = max(fs.curHi, s.x+n)
		s.last = bs[n-1]
		if s.x+n >= t.cols {
			s.x, s.phantom = t.cols-1, true
		} else {
			s.x += n
		}
		bs = bs[n:]
	}
}

// set writes cell c at column x of the bottom row the way the library
// writes a cell into a line: writing over part of a wide character blanks
// all of it (keeping its pen), a wide character that does not fit becomes
// blanks in its own pen, and a wide character's second cell is a zero cell.
func (fs *fastState) set(x int, c simCell) {
	row := fs.cur
	cols := len(row)
	if c.w != 1 {
		fs.curWide = true
	}
	fs.curHi = min(max(fs.curHi, x+max(int(c.w), 1)), cols)
	if prev := row[x]; prev.w > 1 {
		for j := 0; j < int(prev.w) && x+j < cols; j++ {
			row[x+j] = blankSim(prev.p)
		}
	} else if prev.w == 0 {
		for j := 1; x-j >= 0; j++ {
			if wide := row[x-j]; int(wide.w) > 1 && j < int(wide.w) {
				for k := 0; k < int(wide.w); k++ {
					row[x-j+k] = blankSim(wide.p)
				}
				break
			}
		}
	}
	row[x] = c
	cw := int(c.w)
	if x+cw > cols {
		for i := 0; i < cw && x+i < cols; i++ {
			row[x+i] = blankSim(c.p)
		}
		return
	}
	for j := 1; j < cw; j++ {
		row[x+j] = simCell{}
	}
}

// scrollRow moves the bottom row up the screen (into the ring, and the
// ring's oldest row into the store when full) and starts a new row of
// blanks in pen p's background.
func (f *fastPath) scrollRow(p uint16) {
	t := f.t
	fs := &f.fs
	if fs.partial && fs.n == len(fs.ring) {
		fs.overflow = true
		return
	}
	if len(fs.ring) == 0 {
		t.pushRow(f.buildSim(fs.cur[:fs.curHi]))
	} else {
		var i int
		if fs.n == len(fs.ring) {
			i = fs.head
			t.pushRow(f.buildSim(fs.ring[i][:fs.ringHi[i]]))
			fs.head = (fs.head + 1) % len(fs.ring)
		} else {
			i = (fs.head + fs.n) % len(fs.ring)
			fs.n++
		}
		// The bottom row becomes ring row i, whose storage becomes the
		// new bottom row: no copy, only the cells it used are filled.
		fs.ring[i], fs.cur = fs.cur, fs.ring[i]
		fs.ringHi[i], fs.curHi = fs.curHi, fs.ringHi[i]
		fs.ringBlank[i], fs.curBlank = fs.curBlank, fs.ringBlank[i]
	}
	blank := blankSim(fs.pens[p].blank)
	if blank == fs.curBlank {
		fill(fs.cur[:fs.curHi], blank)
	} else {
		fill(fs.cur, blank)
	}
	fs.curHi, fs.curBlank, fs.curWide = 0, blank, false
	if blank != emptySim {
		fs.curHi = len(fs.cur) // blanks in a background are kept
	}
}

// blankCells counts the cells of the simulated screen (ring and bottom row)
// equal to blank.
func (fs *fastState) blankCells(blank simCell) int {
	n := 0
	for i := 0; i <= fs.n; i++ {
		row, hi, rest := fs.cur, fs.curHi, fs.curBlank
		if i < fs.n {
			k := (fs.head + i) % len(fs.ring)
			row, hi, rest = fs.ring[k], fs.ringHi[k], fs.ringBlank[k]
		}
		// row[hi:] are all rest: only row[:hi] needs looking at.
		for _, v := range row[:hi] {
			if v == blank {
				n++
			}
		}
		if rest == blank {
			n += len(row) - hi
		}
	}
	return n
}

// scrolledRow converts screen row y as the emulator's scrollback would keep
// it when it scrolled off (up to its last cell that is neither a zero cell
// nor an empty one) and drain would store it. Like buildScratch, the row
// is the builder's scratch space, for pushRow.
//
// used is one past the row's last cell that is not an empty cell (zero
// cells count): what erasing the row must cover.
func (f *fastPath) scrolledRow(y int) (r rowstore.Row, used int) {
	t := f.t
	n := t.cols
	for ; n > 0; n-- {
		c := t.emu.CellAt(n-1, y)
		if c == nil || emptyCell(c) {
			continue
		}
		if used == 0 {
			used = n
		}
		if !zeroCell(c) {
			break
		}
	}
	t.line = t.line[:0]
	for x := 0; x < n; x++ {
		if c := t.emu.CellAt(x, y); c != nil {
			t.line = append(t.line, *c)
		} else {
			t.line = append(t.line, uv.EmptyCell)
		}
	}
	r = t.rb.buildScratch(t.line, t.cols)
	clear(t.line) // drop references to cell contents
	return r, used
}

// zeroCell is c.IsZero() and emptyCell c.Equal(&uv.EmptyCell), without
// comparing colours other than to nil.
func zeroCell(c *uv.Cell) bool {
	return c.Width == 0 && len(c.Content) == 0 && plainStyle(&c.Style) && len(c.Link.URL) == 0 && len(c.Link.Params) == 0
}

func emptyCell(c *uv.Cell) bool {
	return c.Width == 1 && len(c.Content) == 1 && c.Content[0] == ' ' && plainStyle(&c.Style) &&
		len(c.Link.URL) == 0 && len(c.Link.Params) == 0
}

func plainStyle(s *uv.Style) bool {
	return s.Fg == nil && s.Bg == nil && s.UnderlineColor == nil && s.Underline == 0 && s.Attrs == 0
}

// buildSim converts a simulated row into a stored row, as build converts
// the same cells once the emulator's scrollback trimmed them. row is cut
// where only empty cells follow. Rows of ASCII cells take a short cut.
// Like buildScratch, the row is the builder's scratch space, for pushRow.
func (f *fastPath) buildSim(row []simCell) rowstore.Row {
	t := f.t
	fs := &f.fs
	if r, ok := t.rb.buildSimASCII(row, fs.pens); ok {
		return r
	}
	fs.line = fs.line[:0]
	for _, c := range row {
		if c == (simCell{}) {
			fs.line = append(fs.line, uv.Cell{})
			continue
		}
		cell := fs.pens[c.p].cell
		cell.Content, cell.Width = fs.content(c), int(c.w)
		fs.line = append(fs.line, cell)
	}
	// The scrollback keeps up to the last cell that is neither a zero cell
	// nor an empty one.
	n := len(fs.line)
	for n > 0 && (fs.line[n-1].IsZero() || fs.line[n-1].Equal(&uv.EmptyCell)) {
		n--
	}
	r := t.rb.buildScratch(fs.line[:n], t.cols)
	clear(fs.line)
	return r
}

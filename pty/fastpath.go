package pty

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// The line-output fast path.
//
// The library scrolls by copying every cell of the screen, so a line feed at
// the bottom costs the whole screen. A run of line output — printable ASCII,
// well-formed UTF-8, CR, LF, BS, HT, SGR sequences and EL (CSI K) — met in
// the ground state on the primary screen with a full-screen scroll region,
// autowrap on, LNM off and ASCII character sets, has an effect that is easy
// to compute. For runs with more line feeds than the screen has rows, this
// computes the rows that scroll away straight into the row store and brings
// the emulator to the state it would have reached:
//
//  1. The run up to its first line feed (which clears any pending wrap) and,
//     when needed, a few more lines go through the emulator until the
//     cursor is on the bottom row and that row is empty.
//  2. The pen (style and hyperlink) is read by printing an ASCII character
//     of the run there and putting the empty cell back.
//  3. SU (rows-1) pushes the old screen rows into the emulator's
//     scrollback (drained as usual).
//  4. The middle part, up to the run's last line feed, is simulated on rows
//     of (grapheme cluster, width, pen) cells, following what the library
//     does when it writes a cell: clusters found with
//     ansi.FirstGraphemeCluster over what it would have buffered, a wide
//     character that does not fit turned into blanks, a wide character
//     partly overwritten blanked, no pending wrap after a wide character.
//     Rows that scroll off go to the store. An SGR sequence changes the pen
//     through uv.ReadStyle, which is all the library's SGR handler does
//     (parameters from an ansi.Parser like its own); transitions are cached.
//     The SGR sequences are fed to the emulator at the end, so its pen is
//     right, then the last printed ASCII character, so REP repeats the
//     right one; the screen is painted over with SetCell and CHA puts the
//     cursor on its column.
//  5. The rest of the run goes the usual way.
//
// Differential tests (fixed and random streams, random write sizes) compare
// every cell, the cursor and every stored row with the emulator run alone.

// pen is a style and hyperlink the fast path met; cells refer to pens by
// index (0 is the default pen).
type pen struct {
	cell  uv.Cell        // Style and Link; Width 1
	key   string         // style-run encoding ("" for the default pen)
	blank uint16         // pen of the blank cells scrolling or EL fill with (background only)
	next  map[string]int // pen after an SGR sequence
}

// maxPens bounds the pen table; it starts afresh beyond that.
const maxPens = 256

// simCell is a cell of the simulation. ch is an ASCII character, or
// clusterFlag|i for fs.clusters[i]; a zero simCell is the second cell of a
// wide character.
type simCell struct {
	ch uint32
	w  uint8
	p  uint16
}

const clusterFlag = 1 << 31

var emptySim = simCell{ch: ' ', w: 1} // an empty cell

func blankSim(p uint16) simCell { return simCell{ch: ' ', w: 1, p: p} }

// fastState holds the fast path's buffers and pen table.
type fastState struct {
	cols     int
	tabs     *uv.TabStops
	cur      []simCell   // the bottom row, being written
	curHi    int         // cur[curHi:] are all curBlank
	curBlank simCell     // what cur was filled with
	ring     [][]simCell // the last rows-1 rows that scrolled up the screen
	ringHi   []int       // their curHi
	head     int
	n        int
	clusters []string // non-ASCII clusters of this run
	gr       []byte   // what the library would hold as an unfinished cluster
	line     uv.Line  // scratch for rows with non-ASCII cells
	pens     []pen
	sgr      []byte // SGR sequences not fed to the emulator yet

	sgrParser *ansi.Parser // parses SGR sequences into style
	style     uv.Style     // the style sgrParser works on
}

func (fs *fastState) reset(cols, keep int) {
	if fs.cols != cols || len(fs.ring) != keep {
		fs.cols = cols
		fs.tabs = uv.DefaultTabStops(cols)
		fs.cur = make([]simCell, cols)
		fs.ring = make([][]simCell, keep)
		fs.ringHi = make([]int, keep)
		for i := range fs.ring {
			fs.ring[i] = make([]simCell, cols)
		}
	}
	fill(fs.cur, emptySim)
	fs.curHi, fs.curBlank = 0, emptySim
	fs.head, fs.n = 0, 0
	clear(fs.clusters)
	fs.clusters = fs.clusters[:0]
	fs.gr = fs.gr[:0]
	fs.sgr = fs.sgr[:0]
	if len(fs.pens) == 0 || len(fs.pens) > maxPens {
		fs.pens = append(fs.pens[:0], pen{cell: uv.EmptyCell})
	}
	if fs.sgrParser == nil {
		fs.sgrParser = ansi.NewParser()
		fs.sgrParser.SetHandler(ansi.Handler{HandleCsi: func(cmd ansi.Cmd, params ansi.Params) {
			if cmd == 'm' {
				uv.ReadStyle(params, &fs.style)
			}
		}})
	}
}

func fill(row []simCell, v simCell) {
	for i := range row {
		row[i] = v
	}
}

// penID returns the index of the pen of cell c, adding it if new.
func (t *Terminal) penID(c *uv.Cell) uint16 {
	fs := &t.fs
	for i := range fs.pens {
		if p := &fs.pens[i].cell; p.Link == c.Link && sameStyle(&p.Style, &c.Style) {
			return uint16(i)
		}
	}
	p := pen{cell: uv.Cell{Content: " ", Width: 1, Style: c.Style, Link: c.Link}}
	if !c.Style.IsZero() || !c.Link.IsZero() {
		p.key = t.rb.styles.key(&p.cell)
	}
	id := len(fs.pens)
	fs.pens = append(fs.pens, p)
	if c.Style.Bg != nil {
		fs.pens[id].blank = t.penID(&uv.Cell{Style: uv.Style{Bg: c.Style.Bg}})
	}
	return uint16(id)
}

// sameStyle compares styles exactly (colour types included, unlike
// Style.Equal), so cells painted from a pen equal what the emulator would
// have written.
func sameStyle(a, b *uv.Style) (eq bool) {
	defer func() {
		if recover() != nil { // a colour of an incomparable type
			eq = false
		}
	}()
	return *a == *b
}

var asciiCell = func() (s [128]string) {
	for i := range s {
		s[i] = string(rune(i))
	}
	return s
}()

// content returns the text of a cell.
func (fs *fastState) content(c simCell) string {
	if c.ch&clusterFlag != 0 {
		return fs.clusters[c.ch&^clusterFlag]
	}
	return asciiCell[c.ch&0x7f]
}

// runToken returns the length of the SGR or EL (CSI K, CSI 0 K) sequence at
// the start of b, or 0.
func runToken(b []byte) int {
	if len(b) < 3 || b[0] != 0x1b || b[1] != '[' {
		return 0
	}
	for i := 2; i < len(b); i++ {
		switch c := b[i]; {
		case c >= '0' && c <= '9', c == ';', c == ':':
		case c == 'm':
			return i + 1
		case c == 'K':
			if i == 2 || (i == 3 && b[2] == '0') {
				return i + 1
			}
			return 0
		default:
			return 0
		}
	}
	return 0
}

// runRune returns the length of the well-formed UTF-8 character at the start
// of b, or 0. The parser takes as many bytes as the first one announces
// whatever they are; only characters that decode cleanly are taken here.
func runRune(b []byte) int {
	if b[0] < 0xc2 || b[0] > 0xf4 {
		return 0
	}
	r, n := utf8.DecodeRune(b)
	if r == utf8.RuneError || n < 2 {
		return 0
	}
	return n
}

// fastRun takes run (line output met in the ground state, with more line
// feeds than the screen has rows) up to its last line feed to the emulator,
// through the fast path when the state allows it, and returns how many
// bytes it took.
func (t *Terminal) fastRun(run []byte) int {
	e := t.emu
	rows, cols := t.rows, t.cols
	lastLF := bytes.LastIndexByte(run, '\n')
	done := lastLF + 1
	if e.IsAltScreen() || !t.autowrap || t.lnm || !t.regionFull[0] || t.hmargins[0] || cols < 2 {
		t.feed(run[:done])
		return done
	}
	pos := bytes.IndexByte(run, '\n') + 1
	t.feed(run[:pos])
	for tries := 0; ; tries++ {
		cur := e.CursorPosition()
		if cur.Y == rows-1 && t.rowBlank(rows-1) {
			break
		}
		need := max(rows-1-cur.Y, 1)
		q := pos
		for ; need > 0 && q < done; need-- {
			q += bytes.IndexByte(run[q:], '\n') + 1
		}
		if need > 0 || tries == 2 {
			t.feed(run[pos:done])
			return done
		}
		t.feed(run[pos:q])
		pos = q
	}
	middle := run[pos:done]
	if bytes.Count(middle, []byte{'\n'}) < rows {
		t.feed(middle)
		return done
	}
	probe := lonePrintable(middle)
	if probe == 0 {
		t.feed(middle)
		return done
	}
	// The pen, read by printing on the empty bottom row.
	x0 := e.CursorPosition().X
	t.emuWrite([]byte{probe})
	c := e.CellAt(x0, rows-1)
	ok := c != nil && c.Width == 1 && c.Content == asciiCell[probe]
	var probed uv.Cell
	if ok {
		probed = *c
	}
	e.SetCell(x0, rows-1, &uv.EmptyCell)
	if !ok {
		t.inject("\x1b[" + strconv.Itoa(x0+1) + "G")
		t.feed(middle)
		return done
	}
	fs := &t.fs
	fs.reset(cols, rows-1)
	p0 := t.penID(&probed)
	if rows > 1 {
		t.inject("\x1b[" + strconv.Itoa(rows-1) + "S")
		t.drain()
	}
	t.fastRuns++
	x, last := t.simulate(middle, x0, p0)
	// Feed the SGR sequences still due, print the last character so REP
	// repeats it, then paint the screen over that and put the cursor back.
	t.inject("\x1b[G")
	t.emuWrite(append(fs.sgr, last))
	fs.sgr = fs.sgr[:0]
	under := blankSim(fs.pens[p0].blank) // what the rows below the old bottom row hold
	for i := 0; i < rows; i++ {
		row := fs.cur
		if i < rows-1 {
			row = fs.ring[(fs.head+i)%len(fs.ring)]
		}
		old := under
		switch {
		case i == rows-1:
			old = simCell{w: 255} // never equal: the bottom row was printed on
		case i == 0:
			old = emptySim
		}
		for cx, v := range row {
			if v == old || (v == simCell{} && cx > 0 && row[cx-1].w > 1) {
				continue // unchanged, or made by painting the wide character
			}
			cell := fs.pens[v.p].cell
			cell.Content, cell.Width = fs.content(v), int(v.w)
			if v == (simCell{}) {
				cell = uv.Cell{}
			}
			e.SetCell(cx, i, &cell)
		}
	}
	t.inject("\x1b[" + strconv.Itoa(x+1) + "G")
	clear(fs.clusters)
	fs.clusters = fs.clusters[:0]
	return done
}

// lonePrintable returns an ASCII character b prints as a cluster of its own
// (not followed by a byte that could extend it), or 0.
func lonePrintable(b []byte) byte {
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == 0x1b:
			i += runToken(b[i:]) - 1
		case c >= 0x20 && c < 0x7f && (i+1 == len(b) || b[i+1] < 0x80):
			return c
		}
	}
	return 0
}

// rowBlank reports whether every cell of screen row y is an empty cell.
func (t *Terminal) rowBlank(y int) bool {
	for x := 0; x < t.cols; x++ {
		if c := t.emu.CellAt(x, y); c == nil || !c.Equal(&uv.EmptyCell) {
			return false
		}
	}
	return true
}

// sim is the state of one simulation.
type sim struct {
	t       *Terminal
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
func (t *Terminal) simulate(b []byte, x int, p uint16) (int, byte) {
	fs := &t.fs
	s := sim{t: t, x: x, p: p}
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= 0x20 && c < 0x7f:
			// The library prints a buffered lone ASCII character when the
			// next one comes, and holds this one.
			if len(fs.gr) == 1 && fs.gr[0] < 0x80 {
				s.print(simCell{ch: uint32(fs.gr[0]), w: 1}, true)
				fs.gr[0] = c
			} else {
				s.flush()
				fs.gr = append(fs.gr, c)
			}
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
			t.scrollRow(s.p)
			s.phantom = false
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
			s.p = t.penID(&uv.Cell{Style: fs.style, Link: fs.pens[prev].cell.Link})
			if fs.pens[prev].next == nil {
				fs.pens[prev].next = make(map[string]int)
			}
			fs.pens[prev].next[string(seq)] = int(s.p)
		}
	}
	return s.x, s.last
}

// flush prints the buffered clusters.
func (s *sim) flush() {
	fs := &s.t.fs
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

// print writes one cluster at the cursor, as the library does.
func (s *sim) print(c simCell, ascii bool) {
	t := s.t
	if s.phantom {
		t.scrollRow(s.p)
		s.x, s.phantom = 0, false
	}
	c.p = s.p
	if ascii {
		s.last = byte(c.ch)
	}
	t.fs.set(s.x, c)
	if s.x >= t.cols-1 {
		s.phantom = true
	} else {
		s.x = min(s.x+int(c.w), t.cols-1)
	}
}

// set writes cell c at column x of the bottom row the way the library
// writes a cell into a line: writing over part of a wide character blanks
// all of it (keeping its pen), a wide character that does not fit becomes
// blanks in its own pen, and a wide character's second cell is a zero cell.
func (fs *fastState) set(x int, c simCell) {
	row := fs.cur
	cols := len(row)
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
func (t *Terminal) scrollRow(p uint16) {
	fs := &t.fs
	if len(fs.ring) == 0 {
		t.pushRow(t.buildSim(fs.cur[:fs.curHi]))
	} else {
		var i int
		if fs.n == len(fs.ring) {
			i = fs.head
			t.pushRow(t.buildSim(fs.ring[i][:fs.ringHi[i]]))
			fs.head = (fs.head + 1) % len(fs.ring)
		} else {
			i = (fs.head + fs.n) % len(fs.ring)
			fs.n++
		}
		copy(fs.ring[i], fs.cur)
		fs.ringHi[i] = fs.curHi
	}
	blank := blankSim(fs.pens[p].blank)
	if blank == fs.curBlank {
		fill(fs.cur[:fs.curHi], blank)
	} else {
		fill(fs.cur, blank)
	}
	fs.curHi, fs.curBlank = 0, blank
	if blank != emptySim {
		fs.curHi = len(fs.cur) // blanks in a background are kept
	}
}

// buildSim converts a simulated row into a stored row, as build converts
// the same cells once the emulator's scrollback trimmed them. row is cut
// where only empty cells follow. Rows of ASCII cells take a short cut.
func (t *Terminal) buildSim(row []simCell) storedRow {
	fs := &t.fs
	ascii := true
	for _, c := range row {
		if c.ch&clusterFlag != 0 || c.w != 1 {
			ascii = false
			break
		}
	}
	if ascii {
		return t.rb.buildSimASCII(row, fs.pens)
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
	r := t.rb.build(fs.line[:n], t.cols, true)
	clear(fs.line)
	return r
}

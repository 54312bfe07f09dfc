package term

import (
	"bytes"
	"image/color"
	"strconv"

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
// to compute. For runs with a few line feeds or more, this computes the rows
// that scroll away straight into the row store and brings the emulator to
// the state it would have reached, with one scroll and one repaint instead of
// one whole-screen copy per line feed:
//
//  1. The run up to its first line feed (which clears any pending wrap) and,
//     when needed, a few more lines go through the emulator until the
//     cursor is on the bottom row and that row is empty.
//  2. The pen (style and hyperlink) is read by printing an ASCII character
//     of the run there and putting the empty cell back.
//  3. A long run (rows-1 line feeds or more) scrolls every row above the
//     bottom one off the screen: they go to the store first, converted as
//     the emulator's scrollback would have kept them (no copy through the
//     scrollback). A short run (fewer line feeds: a pipe's read on a big
//     screen) is simulated first; the n rows it advanced (line feeds and
//     wraps) then go to the store the same way, are erased (ED 1), so that
//     SU n copies nothing into the scrollback, and scrolled off. Should a
//     short run advance rows-1 rows or more (long wrapped lines), it is
//     simulated again as a long one.
//  4. The middle part, up to the run's last line feed, is simulated on rows
//     of (grapheme cluster, width, pen) cells, following what the library
//     does when it writes a cell: clusters found with
//     ansi.FirstGraphemeCluster over what it would have buffered, a wide
//     character partly overwritten blanked; wide characters at the margin
//     wrap as in xterm, as the emulator is made to do (widewrap.go): one
//     that does not fit in the last column wraps first, one that fills the
//     last two columns leaves a pending wrap.
//     Rows that scroll off go to the store; in a long run, plain lines
//     that would scroll off before its end go there straight from the
//     input bytes (fastlines.go). An SGR sequence changes the pen
//     through uv.ReadStyle, which is all the library's SGR handler does
//     (parameters from an ansi.Parser like its own); transitions are cached.
//     The SGR sequences are fed to the emulator at the end, so its pen is
//     right, then the last printed ASCII character, so REP repeats the
//     right one; the rows the run wrote are painted with SetCell (after a
//     long run: over an erased screen (ED 1) when it is mostly blank, else
//     over every cell) and CHA puts the cursor on its column.
//  5. The rest of the run goes the usual way.
//
// Differential tests (fixed and random streams, random write sizes) compare
// every cell, the cursor and every stored row with the emulator run alone.

// fastPath takes runs of line output through the simulation above instead
// of the emulator's per-line scrolling. It works on t's emulator and row
// store, under t.mu, from Write.
type fastPath struct {
	t  *Terminal
	on bool      // enabled (tests compare with it off)
	fs fastState // buffers and pen table; dropped with the emulator

	runs        int // runs the fast path took (for tests)
	partialRuns int // of them, short runs (fewer line feeds than rows)
	directRows  int // rows stored from the input (fastlines.go; for tests)
}

// pen is a style and hyperlink the fast path met; cells refer to pens by
// index (0 is the default pen).
type pen struct {
	cell  uv.Cell        // Style and Link; Width 1
	key   string         // style-run encoding ("" for the default pen)
	blank uint16         // pen of the blank cells scrolling or EL fill with (background only)
	next  map[string]int // pen after an SGR sequence
}

// maxPens and maxTransitions bound the pen table and its cached SGR
// transitions; the table starts afresh beyond either.
const (
	maxPens        = 1024
	maxTransitions = 4096
)

// penKey identifies a pen exactly, for pens whose colours are of comparable
// types (all the library produces); others are found by a linear search.
type penKey struct {
	style uv.Style
	link  uv.Link
}

// hashableStyle reports whether s can be a map key: its colours are nil or
// of a known comparable type.
func hashableStyle(s *uv.Style) bool {
	return hashableColor(s.Fg) && hashableColor(s.Bg) && hashableColor(s.UnderlineColor)
}

func hashableColor(c color.Color) bool {
	switch c.(type) {
	case nil, ansi.BasicColor, ansi.IndexedColor, ansi.TrueColor, ansi.RGBColor,
		color.RGBA, color.RGBA64, color.NRGBA, color.NRGBA64, color.CMYK,
		color.Alpha, color.Alpha16, color.Gray, color.Gray16:
		return true
	}
	return false
}

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
	cols      int
	tabs      *uv.TabStops
	cur       []simCell   // the bottom row, being written
	curHi     int         // cur[curHi:] are all curBlank
	curBlank  simCell     // what cur was filled with
	ring      [][]simCell // the last rows-1 rows that scrolled up the screen
	ringHi    []int       // their curHi
	ringBlank []simCell   // their curBlank: ring[i][ringHi[i]:] are all ringBlank[i]
	head      int
	n         int
	clusters  []string // non-ASCII clusters of this run
	gr        []byte   // what the library would hold as an unfinished cluster
	line      uv.Line  // scratch for rows with non-ASCII cells
	pens      []pen
	penIndex  map[penKey]uint16 // the pens with hashable styles
	nextN     int               // transitions cached in pens[].next
	sgr       []byte            // SGR sequences not fed to the emulator yet
	used      []int             // a long run: scrolledRow's used of the old rows
	retries   int               // short runs simulated again as long ones (for tests)
	penResets int               // times the pen table started afresh (for tests)
	curWide   bool              // cur may hold wide characters
	partial   bool              // a short run: scrolling past the ring is an overflow, not a push
	overflow  bool              // a partial simulation advanced more than the ring holds

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
		fs.ringBlank = make([]simCell, keep)
		for i := range fs.ring {
			fs.ring[i] = make([]simCell, cols)
			fs.ringHi[i], fs.ringBlank[i] = cols, simCell{w: 255} // filled before use
		}
	}
	fill(fs.cur, emptySim)
	fs.curHi, fs.curBlank, fs.curWide = 0, emptySim, false
	fs.head, fs.n = 0, 0
	fs.partial, fs.overflow = false, false
	clear(fs.clusters)
	fs.clusters = fs.clusters[:0]
	fs.gr = fs.gr[:0]
	fs.sgr = fs.sgr[:0]
	if len(fs.pens) == 0 || len(fs.pens) > maxPens || fs.nextN > maxTransitions {
		if len(fs.pens) > 0 {
			fs.penResets++
		}
		clear(fs.pens)
		fs.pens = append(fs.pens[:0], pen{cell: uv.EmptyCell})
		fs.penIndex = map[penKey]uint16{{style: uv.EmptyCell.Style, link: uv.EmptyCell.Link}: 0}
		fs.nextN = 0
	}
	if fs.sgrParser == nil {
		fs.sgrParser = ansi.NewParser()
		fs.sgrParser.SetDataSize(64) // it parses SGR only: no string payloads (64 KiB by default)
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
func (f *fastPath) penID(c *uv.Cell) uint16 {
	t := f.t
	fs := &f.fs
	hashable := hashableStyle(&c.Style)
	if hashable {
		if id, ok := fs.penIndex[penKey{c.Style, c.Link}]; ok {
			return id
		}
	} else {
		for i := range fs.pens {
			if p := &fs.pens[i].cell; p.Link == c.Link && sameStyle(&p.Style, &c.Style) {
				return uint16(i)
			}
		}
	}
	p := pen{cell: uv.Cell{Content: " ", Width: 1, Style: c.Style, Link: c.Link}}
	if !c.Style.IsZero() || !c.Link.IsZero() {
		p.key = t.rb.styles.key(&p.cell)
	}
	id := len(fs.pens)
	fs.pens = append(fs.pens, p)
	if hashable {
		fs.penIndex[penKey{c.Style, c.Link}] = uint16(id)
	}
	if c.Style.Bg != nil {
		fs.pens[id].blank = f.penID(&uv.Cell{Style: uv.Style{Bg: c.Style.Bg}})
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

// runnable reports whether run may go through the fast path: more than
// 8 bytes with more than two line feeds, ASCII printing as itself, and tab
// stops at their defaults unless the run has no tab.
func (f *fastPath) runnable(run []byte) bool {
	t := f.t
	return f.on && len(run) > 8 && t.tr.charsetOK() &&
		(t.tr.tabsDefault || bytes.IndexByte(run, '\t') < 0) &&
		bytes.Count(run, []byte{'\n'}) > 2
}

// run takes run (line output met in the ground state, with more line
// feeds than the screen has rows) up to its last line feed to the emulator,
// through the fast path when the state allows it, and returns how many
// bytes it took.
func (f *fastPath) run(run []byte) int {
	t := f.t
	done := bytes.LastIndexByte(run, '\n') + 1
	if !f.screenOK() {
		t.feed(run[:done])
		return done
	}
	pos, imported := f.toBottomRow(run, done)
	f.middle(run[pos:done], imported)
	return done
}

// screenOK reports whether the emulator is in a state the fast path
// simulates: the primary screen with a full-screen scroll region and no
// left/right margins, autowrap on, LNM off, at least two columns.
func (f *fastPath) screenOK() bool {
	t := f.t
	return !t.emu.IsAltScreen() && t.autowrap && !t.lnm && t.regionFull[0] && !t.hmargins[0] && t.cols >= 2
}

// toBottomRow is step 1: it feeds the emulator the run up to its first line
// feed (which clears any pending wrap) and, when needed, a few more lines,
// until the cursor is on the bottom row and that row is empty. When the
// first line has a CR and the cursor is then at the start of the bottom
// row, that row is taken over as it is instead (imported). It returns where
// the rest of the run starts: done when it fed all of run[:done] (the
// cursor did not get there in three tries).
func (f *fastPath) toBottomRow(run []byte, done int) (pos int, imported bool) {
	t := f.t
	e, rows := t.emu, t.rows
	first := bytes.IndexByte(run, '\n')
	pos = first + 1
	if cr := bytes.LastIndexByte(run[:first], '\r'); cr >= 0 {
		// Up to the first line's last CR: the cursor is then at the start
		// of a row with no pending wrap, usually the bottom one, which the
		// simulation can take over as it is (so that this line feed does
		// not make the library copy the whole screen either).
		t.feed(run[:cr+1])
		if cur := e.CursorPosition(); cur.Y == rows-1 && cur.X == 0 {
			return cr + 1, true
		}
		t.feed(run[cr+1 : pos])
	} else {
		t.feed(run[:pos])
	}
	for tries := 0; ; tries++ {
		cur := e.CursorPosition()
		if cur.Y == rows-1 && f.rowBlank(rows-1) {
			return pos, false
		}
		need := max(rows-1-cur.Y, 1)
		q := pos
		for ; need > 0 && q < done; need-- {
			q += bytes.IndexByte(run[q:], '\n') + 1
		}
		if need > 0 || tries == 2 {
			t.feed(run[pos:done])
			return done, false
		}
		t.feed(run[pos:q])
		pos = q
	}
}

// middle takes the middle of a run (from the cursor on the bottom row
// up to the run's last line feed) through the simulation (steps 2 to 4),
// or through the emulator when it has fewer than two line feeds, no ASCII
// character to probe the pen with, or a bottom row or pen the simulation
// cannot represent.
func (f *fastPath) middle(middle []byte, imported bool) {
	t := f.t
	e, rows := t.emu, t.rows
	lines := bytes.Count(middle, []byte{'\n'})
	if lines < 2 {
		t.feed(middle)
		return
	}
	probe := lonePrintable(middle)
	if probe == 0 {
		t.feed(middle)
		return
	}
	x0 := e.CursorPosition().X
	saved := uv.EmptyCell
	if imported {
		if c := e.CellAt(x0, rows-1); c != nil && c.Width == 1 {
			saved = *c
		} else {
			t.feed(middle)
			return
		}
	}
	probed, ok := f.probePen(probe, x0, &saved)
	if ok {
		ok = f.startSim(imported)
	}
	if !ok {
		f.fs.dropClusters()
		t.inject("\x1b[" + strconv.Itoa(x0+1) + "G")
		t.feed(middle)
		return
	}
	x, last, p0 := f.simulateMiddle(middle, lines, x0, &probed, imported)
	under := blankSim(f.fs.pens[p0].blank) // what the rows below the old bottom row hold
	sparse := f.eraseForPaint(under)
	f.runs++
	f.paintSimulated(under, sparse, imported, x, last)
}

// probePen is step 2: it reads the pen (style and hyperlink) the run
// starts in by printing probe, an ASCII character of the run, at column x
// of the bottom row, and then puts saved back there. ok is false when the
// cell printed is not the probe alone.
func (f *fastPath) probePen(probe byte, x int, saved *uv.Cell) (probed uv.Cell, ok bool) {
	t := f.t
	e, y := t.emu, t.rows-1
	t.emuWrite([]byte{probe})
	c := e.CellAt(x, y)
	ok = c != nil && c.Width == 1 && c.Content == asciiCell[probe]
	if ok {
		probed = *c
	}
	e.SetCell(x, y, saved)
	return probed, ok
}

// startSim starts a simulation of the screen: the ring holds rows-1 rows
// and the bottom row is empty, or, when imported, the emulator's bottom
// row. It reports false when that row has a cell the simulation cannot
// represent.
func (f *fastPath) startSim(imported bool) bool {
	t := f.t
	f.fs.reset(t.cols, t.rows-1)
	return !imported || f.importRow(t.rows-1)
}

// simulateMiddle is step 3 and 4's simulation of middle (with lines line
// feeds) from column x0 in the pen of cell probed. A short run (fewer line
// feeds than rows-1) is simulated first keeping every row it advances in
// the ring; should it advance rows-1 rows or more, it is simulated again as
// a long one, which first moves every row above the bottom one to the
// store. It returns the final cursor column, the last ASCII character
// printed on its own and the pen it started in.
func (f *fastPath) simulateMiddle(middle []byte, lines, x0 int, probed *uv.Cell, imported bool) (x int, last byte, p0 uint16) {
	t := f.t
	fs := &f.fs
	p0 = f.penID(probed)
	if lines < t.rows-1 {
		fs.partial = true
		x, last = f.simulate(middle, x0, p0)
		if fs.overflow {
			// It advanced a whole screen after all (wrapped lines): again,
			// as a long run. Nothing but the probe touched the emulator.
			// The pen table may have started afresh: the pen is looked up
			// again.
			f.startSim(imported)
			p0 = f.penID(probed)
			fs.retries++
		}
	}
	if !fs.partial {
		// Every row above the (empty) bottom row leaves the screen: they go
		// to the store as the emulator's scrollback would have kept them,
		// and the whole screen is painted below.
		fs.used = fs.used[:0]
		for y := 0; y < t.rows-1; y++ {
			r, used := f.scrolledRow(y)
			t.pushRow(r)
			fs.used = append(fs.used, used)
		}
		x, last = f.simulate(middle, x0, p0)
	}
	return x, last, p0
}

// eraseForPaint prepares the emulator's screen for painting the simulated
// rows, whose blank cells are under, and reports whether it erased the
// whole screen (sparse: the simulated screen is mostly blank).
func (f *fastPath) eraseForPaint(under simCell) (sparse bool) {
	t := f.t
	fs := &f.fs
	rows, cols := t.rows, t.cols
	if fs.partial {
		// The old rows the simulated ones push up leave the screen now
		// (nothing else was pushed): to the store as the emulator's
		// scrollback would have kept them; then they are erased (ED 1 from
		// the end of the last of them) so that SU n, which scrolls them off,
		// has (with the default background) nothing to copy into the
		// scrollback, and what it kept is dropped.
		n := fs.n
		for y := 0; y < n; y++ {
			r, _ := f.scrolledRow(y)
			t.pushRow(r)
		}
		t.inject("\x1b[" + strconv.Itoa(n) + ";" + strconv.Itoa(cols) + "H\x1b[1J\x1b[" +
			strconv.Itoa(rows) + "H\x1b[" + strconv.Itoa(n) + "S")
		t.dropScrollback()
		f.partialRuns++
		return false
	}
	if fs.blankCells(under)*2 <= rows*cols {
		return false
	}
	// Mostly blank: erase the screen and paint the rest, rather than
	// painting every cell. With the default background only what the old
	// rows used needs erasing (ECH; the bottom row is empty), else all of
	// it (ED 1 from its last cell).
	if under == emptySim {
		f.eraseUsed()
	} else {
		t.inject("\x1b[" + strconv.Itoa(rows) + ";" + strconv.Itoa(cols) + "H\x1b[1J")
	}
	return true
}

// eraseUsed erases, with ECH, the cells the old rows above the bottom row
// used (fs.used), and puts the cursor back on the bottom row.
func (f *fastPath) eraseUsed() {
	t := f.t
	fs := &f.fs
	seqs := fs.sgr[len(fs.sgr):] // scratch space after the pending SGRs
	for y, used := range fs.used {
		if used > 0 {
			seqs = append(seqs, "\x1b["...)
			seqs = strconv.AppendInt(seqs, int64(y+1), 10)
			seqs = append(seqs, ";1H\x1b["...)
			seqs = strconv.AppendInt(seqs, int64(used), 10)
			seqs = append(seqs, 'X')
		}
	}
	if len(seqs) > 0 {
		seqs = append(seqs, "\x1b["...)
		seqs = strconv.AppendInt(seqs, int64(t.rows), 10)
		t.emuWrite(append(seqs, 'H')) // back on the bottom row
	}
}

// paintSimulated is the end of step 4: it feeds the SGR sequences still
// due, prints the last character so REP repeats it, then paints the
// simulated rows over that and puts the cursor on column x.
//
// The ring's rows end just above the bottom row. It is full unless the run
// was short; then the first of them is where the old bottom row went, and
// SU filled the others. A full ring is painted over the erased screen
// (sparse), or over the old one cell by cell.
func (f *fastPath) paintSimulated(under simCell, sparse, imported bool, x int, last byte) {
	t := f.t
	fs := &f.fs
	t.inject("\x1b[G")
	t.emuWrite(append(fs.sgr, last))
	fs.sgr = fs.sgr[:0]
	top := t.rows - 1 - fs.n
	never := simCell{w: 255} // never equal to a cell
	for i := 0; i <= fs.n; i++ {
		row := fs.cur
		if i < fs.n {
			row = fs.ring[(fs.head+i)%len(fs.ring)]
		}
		old := under // what the emulator's row holds where it is blank
		switch {
		case i == fs.n || (!fs.partial && !sparse):
			old = never // the bottom row was printed on; the others hold old rows
		case i == 0 && fs.partial && !imported:
			old = emptySim
		case i == 0 && fs.partial:
			old = never // the old bottom row, as it was
		}
		f.paintRow(row, top+i, old)
	}
	t.inject("\x1b[" + strconv.Itoa(x+1) + "G")
	fs.dropClusters()
}

// paintRow sets the cells of screen row y to those of the simulated row,
// skipping cells equal to old (what the row holds already) and the second
// cells of wide characters, which painting the wide character makes.
func (f *fastPath) paintRow(row []simCell, y int, old simCell) {
	t := f.t
	fs := &f.fs
	for cx, v := range row {
		if v == old || (v == simCell{} && cx > 0 && row[cx-1].w > 1) {
			continue // unchanged, or made by painting the wide character
		}
		cell := fs.pens[v.p].cell
		cell.Content, cell.Width = fs.content(v), int(v.w)
		if v == (simCell{}) {
			cell = uv.Cell{}
		}
		t.emu.SetCell(cx, y, &cell)
	}
}

// dropClusters forgets the clusters of the run.
func (fs *fastState) dropClusters() {
	clear(fs.clusters)
	fs.clusters = fs.clusters[:0]
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

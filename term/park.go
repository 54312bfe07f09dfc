package term

import (
	"image/color"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
	"github.com/signaltty/signaltty/term/rowstore"
)

// Idle release (docs/emulator-release.md): a terminal whose output has been
// idle for a while gives its emulator back (pool.go) and keeps its screen as
// stored rows plus what the rows do not say: the cursor (position,
// visibility, shape, pen, hyperlink, pending wrap), the saved cursor, the
// scroll margins, every mode, the character sets and the colours. The next
// output, resize, capture, tail or frame rebuilds an emulator from them
// first, by feeding a fresh one the sequences that recreate that state.

// DefaultReleaseAfter is how long a terminal's output stays idle before its
// emulator is released, unless configured otherwise.
const DefaultReleaseAfter = 30 * time.Second

// minFreeInterval spaces the passes that hand released memory back.
const minFreeInterval = 2 * time.Second

// minParkerWait batches the parker's wake-ups: terminals that fall idle
// within this much of each other are released in one pass.
const minParkerWait = 100 * time.Millisecond

// Parker releases the emulators of terminals whose output has been idle for
// its delay. It keeps one timer, armed only while some terminal that may be
// released is waiting: an idle daemon whose terminals are all released (or
// cannot be) has no timer at all. A terminal is queued by its output (and
// by a rebuild) and dropped from the queue when released or found in a
// state that cannot be released (it is queued again by its next output).
// Safe for concurrent use.
type Parker struct {
	mu    sync.Mutex
	after time.Duration // 0: never release
	queue []*Terminal
	timer *time.Timer
	armed bool
	// Released emulators are garbage: their memory goes back to the
	// system (debug.FreeOSMemory) at most once per minFreeInterval, after
	// a pass that released some; freeDue marks one owed.
	freeDue  bool
	lastFree time.Time

	parks, rebuilds, refused atomic.Int64
}

// NewParker returns a parker releasing terminals idle for after (0 or less:
// never).
func NewParker(after time.Duration) *Parker {
	pk := &Parker{after: max(after, 0)}
	return pk
}

// SetAfter changes the delay (0 or less: never release); terminals already
// queued are looked at again within the new delay.
func (pk *Parker) SetAfter(after time.Duration) {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	pk.after = max(after, 0)
	if pk.armed && pk.after > 0 {
		pk.timer.Reset(max(pk.after, minParkerWait))
	}
}

// After returns the delay (0: never).
func (pk *Parker) After() time.Duration {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	return pk.after
}

// ParkerStats counts what a parker did since it was made.
type ParkerStats struct {
	Released int64 // emulators released
	Rebuilt  int64 // emulators rebuilt
	Refused  int64 // idle terminals in a state that cannot be released (docs/emulator-release.md)
}

// Stats returns the parker's counters.
func (pk *Parker) Stats() ParkerStats {
	return ParkerStats{Released: pk.parks.Load(), Rebuilt: pk.rebuilds.Load(), Refused: pk.refused.Load()}
}

// enqueue adds t (whose lock is held) to the queue, arming the timer if it
// was not.
func (pk *Parker) enqueue(t *Terminal) {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	if pk.after <= 0 {
		t.parking.queued = false
		return
	}
	pk.queue = append(pk.queue, t)
	pk.armLocked(pk.after)
}

func (pk *Parker) armLocked(d time.Duration) {
	if pk.armed {
		return
	}
	pk.armed = true
	d = max(d, minParkerWait)
	if pk.timer == nil {
		pk.timer = time.AfterFunc(d, pk.fire)
	} else {
		pk.timer.Reset(d)
	}
}

// fire looks at the queued terminals: releases those idle long enough and
// keeps those that are not yet.
func (pk *Parker) fire() {
	pk.mu.Lock()
	q, after := pk.queue, pk.after
	pk.queue, pk.armed = nil, false
	pk.mu.Unlock()
	now := time.Now()
	var keep []*Terminal
	next := after
	released := pk.parks.Load()
	for _, t := range q {
		if wait, again := t.parking.parkIfIdle(pk, now, after); again {
			keep = append(keep, t)
			next = min(next, wait)
		}
	}
	pk.mu.Lock()
	defer pk.mu.Unlock()
	if pk.parks.Load() != released {
		pk.freeDue = true
	}
	if pk.freeDue && now.Sub(pk.lastFree) >= minFreeInterval {
		pk.freeDue, pk.lastFree = false, now
		pk.mu.Unlock()
		debug.FreeOSMemory()
		pk.mu.Lock()
	}
	pk.queue = append(pk.queue, keep...)
	switch {
	case len(pk.queue) > 0:
		pk.armLocked(next)
	case pk.freeDue:
		pk.armLocked(minFreeInterval - now.Sub(pk.lastFree))
	}
}

// parking is a terminal's side of idle release: the parker that may
// release its emulator, when its output last came, and what rebuilds the
// emulator once released. Its methods run with t.mu held unless they say
// otherwise.
type parking struct {
	t       *Terminal
	parker  *Parker      // nil: never released when idle
	parked  *parkedState // set while released
	lastOut time.Time    // output (or a rebuild) last noted
	queued  bool         // in parker's queue
	// allModes is every mode as last set, which a rebuild sets again.
	allModes map[ansi.Mode]bool
}

// touchLocked notes output (or a rebuild) now and queues t with its parker;
// t.mu is held.
func (ps *parking) touchLocked() {
	t := ps.t
	if ps.parker == nil || t.emu == nil {
		return
	}
	ps.lastOut = time.Now()
	if !ps.queued {
		ps.queued = true
		ps.parker.enqueue(t)
	}
}

// parkIfIdle releases t's emulator when its output was idle for after. It
// returns how long until it may be, and true, when t should stay queued.
func (ps *parking) parkIfIdle(pk *Parker, now time.Time, after time.Duration) (time.Duration, bool) {
	t := ps.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.emu == nil || after <= 0 {
		ps.queued = false
		return 0, false
	}
	if idle := now.Sub(ps.lastOut); idle < after {
		return after - idle, true
	}
	ps.queued = false
	if !ps.releasableLocked() {
		pk.refused.Add(1)
		return 0, false
	}
	if !ps.parkLocked() {
		pk.refused.Add(1)
		return 0, false
	}
	pk.parks.Add(1)
	return 0, false
}

// Parked reports whether the terminal's emulator is released until the next
// output, resize, capture, tail or frame.
func (t *Terminal) Parked() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.parking.parked != nil
}

// Park releases the emulator now if the terminal is in a state that can be
// rebuilt (as the parker does once the output is idle) and reports whether
// it did.
func (t *Terminal) Park() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.emu == nil || !t.parking.releasableLocked() || !t.parking.parkLocked() {
		return false
	}
	if t.parking.parker != nil {
		t.parking.parker.parks.Add(1)
	}
	return true
}

// noteMode records a mode change (from the emulator's callbacks).
func (ps *parking) noteMode(m ansi.Mode, on bool) {
	if ps.allModes == nil {
		ps.allModes = map[ansi.Mode]bool{}
	}
	ps.allModes[m] = on
}

// Modes that a rebuild does not set from allModes: the screen switches and
// cursor saves (the alternate screen is never released; the saved cursor is
// probed), and the cursor's visibility (probed).
var unreplayedModes = map[ansi.Mode]bool{
	ansi.ModeAltScreen:           true,
	ansi.ModeSaveCursor:          true,
	ansi.ModeAltScreenSaveCursor: true,
	ansi.ModeTextCursorEnable:    true,
}

// releasableLocked reports whether everything the emulator holds can be
// captured through its API and set again (docs/emulator-release.md lists
// what cannot): t.mu is held.
func (ps *parking) releasableLocked() bool {
	t := ps.t
	e := t.emu
	switch {
	case t.host == nil, e.IsAltScreen(), // the primary screen under it cannot be read
		!t.tr.ground(), t.tr.gsingle != 0, t.midChar, // in the middle of a sequence, a single shift or a character
		!t.tr.tabsDefault,                  // tab stops cannot be read
		t.hmargins[0],                      // left/right margins are not tracked
		ps.allModes[ansi.ModeOrigin],       // positions are relative to margins
		ps.allModes[ansi.ModeInBandResize], // setting it again would send a report
		t.cols < 3:                         // the pending-wrap probe needs a column between the margins
		return false
	}
	return true
}

// cursorSnap is a cursor as a rebuild sets it again.
type cursorSnap struct {
	pos    uv.Position
	hidden bool
	style  vt.CursorStyle
	blink  bool
	pen    uv.Style
	link   uv.Link
}

// defaultCursor is a new emulator's cursor (and saved cursor).
var defaultCursor = cursorSnap{blink: true}

func (c *cursorSnap) equal(o *cursorSnap) bool {
	return c.pos == o.pos && c.hidden == o.hidden && c.style == o.style && c.blink == o.blink &&
		c.pen.Equal(&o.pen) && c.link == o.link
}

// parkedState is what a released terminal keeps to rebuild its emulator.
type parkedState struct {
	rows     []rowstore.Row // the screen, with style runs
	cur      cursorSnap
	saved    cursorSnap
	wrap     bool    // pending wrap: the next character goes to the next line
	wrapCell uv.Cell // the cell under a pending wrap (printed again to set it)
	fg, bg   color.Color
	cc       color.Color
	palette  map[int]color.Color // entries that differ from the defaults
	// edge holds, per row, a wide character in the last two columns: the
	// library does not print one there (widewrap.go puts it there), so the
	// rebuild sets the cell itself.
	edge map[int]uv.Cell
}

// redrawable reports whether printing row y's text cell by cell gives its
// cells back: false when neighbouring cells would join into one cluster
// (cells the library split at the end of a write), or a cell's content is
// not printable as it is.
func (ps *parking) redrawable(y int, r *rowstore.Row) bool {
	t := ps.t
	rest, x := r.Text, 0
	for len(rest) > 0 {
		cl, w := ansi.FirstGraphemeCluster(rest, ansi.GraphemeWidth)
		if len(cl) == 0 {
			return false
		}
		c := t.emu.CellAt(x, y)
		if c == nil {
			c = &uv.EmptyCell
		}
		if c.Content != cl || max(c.Width, 1) != w {
			return false
		}
		x += w
		rest = rest[len(cl):]
	}
	return true
}

// parkLocked snapshots the screen and the emulator's state and gives the
// emulator back; t.mu is held and releasableLocked is true. After the
// snapshot, probes that change the emulator find what its API does not
// return (the pen, the pending wrap, the saved cursor): the emulator is
// reset before anything else uses it. It reports false, changing
// nothing, when the screen cannot be redrawn as it is.
func (ps *parking) parkLocked() bool {
	t := ps.t
	// The held cluster stays held: the next output may still extend it,
	// and reaches the rebuilt emulator with it.
	e := t.emu
	t.drain()
	st := &parkedState{rows: make([]rowstore.Row, t.rows)}
	for y := range st.rows {
		st.rows[y] = t.screenRow(y, true)
		if !ps.redrawable(y, &st.rows[y]) {
			return false
		}
		if c := e.CellAt(t.cols-2, y); c != nil && c.Width == 2 {
			if st.edge == nil {
				st.edge = map[int]uv.Cell{}
			}
			st.edge[y] = *c
		}
	}
	st.cur.pos = e.CursorPosition()
	st.cur.hidden = e.CursorHidden()
	st.cur.style, st.cur.blink = e.CursorStyle()
	if c := e.CellAt(t.cols-1, st.cur.pos.Y); c != nil {
		st.wrapCell = *c
	} else {
		st.wrapCell = uv.EmptyCell
	}
	if st.cur.pos.X == t.cols-1 && st.wrapCell.Width != 1 {
		return false // maybe a pending wrap after a wide character (widewrap.go), which printing cannot set
	}
	st.fg, st.bg, st.cc = e.ForegroundColor(), e.BackgroundColor(), e.CursorColor()
	for i := 0; i < 256; i++ {
		if c := e.IndexedColor(i); !sameColor(c, ansi.IndexedColor(i)) {
			if st.palette == nil {
				st.palette = map[int]color.Color{}
			}
			st.palette[i] = c
		}
	}

	// The pen and the pending wrap: print a probe where the cursor is.
	t.emuWrite([]byte(probeRune))
	np := e.CursorPosition()
	at := st.cur.pos
	if st.cur.pos.X == t.cols-1 && np.X == 1 {
		st.wrap, at = true, uv.Pos(0, np.Y)
	}
	if c := e.CellAt(at.X, at.Y); c != nil && c.Content == probeRune {
		st.cur.pen, st.cur.link = c.Style, c.Link
	} else {
		t.panics++ // cannot happen; counted where tests look
	}
	// The saved cursor: restore it (after a CUP ends any pending wrap) and
	// probe again.
	t.emuWrite([]byte("\x1b[H\x1b8"))
	st.saved.pos = e.CursorPosition()
	st.saved.hidden = e.CursorHidden()
	st.saved.style, st.saved.blink = e.CursorStyle()
	t.emuWrite([]byte(probeRune))
	if c := e.CellAt(st.saved.pos.X, st.saved.pos.Y); c != nil && c.Content == probeRune {
		st.saved.pen, st.saved.link = c.Style, c.Link
	}

	ps.parked = st
	t.hostless.Store(true) // the next output rebuilds it
	t.mem.pool.give(t.host)
	t.host, t.emu = nil, nil
	t.fp.fs = fastState{}
	t.line = nil
	t.rb = rowBuilder{}
	return true
}

// unparkLocked rebuilds the emulator of a released terminal; t.mu is held.
func (ps *parking) unparkLocked() {
	t := ps.t
	st := ps.parked
	if st == nil {
		return
	}
	ps.parked = nil
	t.host = t.hostLocked()
	t.emu = t.host.e
	t.quiet = true
	e := t.emu
	seq := ps.rebuildSequence(st)
	if len(st.edge) > 0 {
		// Rows first, then the edge cells, then the rest (the cursor is
		// set after the rows).
		k := strings.Index(seq, rowsEnd)
		t.emuWrite([]byte(seq[:k]))
		for y, c := range st.edge {
			e.SetCell(t.cols-2, y, &c)
		}
		seq = seq[k:]
	}
	t.emuWrite([]byte(seq))
	t.quiet = false
	e.SetForegroundColor(st.fg)
	e.SetBackgroundColor(st.bg)
	e.SetCursorColor(st.cc)
	for i, c := range st.palette {
		e.SetIndexedColor(i, c)
	}
	t.dropScrollback()
	if ps.parker != nil {
		ps.parker.rebuilds.Add(1)
	}
	ps.touchLocked()
}

// rebuildSequence is what takes a new emulator of the terminal's size to
// the parked state. Order matters: rows are drawn with the default modes;
// the saved cursor is set up and saved; the margins (which home the
// cursor) come before the cursor; the pending wrap is set by printing the
// last cell of the cursor's row again; modes that change how text prints
// (insert, autowrap) and the character sets come last.
func (ps *parking) rebuildSequence(st *parkedState) string {
	t := ps.t
	var b strings.Builder
	cup := func(p uv.Position) {
		b.WriteString("\x1b[" + strconv.Itoa(p.Y+1) + ";" + strconv.Itoa(p.X+1) + "H")
	}
	for y := range st.rows {
		r := &st.rows[y]
		if r.Text == "" && len(r.Runs) == 0 {
			continue
		}
		cup(uv.Pos(0, y))
		b.WriteString(r.Styled(t.cols))
	}
	b.WriteString(rowsEnd)
	if !st.saved.equal(&defaultCursor) {
		cup(st.saved.pos)
		writeCursor(&b, &st.saved)
		b.WriteString("\x1b7")
		b.WriteString(ansi.ResetStyle)
		if !st.saved.link.IsZero() {
			b.WriteString(ansi.ResetHyperlink())
		}
	}
	if rg := t.region[0]; rg != [2]int{} && !t.regionFull[0] {
		b.WriteString("\x1b[" + strconv.Itoa(rg[0]) + ";" + strconv.Itoa(rg[1]) + "r")
	}
	if st.wrap {
		cup(uv.Pos(t.cols-1, st.cur.pos.Y))
		c := st.wrapCell
		if !c.Style.IsZero() {
			b.WriteString(c.Style.String())
		}
		if !c.Link.IsZero() {
			b.WriteString(ansi.SetHyperlink(c.Link.URL, c.Link.Params))
		}
		if c.Width == 1 && cleanContent(c.Content) {
			b.WriteString(c.Content)
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(ansi.ResetStyle)
		if !c.Link.IsZero() {
			b.WriteString(ansi.ResetHyperlink())
		}
	} else {
		cup(st.cur.pos)
	}
	writeCursor(&b, &st.cur)
	for i, f := range t.tr.sets {
		if f != 0 && f != 'B' {
			b.WriteString("\x1b" + string("()*+"[i]) + string(f))
		}
	}
	switch t.tr.gl {
	case 2:
		b.WriteString("\x1bn")
	case 3:
		b.WriteString("\x1bo")
	}
	modes := make([]ansi.Mode, 0, len(ps.allModes))
	for m := range ps.allModes {
		if !unreplayedModes[m] {
			modes = append(modes, m)
		}
	}
	slices.SortFunc(modes, func(a, c ansi.Mode) int { return modeKey(a) - modeKey(c) })
	for _, m := range modes {
		if ps.allModes[m] {
			b.WriteString(ansi.SetMode(m))
		} else {
			b.WriteString(ansi.ResetMode(m))
		}
	}
	return b.String()
}

// rowsEnd ends the rows in a rebuild sequence (a no-op: SGR 0).
const rowsEnd = "\x1b[0m"

// modeKey orders modes: ANSI modes first, then DEC private modes.
func modeKey(m ansi.Mode) int {
	if _, ok := m.(ansi.DECMode); ok {
		return 1<<20 + m.Mode()
	}
	return m.Mode()
}

// writeCursor writes what sets the pen, hyperlink, shape and visibility
// of c (the position is set by the caller).
func writeCursor(b *strings.Builder, c *cursorSnap) {
	b.WriteString(ansi.ResetStyle)
	if !c.pen.IsZero() {
		b.WriteString(c.pen.String())
	}
	if !c.link.IsZero() {
		b.WriteString(ansi.SetHyperlink(c.link.URL, c.link.Params))
	}
	if c.style != defaultCursor.style || c.blink != defaultCursor.blink {
		n := int(c.style)*2 + 1
		if !c.blink {
			n++
		}
		b.WriteString("\x1b[" + strconv.Itoa(n) + " q")
	}
	if c.hidden {
		b.WriteString("\x1b[?25l")
	} else {
		b.WriteString("\x1b[?25h")
	}
}

func sameColor(a, b color.Color) bool {
	if a == nil || b == nil {
		return a == b
	}
	r1, g1, b1, a1 := a.RGBA()
	r2, g2, b2, a2 := b.RGBA()
	return r1 == r2 && g1 == g2 && b1 == b2 && a1 == a2
}

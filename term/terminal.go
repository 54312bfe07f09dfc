package term

import (
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"

	"github.com/signaltty/signaltty/term/rowstore"
)

const (
	// vtScrollback is the emulator's own scrollback limit. The emulator's
	// scrollback is emptied into the row store after every emulator Write
	// (at most maxPiece bytes), so it never comes close to this and no line
	// is ever dropped or shifted by the library (its Push shifts every line
	// header once full).
	vtScrollback = 1 << 20
	// maxPiece bounds one emulator Write between two drains.
	maxPiece = 16 << 10
	// maxReplyBacklog bounds query replies waiting for the replies writer;
	// beyond it replies are dropped rather than blocking emulation.
	maxReplyBacklog = 64 << 10
	// maxDim bounds cols and rows (style runs count cells in uint16).
	maxDim = 1<<16 - 1
	// maxRepeat caps the count of REP (CSI n b).
	maxRepeat = 1 << 16
	// maxRun bounds a run the fast path simulates at once.
	maxRun = 256 << 10
)

// Terminal is a terminal emulator (github.com/charmbracelet/x/vt) plus its
// numbered rows: rows that scroll off the top of the primary screen move
// into the history, a compact row store (text plus style runs) that takes
// the place of the emulator's scrollback, and the screen rows follow them;
// docs/rows.md describes the numbering.
//
// The emulator's own scrollback is emptied into the row store after every
// emulator write (it would otherwise shift all its lines per pushed line),
// and long runs of line output skip the emulator's per-line scrolling
// altogether (fastpath.go). Some library defects are worked around here:
// titles and cwd URLs containing ';' (own OSC handlers), replies blocking
// Write (a reply pump), bottom rows lost when the height shrinks (scrolled
// into history first), margins beyond the screen that make it panic and
// counts that make it loop (clamped), clusters cut at the end of each
// write (the last one held back).
//
// Write must be called from one goroutine at a time; every other method may
// be called concurrently with it and with each other.
type Terminal struct {
	mu  sync.Mutex
	emu *vt.Emulator // nil once released
	// hostless is set while the terminal has no emulator that its next
	// output would make or rebuild (lazy or parked): Write then reserves
	// one before taking mu, so that a wait for the pool never holds the
	// terminal (its captures, resizes and attaches) up. spare is that
	// host until it is attached or handed back; both under mu but
	// hostless is read without it.
	hostless atomic.Bool
	spare    *vtHost
	cols     int
	rows     int
	onEvent  func(Event)

	epoch  int64
	pushed int64 // rows moved to history in this epoch (H)
	hist   rowstore.Ring
	rb     rowBuilder
	line   uv.Line // scratch copy of a screen row

	// budget, when set, bounds this row store together with others'
	// (rowbudget.go); budgetLeft once Close took it out.
	budget     *RowBudget
	budgetLeft bool
	charged    int          // hist.Bytes() as last charged to budget
	member     budgetMember // t in budget

	// Emulator state the plain-text fast path depends on, observed through
	// the emulator's callbacks and handlers (so in emulation order).
	autowrap, lnm, lrmm bool
	regionFull          [2]bool // top/bottom margins are the whole screen; [1] = alternate
	hmargins            [2]bool // left/right margins may be set

	tr tracker  // parser state and charset/tab state, in input order
	fp fastPath // the plain-text fast path (fastpath.go)

	// held is the last grapheme cluster of the previous Write (with a REP
	// that printed its start, or an incomplete character), kept back so a
	// combining mark or modifier in the next Write still joins it (the
	// library ends every cluster at the end of a Write). Anything that looks
	// at the screen feeds it first.
	held []byte
	// fix is a corrected sequence to feed right after one our handler
	// swallowed (see registerHandlers).
	fix    string
	panics int // emulator panics recovered

	ww wideWrap    // wide characters at the right margin (widewrap.go)
	u8 utf8Decoder // makes the output well-formed UTF-8 for the parser (utf8.go)

	host      *vtHost        // the emulator's host (pool.go); nil with emu
	frozen    []rowstore.Row // the screen, once released
	frozenAlt bool

	parking parking // idle release (park.go)
	mem     *Memory // emulator pool and idle watch (memory.go)
	midChar bool    // the emulator may hold part of a character or cluster (flushHeld)
	quiet   bool    // rebuilding: no events
	// The scroll margins (1-based top, bottom; zero: the whole screen) per
	// screen, which a rebuild sets again.
	region [2][2]int
	kitty  map[string]*kittyNote // OSC 99 notifications being assembled (notify.go)

	// lazy is set until the first output: the emulator (two screens of
	// cells, a 4 MiB parser buffer, two goroutines) is made only then, so a
	// pane that printed nothing costs little. Until then the screen is
	// blank, as a new emulator's.
	lazy    bool
	replies io.Writer

	// What an attached client needs besides the cells (render.go): the
	// last title the program set and the input modes it asked for.
	title string
	modes map[ansi.DECMode]bool
	// watchers are told (without blocking) that the screen may have
	// changed: after each Write, Resize and Release (Watch).
	watchers map[chan struct{}]struct{}
	// changes counts the times watchers were told (Changes).
	changes atomic.Uint64
	// wrote is when Write last got output (LastOutput); zero before any.
	wrote time.Time
}

// NewTerminal makes a terminal of cfg.Cols×cfg.Rows cells (its emulator is
// made on the first output; until then the screen is blank) holding
// cfg.History as rows 0, 1, … of epoch cfg.Epoch; see Config. Release or
// Close ends its goroutines.
func NewTerminal(cfg Config) *Terminal {
	cols, rows := clampDim(cfg.Cols), clampDim(cfg.Rows)
	historyRows, historyBytes := cfg.HistoryRows, cfg.HistoryBytes
	if historyRows <= 0 {
		historyRows = DefaultHistoryRows
	}
	if historyBytes <= 0 {
		historyBytes = DefaultHistoryBytes
	}
	t := &Terminal{
		cols:       cols,
		rows:       rows,
		onEvent:    cfg.OnEvent,
		epoch:      cfg.Epoch,
		hist:       rowstore.NewRing(historyRows, historyBytes),
		autowrap:   true,
		regionFull: [2]bool{true, true},
		lazy:       true,
		replies:    cfg.Replies,
		budget:     cfg.Budget,
		mem:        cfg.Memory.orShared(),
	}
	t.link()
	t.fp.on = true
	t.parking.parker = cfg.Parker
	t.hostless.Store(true) // lazy
	t.tr.init()
	t.preloadLocked(cfg.History)
	t.chargeLocked() // joins the budget, if any
	return t
}

// link points the terminal's parts (wide-character wrap, fast path,
// parking, pool membership) back at it; both constructors call it.
func (t *Terminal) link() {
	t.ww.t = t
	t.fp.t = t
	t.parking.t = t
	t.member.t = t
}

// startEmulator gives the terminal an emulator (a pooled one, pool.go) on
// the first output; t.mu is held.
func (t *Terminal) startEmulator() {
	t.host = t.hostLocked()
	t.emu, t.lazy = t.host.e, false
}

// hostLocked is the spare host Write reserved, else one from the pool,
// attached to t at its size; t.mu is held.
func (t *Terminal) hostLocked() *vtHost {
	t.hostless.Store(false)
	if h := t.spare; h != nil {
		t.spare = nil
		h.attach(t, t.cols, t.rows)
		return h
	}
	return t.mem.pool.take(t, t.cols, t.rows)
}

func clampDim(n int) int { return min(max(n, 1), maxDim) }

func (t *Terminal) emit(ev Event) {
	if t.onEvent != nil && !t.quiet {
		t.onEvent(ev)
	}
}

func (t *Terminal) modeChanged(m ansi.Mode, on bool) {
	t.parking.noteMode(m, on)
	if d, ok := m.(ansi.DECMode); ok && clientMode[d] {
		if t.modes == nil {
			t.modes = map[ansi.DECMode]bool{}
		}
		t.modes[d] = on
	}
	switch m {
	case ansi.ModeAutoWrap:
		t.autowrap = on
	case ansi.ModeLineFeedNewLine:
		t.lnm = on
	case ansi.ModeLeftRightMargin:
		t.lrmm = on
	}
}

// screenIndex is 1 on the alternate screen, else 0.
func (t *Terminal) screenIndex() int {
	if t.emu.IsAltScreen() {
		return 1
	}
	return 0
}

// registerHandlers installs our handlers. Handlers registered later run
// first; returning false lets the emulator's own handler run too.
// Each acts on the terminal h serves when it runs.
func registerHandlers(e *vt.Emulator, h *vtHost) {
	e.RegisterOscHandler(0, func(d []byte) bool { return h.t.oscTitle(d) })
	e.RegisterOscHandler(1, func([]byte) bool { return true }) // icon name: ignored
	e.RegisterOscHandler(2, func(d []byte) bool { return h.t.oscTitle(d) })
	e.RegisterOscHandler(7, func(d []byte) bool { return h.t.oscCwd(d) })
	e.RegisterOscHandler(133, func(d []byte) bool { return h.t.oscSemantic(d) })
	e.RegisterOscHandler(7501, func(d []byte) bool { return h.t.oscProgramStatus(d) })
	registerNotifyHandlers(e, h)

	// ED 3 clears the history: numbering restarts in a new epoch. Like
	// xterm, and unlike the library, the screen is left alone.
	e.RegisterCsiHandler('J', func(params ansi.Params) bool {
		t := h.t
		if n, _, _ := params.Param(0, 0); n == 3 {
			t.clearHistory()
			return true
		}
		return false
	})
	// DECSTBM: track whether the scroll region is the whole screen (the same
	// arithmetic as the library's handler, which runs after this one). The
	// library accepts a bottom margin below the screen and then panics (index
	// out of range) on the next scroll: such a request is swallowed and fed
	// again clamped, as xterm clamps it.
	e.RegisterCsiHandler('r', func(params ansi.Params) bool {
		t := h.t
		height := e.Height()
		top, _, _ := params.Param(0, 1)
		top = max(top, 1)
		bottom, _, _ := params.Param(1, height)
		if bottom < 1 {
			bottom = height
		}
		if top >= bottom {
			return false // ignored by the library too
		}
		swallow := false
		if bottom > height {
			bottom, swallow = height, true
			if top >= bottom {
				return true
			}
			t.fix = "\x1b[" + strconv.Itoa(top) + ";" + strconv.Itoa(bottom) + "r"
		}
		i := t.screenIndex()
		t.regionFull[i] = top == 1 && bottom == height
		t.region[i] = [2]int{top, bottom}
		return swallow
	})
	// DECSLRM (CSI s while DECLRMM is set) may set left/right margins; a
	// right margin beyond the screen is clamped like the bottom one.
	e.RegisterCsiHandler('s', func(params ansi.Params) bool {
		t := h.t
		if !t.lrmm {
			return false
		}
		width := e.Width()
		left, _, _ := params.Param(0, 1)
		left = max(left, 1)
		right, _, _ := params.Param(1, width)
		if right < 1 {
			right = width
		}
		if left >= right {
			return false
		}
		t.hmargins[t.screenIndex()] = true
		if right > width {
			if left < width {
				t.fix = "\x1b[" + strconv.Itoa(left) + ";" + strconv.Itoa(width) + "s"
			}
			return true
		}
		return false
	})
	// Counts that make the library loop once per unit (ECH, CHT, CBT fill or
	// step cell by cell; REP prints n times): clamp them. For ECH, CHT and
	// CBT the width gives the same result; REP is capped at maxRepeat.
	for _, c := range []struct {
		cmd   int
		limit func() int
	}{
		{'X', e.Width}, {'I', e.Width}, {'Z', e.Width},
		{'b', func() int { return maxRepeat }},
	} {
		e.RegisterCsiHandler(c.cmd, func(params ansi.Params) bool {
			n, _, _ := params.Param(0, 1)
			if limit := c.limit(); n > limit {
				h.t.fix = "\x1b[" + strconv.Itoa(limit) + string(rune(c.cmd))
				return true
			}
			return false
		})
	}
	// RIS resets both screens' margins (modes come back through callbacks).
	e.RegisterEscHandler('c', func() bool {
		t := h.t
		t.regionFull = [2]bool{true, true}
		t.region = [2][2]int{}
		t.hmargins = [2]bool{}
		return false
	})
}

// clearHistory empties the row store and the emulator's scrollback and
// starts a new numbering epoch.
func (t *Terminal) clearHistory() {
	sb := t.emu.Scrollback()
	clear(sb.Lines()) // the library's Clear keeps the lines reachable
	sb.Clear()
	t.hist.Reset()
	t.chargeLocked()
	t.pushed = 0
	t.epoch++
}

// Resize changes the screen size to cols×rows cells (each clamped to
// 1..65535); it does nothing after Release. The library drops the bottom
// rows when the height shrinks; on the primary screen the content is
// scrolled up first (into the history) so the cursor row survives. Width
// changes do not reflow.
func (t *Terminal) Resize(cols, rows int) {
	cols, rows = clampDim(cols), clampDim(rows)
	t.mu.Lock()
	defer t.mu.Unlock()
	if cols != t.cols || rows != t.rows {
		t.parking.unparkLocked()
	}
	e := t.emu
	if e == nil || (cols == t.cols && rows == t.rows) {
		if t.lazy {
			t.cols, t.rows = cols, rows // the emulator will be made this size
			t.notifyLocked()
		}
		return
	}
	t.flushHeld()
	if rows < t.rows && !e.IsAltScreen() && t.tr.ground() && !t.hmargins[0] {
		pos := e.CursorPosition()
		if k := pos.Y - rows + 1; k > 0 {
			su := "\x1b[" + strconv.Itoa(k) + "S"
			if t.regionFull[0] {
				// SU scrolls the whole screen and puts the cursor back on
				// the same row; the resize then clamps it onto the row its
				// content moved to, keeping any pending wrap.
				t.inject(su)
			} else {
				t.inject("\x1b[r" + su + "\x1b[" + strconv.Itoa(pos.Y+1) + ";" + strconv.Itoa(pos.X+1) + "H")
			}
			t.drain()
		}
	}
	e.Resize(cols, rows)
	t.drain()
	t.cols, t.rows = cols, rows
	t.regionFull = [2]bool{true, true}
	t.region = [2][2]int{}
	t.hmargins = [2]bool{}
	t.tr.tabsDefault = true
	t.notifyLocked()
	t.parking.touchLocked()
}

// Size returns the screen size in cells.
func (t *Terminal) Size() (cols, rows int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cols, t.rows
}

// AltScreen reports whether the alternate screen is shown.
func (t *Terminal) AltScreen() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.emu == nil {
		return t.frozenAlt
	}
	return t.emu.IsAltScreen()
}

// Epoch returns the current numbering epoch; it changes when the output
// clears the history (ED 3) and numbering restarts (docs/rows.md).
func (t *Terminal) Epoch() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.epoch
}

// screenRow converts screen row y (0 = top). withRuns=false skips style runs.
func (t *Terminal) screenRow(y int, withRuns bool) rowstore.Row {
	if t.emu == nil {
		if t.lazy {
			return rowstore.Row{} // no output yet
		}
		return t.frozen[y]
	}
	t.line = t.line[:0]
	for x := 0; x < t.cols; x++ {
		c := t.emu.CellAt(x, y)
		if c == nil {
			t.line = append(t.line, uv.EmptyCell)
		} else {
			t.line = append(t.line, *c)
		}
	}
	r := t.rb.build(t.line, t.cols, withRuns)
	clear(t.line) // drop references to cell contents
	return r
}

// Release turns the screen into stored rows (still capturable, numbering
// unchanged) and drops the emulator; later Write and Resize do nothing. Call
// it once the program exited.
func (t *Terminal) Release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.releaseLocked()
	t.notifyLocked()
}

func (t *Terminal) releaseLocked() {
	t.parking.unparkLocked()
	e := t.emu
	if e == nil {
		if t.lazy { // never printed anything: a blank screen
			t.lazy, t.frozen = false, make([]rowstore.Row, t.rows)
		}
		t.hostless.Store(false) // released: output is dropped, nothing to make
		return
	}
	t.flushHeld()
	t.drain()
	frozen := make([]rowstore.Row, t.rows)
	for y := range frozen {
		frozen[y] = t.screenRow(y, true)
	}
	t.frozen, t.frozenAlt = frozen, e.IsAltScreen()
	t.mem.pool.give(t.host)
	t.host = nil
	t.emu = nil
	t.line = nil
	t.fp.fs = fastState{}
}

// Close stops the terminal's goroutines and frees the emulator (like
// Release); captured rows stay readable.
func (t *Terminal) Close() {
	t.Release()
	t.mu.Lock()
	t.leaveBudgetLocked()
	t.mu.Unlock()
}

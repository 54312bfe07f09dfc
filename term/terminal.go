package term

import (
	"bytes"
	"io"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
	"github.com/charmbracelet/x/vt"
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
	hist   rowRing
	rb     rowBuilder
	line   uv.Line // scratch copy of a screen row

	// budget, when set, bounds this row store together with others'
	// (rowbudget.go); budgetLeft once Close took it out.
	budget     *RowBudget
	budgetLeft bool
	charged    int // hist.bytes as last charged to budget

	// Emulator state the plain-text fast path depends on, observed through
	// the emulator's callbacks and handlers (so in emulation order).
	autowrap, lnm, lrmm bool
	regionFull          [2]bool // top/bottom margins are the whole screen; [1] = alternate
	hmargins            [2]bool // left/right margins may be set

	tr   tracker // parser state and charset/tab state, in input order
	fast bool    // plain-text fast path enabled
	fs   fastState

	// held is the last grapheme cluster of the previous Write (with a REP
	// that printed its start, or an incomplete character), kept back so a
	// combining mark or modifier in the next Write still joins it (the
	// library ends every cluster at the end of a Write). Anything that looks
	// at the screen feeds it first.
	held []byte
	// fix is a corrected sequence to feed right after one our handler
	// swallowed (see registerHandlers).
	fix         string
	panics      int // emulator panics recovered
	fastRuns    int // runs the fast path took (for tests)
	fastPartial int // of them, short runs (fewer line feeds than rows)
	directRows  int // rows the fast path stored from the input (fastlines.go; for tests)

	ww wideWrap    // wide characters at the right margin (widewrap.go)
	u8 utf8Decoder // makes the output well-formed UTF-8 for the parser (utf8.go)

	host      *vtHost     // the emulator's host (pool.go); nil with emu
	frozen    []storedRow // the screen, once released
	frozenAlt bool

	// Idle release (park.go): parker releases the emulator of a terminal
	// idle since lastOut; parked is what rebuilds it.
	parker  *Parker
	mem     *Memory // emulator pool and idle watch (memory.go)
	parked  *parkedState
	lastOut time.Time
	queued  bool // in parker's queue
	midChar bool // the emulator may hold part of a character or cluster (flushHeld)
	quiet   bool // rebuilding: no events
	// What an emulator holds that a rebuild sets again: every mode as last
	// set, and the scroll margins (1-based top, bottom; zero: the whole
	// screen) per screen.
	allModes map[ansi.Mode]bool
	region   [2][2]int
	kitty    map[string]*kittyNote // OSC 99 notifications being assembled (notify.go)

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
		hist:       newRowRing(historyRows, historyBytes),
		autowrap:   true,
		regionFull: [2]bool{true, true},
		fast:       true,
		lazy:       true,
		replies:    cfg.Replies,
		budget:     cfg.Budget,
		parker:     cfg.Parker,
		mem:        cfg.Memory.orShared(),
	}
	t.hostless.Store(true) // lazy
	t.tr.init()
	t.preloadLocked(cfg.History)
	t.chargeLocked() // joins the budget, if any
	return t
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
	t.noteMode(m, on)
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
	t.hist.reset()
	t.chargeLocked()
	t.pushed = 0
	t.epoch++
}

// Write feeds PTY output to the terminal: any bytes, cut anywhere (a UTF-8
// character, escape sequence or grapheme cluster may continue in the next
// Write). It does nothing after Release. Call it from one goroutine only.
func (t *Terminal) Write(p []byte) {
	var spare *vtHost
	if len(p) > 0 {
		t.mem.idle.noteOutput() // idlefree.go
		if t.hostless.Load() {
			spare = t.mem.pool.reserve(true)
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if spare != nil {
		t.spare = spare
		defer func() { // unused: something else gave it one meanwhile, or it was released
			if t.spare != nil {
				t.mem.pool.unreserve(t.spare)
				t.spare = nil
			}
		}()
	}
	if len(p) > 0 {
		t.unparkLocked()
		t.wrote = time.Now()
	}
	if t.emu == nil {
		if !t.lazy || len(p) == 0 {
			return
		}
		t.startEmulator()
	}
	t.process(t.u8.decode(p))
	t.settleLocked()
	t.notifyLocked()
	t.touchLocked()
}

// simple marks the bytes the fast path understands besides UTF-8, SGR and
// EL sequences: printable ASCII, CR, LF, BS and HT. In the ground state each
// of them keeps the parser there.
var simple = func() (s [256]bool) {
	for b := 0x20; b < 0x7f; b++ {
		s[b] = true
	}
	s['\r'], s['\n'], s['\b'], s['\t'] = true, true, true, true
	return s
}()

// scan is where process is in the bytes it feeds (indexes into them).
type scan struct {
	pending          int // p[pending:i] still has to go to the emulator
	text             int // p[text:i] is printable text in the ground state
	runeStart        int // where the UTF-8 sequence being collected started
	seqStart         int // where the parser last left the ground state
	repStart, repEnd int // the last REP sequence; -1 before one
}

// process feeds p to the emulator, taking runs of plain text with many line
// feeds through the fast path, and holds back the last grapheme cluster.
func (t *Terminal) process(p []byte) {
	in := len(p)
	if len(t.held) > 0 {
		// The held bytes went through the tracker already; going through it
		// again (complete characters, from the ground state) changes nothing.
		p = append(t.held, p...)
		t.held = nil
	}
	t.wwBegin(p, len(p)-in)
	sc := scan{repStart: -1, repEnd: -1}
	for i := 0; i < len(p); {
		if !simple[p[i]] || !t.tr.ground() {
			i = t.parseByte(p, i, &sc)
		} else {
			i = t.lineRun(p, i, &sc)
		}
	}
	end := t.holdBack(p, &sc)
	if end < len(p) && t.tr.p.State() == parser.Utf8State {
		// The held bytes take the tracker from the ground state to here
		// again when they come back.
		t.tr.p.Reset()
	}
	t.feed(p[sc.pending:end])
	t.midChar = false // the held prefix of a character was completed in p
	if end < len(p) {
		t.held = append([]byte(nil), p[end:]...)
	}
	t.wwEnd(in)
}

// parseByte takes p[i], a byte outside a run of line output, through the
// tracker and returns the index after it. It tells the wide-character fix
// what the byte ends, remembers where a REP is, and at the end of a
// sequence our handlers may rewrite feeds the emulator up to there, then
// the rewrite.
func (t *Terminal) parseByte(p []byte, i int, sc *scan) int {
	was := t.tr.p.State()
	act := t.tr.p.Advance(p[i])
	i++
	now := t.tr.p.State()
	if was == parser.GroundState && now != parser.GroundState {
		sc.seqStart = i - 1
	}
	if now == parser.Utf8State {
		if was != parser.Utf8State {
			sc.runeStart = i - 1
		}
	} else if act != parser.PrintAction {
		sc.text = i
		t.wwCut(i)
	} else if was == parser.Utf8State {
		t.wwRune(sc.runeStart, i, sc.text)
	} else {
		t.wwCut(i)
	}
	if t.tr.rep {
		t.tr.rep = false
		sc.repStart, sc.repEnd = sc.seqStart, i
	}
	if t.tr.split {
		t.tr.split = false
		t.feed(p[sc.pending:i])
		sc.pending = i
		if t.fix != "" {
			fix := t.fix
			t.fix = ""
			t.inject(fix)
		}
	}
	return i
}

// lineRun takes the run of line output that starts at p[i] in the ground
// state: it scans it, sends it through the fast path when the run allows
// it (the emulator is fed up to the run first), and returns where the run
// ends.
func (t *Terminal) lineRun(p []byte, i int, sc *scan) int {
	j, printed := t.scanRun(p, i, sc)
	if j-i > maxRun {
		// Bound what one simulation holds (pens are counted in uint16);
		// cut after a line feed, where no cluster spans the cut.
		if k := bytes.LastIndexByte(p[i:i+maxRun], '\n'); k >= 0 {
			j = i + k + 1
		}
	}
	if run := p[i:j]; t.fastRunnable(run) {
		t.feed(p[sc.pending:i])
		sc.pending = i + t.fastRun(run)
	}
	if printed {
		t.tr.gsingle = 0
	}
	return j
}

// scanRun returns where the run of line output at p[i] ends and whether it
// prints anything. A run is simple bytes, well-formed UTF-8, SGR and EL
// sequences, each of which starts and ends in the ground state, changing
// nothing the tracker follows but the single shift. Its controls and
// characters are noted for the wide-character fix.
func (t *Terminal) scanRun(p []byte, i int, sc *scan) (int, bool) {
	j, printed := i, false
	for j < len(p) {
		c := p[j]
		if simple[c] {
			if c < 0x20 {
				sc.text = j + 1
				if c != '\n' { // a line feed moves no column
					t.wwCtl(c, j)
				}
			} else {
				printed = true
			}
			j++
		} else if n := runToken(p[j:]); n > 0 {
			j += n
			sc.text = j
		} else if n := runRune(p[j:]); n > 0 {
			t.wwRune(j, j+n, sc.text)
			j += n
			printed = true
		} else {
			break
		}
	}
	return j, printed
}

// fastRunnable reports whether run may go through the fast path: more than
// 8 bytes with more than two line feeds, ASCII printing as itself, and tab
// stops at their defaults unless the run has no tab.
func (t *Terminal) fastRunnable(run []byte) bool {
	return t.fast && len(run) > 8 && t.tr.charsetOK() &&
		(t.tr.tabsDefault || bytes.IndexByte(run, '\t') < 0) &&
		bytes.Count(run, []byte{'\n'}) > 2
}

// holdBack returns where the bytes process keeps for the next Write start
// (len(p): none): the last cluster, and a character still incomplete. When
// the text follows a REP with no ASCII character in between, the cluster
// started with the character REP printed: the REP is held too.
func (t *Terminal) holdBack(p []byte, sc *scan) int {
	end := len(p)
	if st := t.tr.p.State(); st == parser.GroundState || st == parser.Utf8State {
		stop := len(p)
		if st == parser.Utf8State {
			stop = sc.runeStart
		}
		end = stop
		if sc.text < stop {
			end = sc.text + lastClusterStart(p[sc.text:stop])
		}
		if sc.text == sc.repEnd && !hasASCII(p[sc.text:stop]) {
			end = sc.repStart
		}
	}
	if end < sc.pending {
		end = len(p)
	}
	return end
}

// lastClusterStart returns where the last grapheme cluster of b (printable
// text in the ground state, whole characters) starts, as the library
// segments it: its unfinished cluster buffer starts at the last ASCII
// character (an ASCII character never extends the cluster before it), and
// clusters are found from there.
func lastClusterStart(b []byte) int {
	start := 0
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < utf8.RuneSelf {
			start = i
			break
		}
	}
	last := start
	for rest := b[start:]; len(rest) > 0; {
		cl, _ := ansi.FirstGraphemeCluster(rest, ansi.GraphemeWidth)
		if len(cl) == 0 {
			break
		}
		last = len(b) - len(rest)
		rest = rest[len(cl):]
	}
	return last
}

func hasASCII(b []byte) bool {
	for _, c := range b {
		if c < utf8.RuneSelf {
			return true
		}
	}
	return false
}

// flushHeld feeds the held cluster; called before the screen is looked at.
func (t *Terminal) flushHeld() {
	if len(t.held) > 0 && t.emu != nil {
		h := t.held
		t.held = nil
		t.wwHeld(h)
		t.feed(h)
		t.wwEnd(0)
		// An incomplete character may now wait in the emulator's parser,
		// or a cluster it may still extend in its segmenter: park.go
		// cannot carry either over to another emulator.
		t.midChar = !utf8.FullRune(h[lastRuneStart(h):]) || !isASCII(string(h))
	}
}

// lastRuneStart is where the last UTF-8 sequence of b starts.
func lastRuneStart(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			return i
		}
	}
	return max(len(b)-1, 0)
}

// feed writes b to the emulator in pieces of about maxPiece bytes (cut after
// a line feed), moving the emulator's scrollback into the row store after
// each piece.
func (t *Terminal) feed(b []byte) {
	for len(b) > 0 {
		n := len(b)
		if n > maxPiece {
			if k := bytes.LastIndexByte(b[:maxPiece], '\n'); k >= 0 {
				n = k + 1
			} else if k := bytes.IndexByte(b[maxPiece:], '\n'); k >= 0 {
				n = maxPiece + k + 1
			}
		}
		t.wwWrite(b[:n])
		t.drain()
		b = b[n:]
	}
}

// inject writes bytes of our own to the emulator (they start and end in the
// ground state and do not go through the tracker).
func (t *Terminal) inject(s string) {
	t.emuWrite([]byte(s))
}

// emuWrite writes to the emulator, surviving a panic in the library (the
// rest of b is lost; CAN then ends any sequence the parser was in).
func (t *Terminal) emuWrite(b []byte) {
	defer func() {
		if r := recover(); r != nil {
			t.panics++
			func() {
				defer func() { _ = recover() }()
				_, _ = t.emu.Write([]byte{ansi.CAN})
			}()
		}
	}()
	_, _ = t.emu.Write(b)
}

// drain moves the emulator's scrollback into the row store.
func (t *Terminal) drain() {
	sb := t.emu.Scrollback()
	lines := sb.Lines()
	if len(lines) == 0 {
		return
	}
	for i := range lines {
		t.pushRow(t.rb.buildScratch(lines[i], t.cols))
	}
	clear(lines) // the library's Clear keeps the lines reachable
	sb.Clear()
	t.settleLocked()
}

// pushRow moves r into the history. Rows pushed outside drain (the fast
// path's) are charged to the budget exactly at the end of Write
// (settleLocked).
func (t *Terminal) pushRow(r storedRow) {
	t.hist.push(r)
	t.chargeSoonLocked()
	t.pushed++
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
		t.unparkLocked()
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
	t.touchLocked()
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
func (t *Terminal) screenRow(y int, withRuns bool) storedRow {
	if t.emu == nil {
		if t.lazy {
			return storedRow{} // no output yet
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

// Capture returns rows; see CaptureRequest, and docs/rows.md for the numbering.
// Errors: ErrStaleEpoch, *RangeError.
func (t *Terminal) Capture(req CaptureRequest) (Capture, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.unparkLocked()
	t.flushHeld()
	if req.Epoch != nil && *req.Epoch != t.epoch {
		return Capture{}, ErrStaleEpoch
	}
	h := t.pushed
	oldest := h - int64(t.hist.n)
	end := h + int64(t.rows)
	start, stop, clamped, err := captureRange(req, oldest, end, int64(t.rows))
	if err != nil {
		return Capture{}, err
	}
	cut := false
	if fit := t.fitLocked(start, stop, h, oldest, req); fit < stop {
		if !req.Cut {
			return Capture{}, &RangeError{Oldest: oldest, End: end, Reason: "too_large", MaxBytes: req.MaxBytes, FitEnd: fit}
		}
		stop, cut = max(fit, start+1), true
	}
	c := Capture{
		Epoch:   t.epoch,
		Oldest:  oldest,
		End:     end,
		First:   start,
		Cols:    t.cols,
		Rows:    t.rows,
		Screen:  ScreenPrimary,
		Lines:   make([]string, 0, stop-start),
		Next:    stop,
		Clamped: clamped,
		Cut:     cut,
	}
	if t.altLocked() {
		c.Screen = ScreenAlternate
	}
	for r := start; r < stop; r++ {
		row := t.rowLocked(r, h, oldest, req.Escapes)
		c.Lines = append(c.Lines, row.line(t.cols, req.Trim, req.Escapes))
	}
	return c, nil
}

// rowLocked returns row r (oldest ≤ r < h+rows, h the rows pushed to
// history in this epoch), with its style runs when withRuns; t.mu is held.
func (t *Terminal) rowLocked(r, h, oldest int64, withRuns bool) storedRow {
	switch {
	case r >= h:
		return t.screenRow(int(r-h), withRuns)
	case withRuns:
		return t.hist.at(int(r - oldest))
	}
	return t.hist.textAt(int(r - oldest))
}

// captureRange resolves a request to the rows [start, stop) it selects
// (docs/rows.md, "Capture ranges"), given the kept rows [oldest, end) and
// the screen height; clamped reports that Clamp moved a bound. Errors:
// *RangeError (before_oldest, after_end, inverted).
func captureRange(req CaptureRequest, oldest, end, rows int64) (start, stop int64, clamped bool, err error) {
	switch {
	case req.Last != nil:
		start, stop = end-*req.Last, end
	case req.History && req.End != nil:
		start, stop = oldest, *req.End
	case req.History:
		start, stop = oldest, end
	case req.Start == nil && req.End == nil:
		start, stop = end-rows, end
	case req.End == nil:
		start, stop = *req.Start, end
	case req.Start == nil:
		stop = *req.End
		start = max(oldest, stop-rows)
		if stop < oldest {
			start = stop
		}
	default:
		start, stop = *req.Start, *req.End
	}
	if req.Clamp {
		if req.Start != nil && req.End != nil && start > stop {
			return 0, 0, false, &RangeError{Oldest: oldest, End: end, Reason: "inverted"}
		}
		s, e := min(max(start, oldest), end), min(max(stop, oldest), end)
		s = min(s, e)
		return s, e, s != start || e != stop, nil
	}
	switch {
	case start < oldest:
		return 0, 0, false, &RangeError{Oldest: oldest, End: end, Reason: "before_oldest"}
	case stop > end:
		return 0, 0, false, &RangeError{Oldest: oldest, End: end, Reason: "after_end"}
	case start > stop:
		return 0, 0, false, &RangeError{Oldest: oldest, End: end, Reason: "inverted"}
	}
	return start, stop, false, nil
}

func (t *Terminal) altLocked() bool {
	if t.emu == nil {
		return t.frozenAlt
	}
	return t.emu.IsAltScreen()
}

// Tail returns the terminal's last rows, as a run's output tail and a
// snapshot's saved rows use them (docs/rows.md numbers them). End is one
// past the last row, in history or on the screen, with a non-space cell
// (Oldest when there is none); Start is the smallest row ≥ Oldest such that
// rows [Start, End) are at most maxRows rows and at most maxBytes bytes of
// line text (each line padded to Cols cells, as Capture returns it, counts
// len(line) bytes). Rows are whole or left out; maxRows ≤ 0 or maxBytes ≤ 0
// gives no rows (Start = End). Lines is never nil.
//
// Everything is read under one hold of the lock, so the result is
// consistent against concurrent writes; each row is looked at once, from
// the last one up, and only the rows returned are padded.
func (t *Terminal) Tail(maxRows, maxBytes int) Tail {
	return t.tail(maxRows, maxBytes, tailPadded)
}

// tail is Tail, TailTrimmed or TailStyled, as form says (tailtrim.go,
// savedrows.go).
func (t *Terminal) tail(maxRows, maxBytes int, form tailForm) Tail {
	trim := form != tailPadded
	t.mu.Lock()
	defer t.mu.Unlock()
	t.unparkLocked()
	t.flushHeld()
	h := t.pushed
	oldest := h - int64(t.hist.n)
	cols := t.cols
	tl := Tail{Screen: ScreenPrimary, Epoch: t.epoch, Cols: cols, Rows: t.rows, Oldest: oldest, Lines: []string{}}
	if t.altLocked() {
		tl.Screen = ScreenAlternate
	}
	r := h + int64(t.rows) - 1
	var row storedRow
	for ; r >= oldest; r-- {
		if row = t.rowLocked(r, h, oldest, false); !row.blankIn(cols) {
			break
		}
	}
	tl.End, tl.Start = r+1, r+1
	if maxRows <= 0 || maxBytes <= 0 {
		return tl
	}
	lo := max(oldest, tl.End-int64(maxRows))
	tl.Lines = make([]string, 0, tl.End-lo)
	for ; r >= lo; r-- {
		if r < tl.End-1 || form == tailStyled {
			row = t.rowLocked(r, h, oldest, form == tailStyled)
		}
		var line string
		var n int
		if trim {
			line = row.line(cols, true, form == tailStyled)
			n = len(line)
		} else {
			n = row.paddedLen(cols)
		}
		if tl.Bytes+n > maxBytes {
			break
		}
		if !trim {
			line = row.padded(cols)
		}
		tl.Bytes += n
		tl.Lines = append(tl.Lines, line)
		tl.Start = r
	}
	slices.Reverse(tl.Lines)
	return tl
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
	t.unparkLocked()
	e := t.emu
	if e == nil {
		if t.lazy { // never printed anything: a blank screen
			t.lazy, t.frozen = false, make([]storedRow, t.rows)
		}
		t.hostless.Store(false) // released: output is dropped, nothing to make
		return
	}
	t.flushHeld()
	t.drain()
	frozen := make([]storedRow, t.rows)
	for y := range frozen {
		frozen[y] = t.screenRow(y, true)
	}
	t.frozen, t.frozenAlt = frozen, e.IsAltScreen()
	t.mem.pool.give(t.host)
	t.host = nil
	t.emu = nil
	t.line = nil
	t.fs = fastState{}
}

// Close stops the terminal's goroutines and frees the emulator (like
// Release); captured rows stay readable.
func (t *Terminal) Close() {
	t.Release()
	t.mu.Lock()
	t.leaveBudgetLocked()
	t.mu.Unlock()
}

// tracker follows the parser state of the byte stream (with a parser of its
// own, the same state machine the emulator uses) and the state that decides
// how plain text prints: the character sets, single shifts and tab stops.
// Some are changed by controls the emulator offers no hook for (SS2, SS3,
// HTS).
type tracker struct {
	p           *ansi.Parser
	gl          int     // locking shift (ESC n, ESC o): the set GL uses
	gsingle     int     // pending single shift (2 or 3), 0 = none
	special     [4]bool // set maps ASCII characters (UK or DEC special graphics)
	sets        [4]byte // the final byte that designated each set (0: none since the start or RIS)
	tabsDefault bool    // tab stops are every 8 columns
	split       bool    // a CSI our emulator handlers may rewrite just ended
	rep         bool    // a REP just ended (it prints, like text)
}

func (tr *tracker) init() {
	// ansi.NewParser less its 64 KiB string buffer, which would be
	// allocated only to be replaced: string payloads are of no interest here.
	tr.p = new(ansi.Parser)
	tr.p.SetParamsSize(parser.MaxParamsSize)
	tr.p.SetDataSize(64)
	tr.tabsDefault = true
	tr.p.SetHandler(ansi.Handler{
		Print:     func(rune) { tr.gsingle = 0 },
		Execute:   tr.execute,
		HandleEsc: tr.esc,
		HandleCsi: tr.csi,
	})
}

func (tr *tracker) ground() bool { return tr.p.State() == parser.GroundState }

// charsetOK reports whether ASCII prints as itself.
func (tr *tracker) charsetOK() bool { return !tr.special[tr.gl] && tr.gsingle == 0 }

// execute mirrors the library's control handlers. SO and SI are not among
// them (its registration loop for them runs over the C1 range), so they
// change nothing.
func (tr *tracker) execute(b byte) {
	switch b {
	case ansi.SS2:
		tr.gsingle = 2
	case ansi.SS3:
		tr.gsingle = 3
	case ansi.HTS:
		tr.tabsDefault = false
	}
}

func (tr *tracker) esc(cmd ansi.Cmd) {
	switch inter, final := cmd.Intermediate(), cmd.Final(); {
	case inter >= '(' && inter <= '+':
		switch final {
		case 'A', '0':
			tr.special[inter-'('] = true
			tr.sets[inter-'('] = final
		case 'B':
			tr.special[inter-'('] = false
			tr.sets[inter-'('] = final
		}
	case inter == 0 && final == 'n':
		tr.gl = 2
	case inter == 0 && final == 'o':
		tr.gl = 3
	case inter == 0 && final == 'H':
		tr.tabsDefault = false
	case inter == 0 && final == 'c':
		tr.gl, tr.gsingle, tr.special, tr.sets, tr.tabsDefault = 0, 0, [4]bool{}, [4]byte{}, true
	}
}

func (tr *tracker) csi(cmd ansi.Cmd, params ansi.Params) {
	switch int(cmd) {
	case 'r', 's', 'X', 'I', 'Z':
		tr.split = true
	case 'b':
		// Split only when our handler clamps the count: REP prints into
		// the library's unfinished cluster, which a split would end.
		if n, _, _ := params.Param(0, 1); n > maxRepeat {
			tr.split = true
		} else {
			tr.rep = true
		}
	case 'g':
		tr.tabsDefault = false
	case ansi.Command('?', 0, 'W'):
		if len(params) == 1 && params[0] == 5 {
			tr.tabsDefault = true
		}
	}
}

// replyPump moves the emulator's replies (it writes them into an unbuffered
// pipe, and its Write blocks until they are read) to the replies writer of
// the terminal the emulator serves (none while pooled: they are dropped).
// Reading and writing are separate goroutines with a bounded queue between
// them, so a stuck replies writer cannot stall emulation.
type replyPump struct {
	mu     sync.Mutex
	cond   *sync.Cond
	q      []byte
	w      io.Writer
	gen    uint64 // counts setWriter calls: a reply queued for one writer never goes to the next
	closed bool
}

func startReplyPump(e *vt.Emulator) *replyPump {
	p := &replyPump{}
	p.cond = sync.NewCond(&p.mu)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := e.Read(buf)
			if n > 0 {
				p.put(buf[:n])
			}
			if err != nil {
				p.close()
				return
			}
		}
	}()
	go func() {
		for {
			b, w, ok := p.take()
			if !ok {
				return
			}
			if w != nil {
				_, _ = w.Write(b)
			}
		}
	}()
	return p
}

// setWriter sends later replies to w (nil: dropped) and drops those queued.
func (p *replyPump) setWriter(w io.Writer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.w, p.q = w, nil
	p.gen++
}

func (p *replyPump) put(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.w == nil || len(p.q)+len(b) > maxReplyBacklog {
		return
	}
	p.q = append(p.q, b...)
	p.cond.Signal()
}

func (p *replyPump) take() ([]byte, io.Writer, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.q) == 0 && !p.closed {
		p.cond.Wait()
	}
	if p.closed {
		return nil, nil, false
	}
	b := p.q
	p.q = nil
	return b, p.w, true
}

func (p *replyPump) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	p.q = nil
	p.cond.Broadcast()
}

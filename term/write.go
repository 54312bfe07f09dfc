package term

import (
	"bytes"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
	"github.com/signaltty/signaltty/term/rowstore"
)

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
		t.parking.unparkLocked()
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
	t.parking.touchLocked()
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
	t.ww.begin(p, len(p)-in)
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
	t.ww.finish(in)
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
		t.ww.cutAt(i)
	} else if was == parser.Utf8State {
		t.ww.noteRune(sc.runeStart, i, sc.text)
	} else {
		t.ww.cutAt(i)
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
	if run := p[i:j]; t.fp.runnable(run) {
		t.feed(p[sc.pending:i])
		sc.pending = i + t.fp.run(run)
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
					t.ww.control(c, j)
				}
			} else {
				printed = true
			}
			j++
		} else if n := runToken(p[j:]); n > 0 {
			j += n
			sc.text = j
		} else if n := runRune(p[j:]); n > 0 {
			t.ww.noteRune(j, j+n, sc.text)
			j += n
			printed = true
		} else {
			break
		}
	}
	return j, printed
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

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
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
		t.ww.beginHeld(h)
		t.feed(h)
		t.ww.finish(0)
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
		t.ww.write(b[:n])
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

// dropScrollback empties the emulator's scrollback without storing it.
func (t *Terminal) dropScrollback() {
	sb := t.emu.Scrollback()
	clear(sb.Lines()) // the library's Clear keeps the lines reachable
	sb.Clear()
}

// pushRow moves r into the history. Rows pushed outside drain (the fast
// path's) are charged to the budget exactly at the end of Write
// (settleLocked).
func (t *Terminal) pushRow(r rowstore.Row) {
	t.hist.Push(r)
	t.chargeSoonLocked()
	t.pushed++
}

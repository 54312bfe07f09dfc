package term

import (
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// Wide characters at the right margin.
//
// With autowrap on, the library mishandles a wide (2-cell) character at the
// right margin (charmbracelet/x#975):
//
//	A. At the last column without a pending wrap, it writes blanks over the
//	   last column and drops the character (setting the pending wrap).
//	B. Filling exactly the last two columns, it leaves the cursor on the last
//	   column without a pending wrap, so the next character overwrites the
//	   second half.
//
// xterm (charproc.c dotext, WrapLine) instead:
//
//	A. Wraps first (an index, scrolling at the bottom margin, then the first
//	   column) and prints the character there; the last column is left as it
//	   was.
//	B. Sets the pending wrap: the next printable character wraps; anything
//	   that clears a pending wrap (CR, LF, cursor movement ...) clears it.
//	   With autowrap off, the next character overwrites the last column, as
//	   the library does.
//	A with autowrap off: nothing is written, the last column is left as it
//	was, and the cursor stays.
//
// This is done through the library's public API, by putting it into its own
// pending-wrap state, so a wrap is exactly the library's own (scrolling at
// the bottom of a scroll region, on either screen) and the pending wrap is
// kept and cleared exactly as after a narrow character in the last column:
//
//   - B: after the character is printed, a narrow probe character is written
//     (it lands in the last column and sets the pending wrap; it is not ASCII,
//     so REP still repeats the last ASCII character) and the wide cell is put
//     back with SetCell.
//   - A: the cursor is on the last column, with or without a pending wrap
//     (CursorPosition cannot tell). The probe, written first, tells: without
//     one it lands in the last column and sets it (the old cell is put back,
//     and the character, written next, wraps); with one it wraps to the first
//     column of the next line, and a BS puts the cursor back on it for the
//     character. Either way the result is the library's own wrap.
//   - A with autowrap off: the cell the library blanked is put back.
//
// The fast path simulates the same (fastpath.go, sim.print).
//
// Finding those characters must cost nothing for other text. process follows
// an upper bound of the cursor column through the bytes it scans (exact after
// CR, unknown after anything it does not follow), and only text where that
// bound comes within two columns of the margin is recorded as a range. When a
// range is fed, the walker follows it by grapheme cluster, as the library
// segments it, and splits the emulator writes only around wide clusters that
// may reach the margin, where it reads the cursor. Writes are only ever split
// at cluster boundaries, which the library would not segment differently.
//
// Not handled (the library's behaviour is kept): one-column screens (no wide
// character ever fits), a screen with left/right margins set (the library
// ignores them when wrapping; the fast path does not run there either), and
// a wide cluster right after REP (it may join the repeated character in the
// library's cluster buffer).

// wideWrap is the state of the margin fix; see above.
type wideWrap struct {
	t      *Terminal // the terminal whose emulator it corrects
	base   []byte    // the bytes being processed; nil outside process
	ranges []wwRange // text of base the walker follows when fed, in order
	next   int       // the first range not yet fed through

	// The column bound while scanning: the cursor column at base[apos] is
	// at most ax. cut is where the last thing the walker cannot follow
	// ended; a range is never extended over it.
	apos, ax, cut int

	total int64 // bytes written to the Terminal so far
	off   int64 // stream offset of base[0]

	fixes  int     // corrections made (for tests)
	fixLog []wwFix // the corrected clusters, when logFix is set
	logFix bool
}

// wwFix is a cluster the emulator was corrected for: where it is in the
// stream written to the Terminal, and its length.
type wwFix struct {
	off int64
	n   int
}

type wwRange struct {
	start, end int  // start is where the library's cluster buffer starts
	rep        bool // the text follows a REP directly
}

var (
	probeA = []byte("é") // narrow, not ASCII, one cell of its own
	probeB = []byte("è")
	bsByte = []byte{'\b'}
)

// begin starts the scan of p, whose first held bytes are the cluster held
// back from the previous Write.
func (w *wideWrap) begin(p []byte, held int) {
	t := w.t
	w.base, w.ranges, w.next = p, w.ranges[:0], 0
	w.off = w.total - int64(held)
	w.apos, w.ax, w.cut = 0, t.emu.CursorPosition().X, 0
}

// finish ends the scan of a Write of n bytes.
func (w *wideWrap) finish(n int) {
	w.total += int64(n)
	w.base, w.ranges, w.next = nil, w.ranges[:0], 0
}

// cutAt notes something at p[:i] the walker does not follow (the cursor may
// be anywhere after it).
func (w *wideWrap) cutAt(i int) {
	t := w.t
	w.apos, w.ax, w.cut = i, t.cols-1, i
}

// control notes control c at p[j] in a run of line output.
func (w *wideWrap) control(c byte, j int) {
	t := w.t
	switch c {
	case '\r':
		// CR goes to the first column, or to a left margin if one may be
		// set (then the bound is unknown).
		x := 0
		if t.hmargins[0] || t.hmargins[1] {
			x = t.cols - 1
		}
		w.apos, w.ax, w.cut = j+1, x, j+1
	case '\t':
		x := w.ax + j - w.apos
		if t.tr.tabsDefault {
			x = (x/8 + 1) * 8
		} else {
			x = t.cols
		}
		w.apos, w.ax = j+1, min(x, t.cols-1)
	}
}

// noteRune notes the character p[s:e] printed in the ground state; text is
// where the printable text it belongs to starts.
func (w *wideWrap) noteRune(s, e, text int) {
	t := w.t
	// The bound counts a cell per byte since the anchor; tighter below.
	if w.ax+s-w.apos >= t.cols-2 {
		w.near(s, e, text)
	}
}

func (w *wideWrap) near(s, e, text int) {
	t := w.t
	p := w.base
	if t.cols < 2 {
		return
	}
	if runRune(p[s:]) != e-s {
		w.cutAt(e)
		return
	}
	w.ax = min(w.ax+cellsBound(p[w.apos:s]), t.cols-1)
	w.apos = s
	if w.ax < t.cols-2 {
		return
	}
	if n := len(w.ranges); n > 0 && w.ranges[n-1].end >= w.cut {
		w.ranges[n-1].end = e
		return
	}
	// The library's cluster buffer starts at the last ASCII character
	// before the character, else where the text starts.
	start := text
	for k := s - 1; k >= text; k-- {
		if p[k] < 0x80 {
			start = k
			break
		}
	}
	// After a malformed character (which may have taken the ASCII bytes
	// after it), the buffer is known to split only where it ended.
	start = max(start, w.cut)
	rep := start == text && text > 0 && p[text-1] == 'b'
	w.ranges = append(w.ranges, wwRange{start: start, end: e, rep: rep})
}

// cellsBound bounds the cells printing b (line output with no CR or TAB)
// moves the cursor by: one per ASCII character, two per other character.
func cellsBound(b []byte) int {
	n := 0
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c >= 0x20 && c < 0x7f:
			n++
		case c >= 0xc0:
			n += 2
		case c == 0x1b:
			if k := runToken(b[i:]); k > 0 {
				i += k - 1
			}
		}
	}
	return n
}

// beginHeld sets up feeding the held cluster h.
func (w *wideWrap) beginHeld(h []byte) {
	t := w.t
	w.base, w.ranges, w.next = h, w.ranges[:0], 0
	w.off = w.total - int64(len(h))
	if t.cols < 2 || h[0] < 0x20 || h[0] == 0x7f {
		return
	}
	n := 0
	for n < len(h) && h[n] >= 0x20 && h[n] < 0x7f {
		n++
	}
	k := n
	for k < len(h) {
		m := runRune(h[k:])
		if m == 0 {
			break
		}
		k += m
	}
	if k > n {
		w.ranges = append(w.ranges, wwRange{start: 0, end: k})
	}
}

// write writes b (a piece fed to the emulator) following the ranges in it.
func (w *wideWrap) write(b []byte) {
	t := w.t
	if w.next >= len(w.ranges) || len(b) == 0 {
		t.emuWrite(b)
		return
	}
	off := cap(w.base) - cap(b)
	if off < 0 || off+len(b) > len(w.base) || &w.base[off] != &b[0] {
		t.emuWrite(b)
		return
	}
	end := off + len(b)
	pos := off // w.base[off:pos] is written
	for w.next < len(w.ranges) {
		r := w.ranges[w.next]
		if r.start >= end {
			break
		}
		if s, e := max(r.start, off), min(r.end, end); s < e {
			pos = w.walk(pos, s, e, r.rep && s == r.start)
		}
		if r.end > end {
			break
		}
		w.next++
	}
	if pos < end {
		t.emuWrite(w.base[pos:end])
	}
}

// walk follows w.base[s:e], text starting where the library's cluster
// buffer starts, with w.base[:pos] written, and returns what is written.
// rep: the first cluster may join a character REP printed.
func (w *wideWrap) walk(pos, s, e int, rep bool) int {
	t := w.t
	b := w.base
	cols := t.cols
	xb := cols - 1 // the cursor column is at most xb
	wrap := false  // the emulator is known to have a pending wrap
	for k := s; k < e; {
		c := b[k]
		if c < 0x20 || c == 0x7f {
			switch c {
			case '\r':
				xb = 0
			case '\n', '\b': // (LNM may be on, or not yet: the bound holds)
			case 0x1b:
				if n := runToken(b[k:e]); n > 0 {
					wrap = wrap && b[k+n-1] == 'm' // SGR keeps a pending wrap
					k += n
					continue
				}
				xb = cols - 1
			default:
				xb = cols - 1
			}
			wrap = false
			k++
			continue
		}
		// A segment: an ASCII character and the characters after it, or
		// characters after something else; the library prints it as the
		// clusters ansi.FirstGraphemeCluster finds.
		end, cells := k, 0
		if c < 0x80 {
			end, cells = k+1, 1
		}
		for end < e {
			n := runRune(b[end:e])
			if n == 0 {
				break
			}
			end += n
			cells += 2
		}
		switch end {
		case k:
			// Not something the walker follows (not reached: ranges hold
			// whole characters).
			xb, wrap = cols-1, false
			k++
			continue
		case k + 1:
			if c < 0x80 { // an ASCII character of its own
				xb = min(xb+1, cols-1)
				if wrap {
					xb, wrap = 1, false
				}
				k++
				continue
			}
		}
		switch {
		case rep && k == s:
			xb, wrap = cols-1, false
		case xb+cells <= cols-1:
			// No wide character in it can reach the margin.
			xb += cells
		default:
			pos, xb, wrap = w.walkSegment(pos, k, end, xb, wrap)
		}
		k = end
	}
	return pos
}

// walkSegment follows the clusters of segment w.base[s:e] from column bound
// xb (wrap: with a pending wrap known to be set), correcting wide ones at the
// margin; it returns what is written and the bound and wrap after it.
func (w *wideWrap) walkSegment(pos, s, e, xb int, wrap bool) (int, int, bool) {
	t := w.t
	b := w.base
	cols := t.cols
	for j := s; j < e; {
		var cl []byte
		var cw int
		if n := wideRun(b[j:e]); n > 0 {
			cl, cw = b[j:j+3], 2
		} else {
			cl, cw = ansi.FirstGraphemeCluster(b[j:e], ansi.GraphemeWidth)
			if len(cl) == 0 {
				return pos, cols - 1, false
			}
		}
		switch {
		case wrap && (cw < 2 || cols > 2):
			// The library wraps it to the first column itself.
			xb, wrap = cw, false
		case cw == 2 && xb >= cols-2:
			if pos < j {
				t.emuWrite(b[pos:j])
				pos = j
			}
			// The emulator is up to here: its cursor, screen and modes
			// are those the cluster meets.
			x := t.emu.CursorPosition().X
			switch {
			case t.hmargins[t.screenIndex()]:
				xb = cols - 1 // left/right margins: not handled
			case x >= cols-2:
				wrap = w.wideAtMargin(cl, x, j)
				pos = j + len(cl)
				xb = t.emu.CursorPosition().X
			default:
				xb = x + 2
			}
		default:
			xb, wrap = min(xb+cw, cols-1), false
		}
		j += len(cl)
	}
	return pos, xb, wrap
}

// wideRun returns 3 when b starts with a character that is certainly a
// cluster of its own, two cells wide: a common CJK ideograph, kana or
// Hangul syllable (none of them extends or is extended by anything else in
// grapheme segmentation) followed by another one or by nothing. Else 0.
func wideRun(b []byte) int {
	if len(b) < 3 || !wideChar(b) || (len(b) > 3 && (len(b) < 6 || !wideChar(b[3:]))) {
		return 0
	}
	return 3
}

// wideChar reports whether b starts with a well-formed three-byte character
// of the ranges wideRun trusts.
func wideChar(b []byte) bool {
	if b[0]&0xf0 != 0xe0 || b[1]&0xc0 != 0x80 || b[2]&0xc0 != 0x80 {
		return false
	}
	r := rune(b[0]&0x0f)<<12 | rune(b[1]&0x3f)<<6 | rune(b[2]&0x3f)
	switch {
	case r >= 0x4e00 && r <= 0x9fff, // CJK unified ideographs
		r >= 0x3000 && r <= 0x3029, // CJK symbols and punctuation (not the marks after)
		r >= 0x3041 && r <= 0x3096, // hiragana
		r >= 0x30a1 && r <= 0x30fa, // katakana
		r >= 0xac00 && r <= 0xd7a3, // Hangul syllables
		r >= 0xff01 && r <= 0xff60: // full-width forms
		return true
	}
	return false
}

// wideAtMargin writes wide cluster cl (at w.base[at]) with the cursor at
// column x, cols-2 or cols-1, and nothing buffered in the library. It
// reports whether it left a pending wrap set.
func (w *wideWrap) wideAtMargin(cl []byte, x, at int) bool {
	t := w.t
	e, cols := t.emu, t.cols
	y := e.CursorPosition().Y
	if x == cols-2 {
		t.emuWrite(cl)
		return t.autowrap && w.pendingWrap(cl, y, at)
	}
	// The last column: the cell there, or the wide cell covering it.
	kx := cols - 1
	last := e.CellAt(cols-1, y)
	if last == nil {
		t.emuWrite(cl)
		return false
	}
	if last.Width == 0 && last.Content == "" {
		if c := e.CellAt(cols-2, y); c != nil && c.Width == 2 {
			kx = cols - 2
		}
	}
	keep := *e.CellAt(kx, y)
	if !t.autowrap {
		// The library blanks the last column; xterm leaves it.
		t.emuWrite(cl)
		e.SetCell(kx, y, &keep)
		w.fixed(at, len(cl))
		return false
	}
	probe := probeA
	if last.Content == string(probeA) {
		probe = probeB
	}
	t.emuWrite(probe)
	if p := e.CursorPosition(); p.X == cols-1 && p.Y == y && e.CellAt(cols-1, y).Content == string(probe) {
		// No pending wrap was set (the library would have dropped cl):
		// the probe set it. Put the old cell back; cl wraps.
		e.SetCell(kx, y, &keep)
		w.fixed(at, len(cl))
	} else {
		// A pending wrap was set: the probe wrapped, as cl would have.
		t.emuWrite(bsByte)
	}
	t.emuWrite(cl)
	return cols == 2 && w.pendingWrap(cl, e.CursorPosition().Y, at)
}

// pendingWrap sets the pending wrap after wide cluster cl was printed in the
// last two columns of row y, and reports whether it did.
func (w *wideWrap) pendingWrap(cl []byte, y, at int) bool {
	t := w.t
	e, cols := t.emu, t.cols
	c := e.CellAt(cols-2, y)
	if c == nil || c.Width != 2 || c.Content != string(cl) || e.CursorPosition() != uv.Pos(cols-1, y) {
		return false
	}
	keep := *c
	t.emuWrite(probeA)
	e.SetCell(cols-2, y, &keep)
	w.fixed(at, len(cl))
	return true
}

func (w *wideWrap) fixed(at, n int) {
	w.fixes++
	if w.logFix {
		w.fixLog = append(w.fixLog, wwFix{w.off + int64(at), n})
	}
}

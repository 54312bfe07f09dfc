package term

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// ---- helpers ----

// excludeWideWrap returns data with every wide cluster the Terminal writes
// differently from the library (the two margin cases of widewrap.go)
// replaced by '#', repeatedly until there is none, so that the Terminal can
// be compared with a plain emulator on the rest. (The fast path makes the
// same corrections, as the differential tests show, without logging them.)
func excludeWideWrap(t testing.TB, data []byte, cols, rows int) []byte {
	t.Helper()
	data = wellFormed(data) // the fix offsets are into what the parser meets
	for range 10000 {
		term := NewTerminal(Config{Cols: cols, Rows: rows, HistoryRows: 1 << 20, HistoryBytes: 1 << 30})
		term.fp.on = false // the slow path logs each correction
		term.ww.logFix = true
		term.Write(data)
		term.mu.Lock()
		term.flushHeld()
		fixes := term.ww.fixLog
		term.mu.Unlock()
		term.Close()
		if len(fixes) == 0 {
			return data
		}
		slices.SortFunc(fixes, func(a, b wwFix) int { return int(a.off - b.off) })
		fixes = slices.Compact(fixes)
		out := append([]byte(nil), data...)
		for i := len(fixes) - 1; i >= 0; i-- {
			f := fixes[i]
			out = append(out[:f.off:f.off], append([]byte{'#'}, out[int(f.off)+f.n:]...)...)
		}
		data = out
	}
	t.Fatal("wide clusters keep being corrected")
	return nil
}

// wellFormed is data as the Terminal's parser meets it: ill-formed UTF-8
// replaced, an incomplete last character left out (utf8.go).
func wellFormed(data []byte) []byte {
	var d utf8Decoder
	return append([]byte(nil), d.decode(data)...)
}

// plainEmulator is a plain emulator fed data (made well-formed) in one write.
func plainEmulator(t testing.TB, data []byte, cols, rows int) *vt.Emulator {
	t.Helper()
	e := vt.NewEmulator(cols, rows)
	e.SetScrollbackSize(1 << 22)
	go func() { _, _ = io.Copy(io.Discard, e) }()
	t.Cleanup(func() { _ = e.InputPipe().(*io.PipeWriter).Close() })
	_, _ = e.Write(wellFormed(data))
	return e
}

// sameAsPlain requires term to equal plain emulator e: every stored row
// (text and style runs) against e's scrollback, every screen cell (content,
// width, style, link) and the cursor.
func sameAsPlain(t testing.TB, term *Terminal, e *vt.Emulator) {
	t.Helper()
	term.mu.Lock()
	defer term.mu.Unlock()
	term.flushHeld()
	term.drain()
	lines := e.Scrollback().Lines()
	if int(term.pushed) != len(lines) || term.hist.Len() != len(lines) {
		t.Fatalf("%d rows in history, want %d", term.hist.Len(), len(lines))
	}
	for i, l := range lines {
		if got, want := term.hist.At(i), term.rb.build(l, term.cols, true); !reflect.DeepEqual(got, want) {
			t.Fatalf("history row %d:\n%+v\nwant\n%+v", i, got, want)
		}
	}
	for y := 0; y < term.rows; y++ {
		for x := 0; x < term.cols; x++ {
			if got, want := term.emu.CellAt(x, y), e.CellAt(x, y); !got.Equal(want) {
				t.Fatalf("cell %d,%d = %+v, want %+v\nscreen:\n%s\nwant:\n%s", x, y, *got, *want, term.emu.String(), e.String())
			}
		}
	}
	if got, want := term.emu.CursorPosition(), e.CursorPosition(); got != want {
		t.Fatalf("cursor %v, want %v", got, want)
	}
}

// screenOf returns the text rows (history and screen, trimmed) and cursor.
func screenOf(t testing.TB, term *Terminal) ([]string, uv.Position) {
	t.Helper()
	rows := allRows(t, term)
	term.mu.Lock()
	defer term.mu.Unlock()
	return rows, term.emu.CursorPosition()
}

// wides are wide clusters: CJK, kana, emoji with a modifier, a ZWJ
// sequence, a flag and an emoji made wide by VS16.
var wides = []string{"日", "あ", "👍🏽", "👨\u200d👩\u200d👧", "🇯🇵", "❤\ufe0f"}

// ---- the xterm behaviour ----

func TestWideWrapXterm(t *testing.T) {
	for _, c := range []struct {
		name       string
		cols, rows int
		in         string
		want       []string
		cur        uv.Position
	}{
		// A: one column left, no pending wrap: the character wraps whole,
		// the last column stays blank.
		{"A", 8, 3, "1234567日", []string{"1234567", "日", ""}, uv.Pos(2, 1)},
		{"A emoji", 8, 3, "1234567👍🏽", []string{"1234567", "👍🏽", ""}, uv.Pos(2, 1)},
		{"A ZWJ", 5, 3, "abcd👨\u200d👩\u200d👧!", []string{"abcd", "👨\u200d👩\u200d👧!", ""}, uv.Pos(3, 1)},
		{"A kana", 11, 4, "aあいうえお\r\nあいうえおか", []string{"aあいうえお", "あいうえお", "か", ""}, uv.Pos(2, 2)},
		{"A after a cursor move", 8, 3, "\x1b[1;8H日", []string{"", "日", ""}, uv.Pos(2, 1)},
		// The last column keeps what it had.
		{"A keeps the last column", 8, 3, "\x1b[1;8HZ\x1b[1;8H日", []string{"       Z", "日", ""}, uv.Pos(2, 1)},
		{"A keeps a wide character", 8, 3, "\x1b[?7l123456日\x1b[?7h語", []string{"123456日", "語", ""}, uv.Pos(2, 1)},
		// At the bottom row the wrap scrolls.
		{"A bottom", 8, 2, "\r\n\r\n1234567日x", []string{"", "", "1234567", "日x"}, uv.Pos(3, 1)},
		// B: filling the last two columns leaves a pending wrap.
		{"B", 8, 3, "123456日z", []string{"123456日", "z", ""}, uv.Pos(1, 1)},
		{"B daemon", 20, 4, "一二三四五六七八九十一", []string{"一二三四五六七八九十", "一", "", ""}, uv.Pos(2, 1)},
		{"B flag", 6, 3, "abcd🇯🇵🇯🇵", []string{"abcd🇯🇵", "🇯🇵", ""}, uv.Pos(2, 1)},
		{"B bottom", 8, 2, "\r\n123456日z", []string{"", "123456日", "z"}, uv.Pos(1, 1)},
		{"B then wide", 8, 3, "123456日語", []string{"123456日", "語", ""}, uv.Pos(2, 1)},
		{"B pending", 8, 3, "123456日", []string{"123456日", "", ""}, uv.Pos(7, 0)},
		// Both, on the narrowest screens.
		{"2 columns", 2, 4, "日日a日", []string{"日", "日", "a", "日"}, uv.Pos(1, 3)},
		{"3 columns", 3, 3, "a日日b", []string{"a日", "日b", ""}, uv.Pos(2, 1)},
		// A pending wrap the library set itself: no change.
		{"after a narrow character", 8, 3, "12345678日", []string{"12345678", "日", ""}, uv.Pos(2, 1)},
		// Full rows of wide characters at an odd width.
		{"odd width", 7, 4, "日本語日本語日本語", []string{"日本語", "日本語", "日本語", ""}, uv.Pos(6, 2)},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, chunk := range []int{1, 2, 3, 1 << 20} {
				term := newTerm(t, c.cols, c.rows, 100, 1<<20)
				writeChunks(term, []byte(c.in), chunk)
				rows, cur := screenOf(t, term)
				if !reflect.DeepEqual(rows, c.want) || cur != c.cur {
					t.Fatalf("chunk %d: rows %q cursor %v, want %q %v", chunk, rows, cur, c.want, c.cur)
				}
			}
		})
	}
}

// TestWideWrapFollowing: what follows a wide character filling the last two
// columns sees the pending wrap a narrow character there leaves.
func TestWideWrapFollowing(t *testing.T) {
	for _, c := range []struct {
		name, next string
		want       []string
		cur        uv.Position
	}{
		{"printable", "z", []string{"123456日", "z", ""}, uv.Pos(1, 1)},
		{"SGR first", "\x1b[31mz", []string{"123456日", "z", ""}, uv.Pos(1, 1)},
		{"title first", "\x1b]2;t\x07z", []string{"123456日", "z", ""}, uv.Pos(1, 1)},
		{"REP", "\x1b[b", []string{"123456日", "6", ""}, uv.Pos(1, 1)}, // REP repeats the last ASCII character
		{"CR", "\rz", []string{"z23456日", "", ""}, uv.Pos(1, 0)},
		{"LF", "\nz", []string{"123456日", "       z", ""}, uv.Pos(7, 1)},
		{"CUP", "\x1b[1;1Hz", []string{"z23456日", "", ""}, uv.Pos(1, 0)},
		{"BS", "\bz", []string{"123456z", "", ""}, uv.Pos(7, 0)}, // z blanks all of 日
		{"autowrap off", "\x1b[?7lz", []string{"123456 z", "", ""}, uv.Pos(7, 0)},
		{"autowrap off and on", "\x1b[?7l\x1b[?7hz", []string{"123456日", "z", ""}, uv.Pos(1, 1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The same as after a narrow character in the last column.
			narrow := newTerm(t, 8, 3, 100, 1<<20)
			narrow.Write([]byte("12345676" + c.next))
			nrows, ncur := screenOf(t, narrow)
			for _, split := range []bool{false, true} {
				term := newTerm(t, 8, 3, 100, 1<<20)
				if split {
					term.Write([]byte("123456日"))
					capture(t, term, nil, nil) // the held 日 goes out
					term.Write([]byte(c.next))
				} else {
					term.Write([]byte("123456日" + c.next))
				}
				rows, cur := screenOf(t, term)
				if !reflect.DeepEqual(rows, c.want) || cur != c.cur {
					t.Fatalf("split %v: rows %q cursor %v, want %q %v", split, rows, cur, c.want, c.cur)
				}
				if cur != ncur || rows[1] != nrows[1] {
					t.Fatalf("after a narrow character: rows %q cursor %v", nrows, ncur)
				}
			}
		})
	}
}

// TestWideWrapAutowrapOff: without autowrap xterm writes nothing for a wide
// character that does not fit and keeps the last column; one that fills the
// last two columns is overwritten by the next character.
func TestWideWrapAutowrapOff(t *testing.T) {
	term := newTerm(t, 8, 3, 100, 1<<20)
	term.Write([]byte("\x1b[?7l\x1b[1;8H\x1b[32mZ\x1b[m\x1b[1;1H1234567\x1b[41m日x\r\n123456日z"))
	rows, cur := screenOf(t, term)
	if want := []string{"1234567x", "123456 z", ""}; !reflect.DeepEqual(rows, want) || cur != uv.Pos(7, 1) {
		t.Fatalf("rows %q cursor %v, want %q", rows, cur, want)
	}
	// The x overwrote the green Z; without it the Z stays green.
	term = newTerm(t, 8, 3, 100, 1<<20)
	term.Write([]byte("\x1b[?7l\x1b[1;8H\x1b[32mZ\x1b[m\x1b[1;1H1234567\x1b[41m日"))
	rows, cur = screenOf(t, term)
	term.mu.Lock()
	z := *term.emu.CellAt(7, 0)
	term.mu.Unlock()
	if rows[0] != "1234567Z" || cur != uv.Pos(7, 0) || z.Style.Fg == nil || z.Style.Bg != nil {
		t.Fatalf("rows %q cursor %v, last cell %+v", rows, cur, z)
	}
}

// TestWideWrapRegionsAndScreens: the wrap scrolls at the bottom of a scroll
// region (and only the region), does not scroll below it, and works the
// same on the alternate screen.
func TestWideWrapRegionsAndScreens(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []string
	}{
		{"region bottom", "top\r\n\r\n\r\nlast\x1b[2;3r\x1b[3;1H123456日z", []string{"top", "123456日", "z", "last"}},
		{"region bottom A", "top\r\n\r\n\r\nlast\x1b[2;3r\x1b[3;1H1234567日", []string{"top", "1234567", "日", "last"}},
		// xterm's index below the region moves down if it can, and
		// does not scroll: the character wraps onto the same row.
		{"below the region", "\x1b[1;2r\x1b[4;1H1234567日", []string{"", "", "", "日34567"}},
		{"alternate screen", "\x1b[?1049h\x1b[4;1H1234567日\x1b[4;1H", []string{"", "", "1234567", "日"}},
		{"alternate screen B", "\x1b[?1049h\x1b[4;1H123456日z", []string{"", "", "123456日", "z"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			term := newTerm(t, 8, 4, 100, 1<<20)
			term.Write([]byte(c.in))
			got := trimAll(capture(t, term, nil, nil).Lines)
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("screen %q, want %q", got, c.want)
			}
		})
	}
}

func trimAll(l []string) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = strings.TrimRight(s, " ")
	}
	return out
}

// TestWideWrapMargins: with left/right margins set on the screen written
// to, the library's behaviour is kept (it ignores them when wrapping); margins
// left on the other screen change nothing, with or without the fast path.
func TestWideWrapMargins(t *testing.T) {
	var lines strings.Builder
	for i := 0; i < 40; i++ {
		lines.WriteString("1234567日\r\n123456日z\r\n")
	}
	altMargins := "\x1b[?1049h\x1b[?69h\x1b[2;5s\x1b[?1049l"
	for _, c := range []struct {
		name, in string
		want     []string
	}{
		{"margins here", "\x1b[?69h\x1b[1;8s1234567日", []string{"1234567", "", ""}},
		{"margins on the other screen", altMargins + "1234567日", []string{"1234567", "日", ""}},
		{"lines, margins on the other screen", altMargins + lines.String(), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			slow := newTerm(t, 8, 3, 1000, 1<<20)
			slow.fp.on = false
			fast := newTerm(t, 8, 3, 1000, 1<<20)
			slow.Write([]byte(c.in))
			fast.Write([]byte(c.in))
			capture(t, slow, nil, nil)
			capture(t, fast, nil, nil)
			compareTerminals(t, slow, fast)
			rows, _ := screenOf(t, fast)
			if c.want == nil {
				if fast.fp.runs == 0 {
					t.Fatalf("the fast path was never taken")
				}
				if want := []string{"1234567", "日", "123456日", "z"}; !reflect.DeepEqual(rows[:4], want) {
					t.Fatalf("rows %q, want %q", rows[:4], want)
				}
			} else if !reflect.DeepEqual(rows, c.want) {
				t.Fatalf("rows %q, want %q", rows, c.want)
			}
		})
	}
}

// TestWideWrapBothWays: the Terminal fed a wide character at the margin
// equals a plain emulator fed the same with the wrap made explicit (CR LF
// before the character that xterm wraps), row for row, cell for cell
// (styles included), and cursor: at several widths, on the top and the
// bottom row, with colours, for each kind of wide cluster.
func TestWideWrapBothWays(t *testing.T) {
	n := 0
	for _, cols := range []int{2, 3, 4, 5, 8, 11, 20} {
		for _, w := range wides {
			for _, bottom := range []bool{false, true} {
				for _, colour := range []bool{false, true} {
					for _, a := range []bool{true, false} {
						fill := cols - 2 // B: the character fills the last two columns
						if a {
							fill = cols - 1 // A: one column left
						}
						var pre, sgr string
						if bottom {
							pre = "first\r\n\r\n\r\n"
						}
						if colour {
							pre += "\x1b[44m"
							sgr = "\x1b[1;31;42m"
						}
						prefix := pre + strings.Repeat("x", fill) + sgr
						raw := prefix + w + "\x1b[33mz."
						// xterm wraps before the wide character (A), or
						// before the z (B; and A on two columns, where the
						// wrapped character fills the row).
						fixed := prefix + w + "\x1b[33m\r\nz."
						if a {
							fixed = prefix + "\r\n" + w + "\x1b[33mz."
							if cols == 2 {
								fixed = prefix + "\r\n" + w + "\x1b[33m\r\nz."
							}
						}
						name := fmt.Sprintf("%d/%q/bottom=%v/colour=%v/A=%v", cols, w, bottom, colour, a)
						t.Run(name, func(t *testing.T) {
							e := plainEmulator(t, []byte(fixed), cols, 3)
							for _, chunk := range []int{1, 5, 1 << 20} {
								term := newTerm(t, cols, 3, 100, 1<<20)
								writeChunks(term, []byte(raw), chunk)
								sameAsPlain(t, term, e)
							}
						})
						n++
					}
				}
			}
		}
	}
	t.Logf("%d cases", n)
}

// TestWideRun: every character the walker's shortcut trusts is a cluster of
// its own, two cells wide, as ansi.FirstGraphemeCluster finds, followed by
// any other one of them (and so is the last one).
func TestWideRun(t *testing.T) {
	var trusted []string
	for r := rune(0x3000); r <= 0xffff; r++ {
		if s := string(r); len(s) == 3 && wideChar([]byte(s)) {
			trusted = append(trusted, s)
		}
	}
	if len(trusted) < 30000 {
		t.Fatalf("%d characters", len(trusted))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, s := range trusted {
		for _, next := range []string{"", trusted[0], trusted[len(trusted)-1], trusted[rng.IntN(len(trusted))], "日", "あ", "한"} {
			b := []byte(s + next)
			cl, w := ansi.FirstGraphemeCluster(b, ansi.GraphemeWidth)
			if string(cl) != s || w != 2 || wideRun(b) != 3 {
				t.Fatalf("%q: cluster %q width %d, wideRun %d", b, cl, w, wideRun(b))
			}
		}
	}
	// Not trusted: followed by a mark, a ZWJ, a jamo, or something else.
	for _, s := range []string{"日\u0301", "日\u200d", "한\u11a8", "日\ufe0f", "日é", "\u302a日", "日\u3099"} {
		if wideRun([]byte(s)) != 0 {
			t.Errorf("%q trusted", s)
		}
	}
}

// ---- the fast path ----

// TestWideWrapFastPath: runs of line output with wide characters at the
// margin take the fast path and give what xterm shows, as the slow path.
func TestWideWrapFastPath(t *testing.T) {
	for _, cols := range []int{2, 3, 7, 11, 20, 33} {
		var b []byte
		for i := 0; i < 300; i++ {
			w := wides[i%len(wides)]
			switch i % 4 {
			case 0: // A
				b = append(b, strings.Repeat("a", cols-1)+w+"\r\n"...)
			case 1: // B, then something that wraps
				b = append(b, strings.Repeat("b", cols-2)+w+"\x1b[32mz\x1b[m\r\n"...)
			case 2: // wide characters all along, wrapping many times
				b = append(b, strings.Repeat(w, 3*cols/2+i%3)+"\r\n"...)
			default:
				b = append(b, fmt.Sprintf("%d%s\x1b[41m%s\x1b[m\n\r", i, strings.Repeat(w, cols/2), w)...)
			}
		}
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			slow := newTerm(t, cols, 5, 1<<20, 1<<30)
			slow.fp.on = false
			fast := newTerm(t, cols, 5, 1<<20, 1<<30)
			writeChunks(slow, b, 4096)
			writeChunks(fast, b, 4096)
			if fast.fp.runs == 0 {
				t.Fatalf("the fast path was never taken")
			}
			compareTerminals(t, slow, fast)
			if fast.ww.fixes == 0 && cols > 2 {
				t.Fatalf("no correction made")
			}
			// Check the rows of the first few lines against xterm's.
			rows := allRows(t, fast)
			w := wides[0]
			if want := []string{strings.Repeat("a", cols-1), w}; !reflect.DeepEqual(rows[:2], want) {
				t.Fatalf("A rows %q, want %q", rows[:2], want)
			}
		})
	}
}

// TestDifferentialWideWrapRandomized: random output rich in wide characters
// at random columns, in random writes: fast path against slow path, and
// against a plain emulator once the corrected clusters are replaced.
func TestDifferentialWideWrapRandomized(t *testing.T) {
	fixes, runs := 0, 0
	defer func() {
		if fixes < 100 || runs < 20 {
			t.Errorf("only %d corrections, %d fast runs", fixes, runs)
		}
		t.Logf("%d corrections, %d fast runs", fixes, runs)
	}()
	for seed := uint64(1); seed <= 3; seed++ {
		rng := rand.New(rand.NewPCG(seed, 5))
		var b []byte
		for i := 0; i < 1500; i++ {
			switch r := rng.IntN(20); {
			case r < 8:
				b = append(b, wides[rng.IntN(len(wides))]...)
			case r < 12:
				b = append(b, strings.Repeat("abcdefgh", 2)[:rng.IntN(9)]...)
			case r < 14:
				b = append(b, []string{"\r\n", "\n", "\r", "\b", "\t", "\u0301", "é"}[rng.IntN(7)]...)
			case r < 16:
				b = append(b, []string{"\x1b[31m", "\x1b[m", "\x1b[44m", "\x1b[K", "\x1b[2b"}[rng.IntN(5)]...)
			case r < 17:
				b = append(b, []string{"\x1b[?7l", "\x1b[?7h", "\x1b[1;2r", "\x1b[r", "\x1b[?1049h", "\x1b[?1049l",
					"\x1b[H", "\x1b[3;5H", "\x1b[C", "\x1bM", "\x1b7", "\x1b8", "\x1b[20h", "\x1b[20l",
					"\x1b[?69h\x1b[1;2s", "\x1b[?69l", "\x1bc"}[rng.IntN(17)]...)
			default:
				b = append(b, bytes.Repeat([]byte("line 日本 text\r\n"), rng.IntN(12))...)
			}
		}
		b = append(b, "\x1b[?7h\x1b[20l\x1b[r\x1b[?1049l\x1b[?69l"...)
		for _, size := range [][2]int{{80, 24}, {20, 5}, {7, 3}, {3, 3}, {2, 2}} {
			t.Run(fmt.Sprintf("seed%d/%dx%d", seed, size[0], size[1]), func(t *testing.T) {
				slow := newTerm(t, size[0], size[1], 1<<20, 1<<30)
				slow.fp.on = false
				fast := newTerm(t, size[0], size[1], 1<<20, 1<<30)
				wr := rand.New(rand.NewPCG(seed, 7))
				for d := b; len(d) > 0; {
					n := min(1+wr.IntN(300), len(d))
					slow.Write(d[:n])
					fast.Write(d[:n])
					d = d[n:]
				}
				compareTerminals(t, slow, fast)
				fixes += slow.ww.fixes
				runs += fast.fp.runs
				excl := excludeWideWrap(t, b, size[0], size[1])
				want := plainRows(t, excl, size[0], size[1], len(excl))
				term := newTerm(t, size[0], size[1], 1<<20, 1<<30)
				writeChunks(term, excl, 777)
				if got := allRows(t, term); !reflect.DeepEqual(got, want) {
					for i := range min(len(got), len(want)) {
						if got[i] != want[i] {
							t.Fatalf("row %d = %q, want %q", i, got[i], want[i])
						}
					}
					t.Fatalf("%d rows, want %d", len(got), len(want))
				}
			})
		}
	}
}

// BenchmarkTerminalWide feeds wide-character output to an 80x24 terminal in
// 4 KiB writes: lines that stay clear of the margin, lines that wrap many
// times (wide characters reach the margin on every row), and lines of mixed
// text that end just at the margin.
func BenchmarkTerminalWide(b *testing.B) {
	var short, long, mixed []byte
	for i := 0; i < 20000; i++ {
		short = append(short, fmt.Sprintf("%d: 日本語のテキスト、漢字とかな ✓\r\n", i)...)
		mixed = append(mixed, fmt.Sprintf("%06d %s%s\r\n", i, strings.Repeat("ab 日本 ", 9), "終わ")...)
	}
	for i := 0; i < 2000; i++ {
		long = append(long, strings.Repeat("一二三四五六七八九十", 1+i%30)+"\r\n"...)
	}
	for _, in := range []struct {
		name string
		data []byte
	}{{"short", short}, {"long", long}, {"mixed", mixed}} {
		b.Run(in.name, func(b *testing.B) { benchWrite(b, in.data, 4096, false) })
		b.Run(in.name+"-nofastpath", func(b *testing.B) { benchWrite(b, in.data, 4096, true) })
	}
}

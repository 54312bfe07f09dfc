package term

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// termState is everything a test can observe of a terminal through the
// emulator's API and ours: every cell, the cursor, the modes, the history
// and the frame an attaching client would get.
type termState struct {
	Cells         []string
	Cursor        uv.Position
	Hidden        bool
	Style         string
	Alt           bool
	Modes         map[ansi.DECMode]bool
	Title         string
	Lines         []string
	Frame         string
	First, Oldest int64
}

func stateOf(t *testing.T, tm *Terminal) termState {
	t.Helper()
	c, err := tm.Capture(CaptureRequest{Start: new(int64), End: nil})
	if err != nil {
		c, err = tm.Capture(CaptureRequest{})
		if err != nil {
			t.Fatal(err)
		}
	}
	frame := string(tm.RenderScreen("xterm-256color"))
	tm.mu.Lock()
	defer tm.mu.Unlock()
	s := termState{Lines: c.Lines, First: c.First, Oldest: c.Oldest, Frame: frame, Title: tm.title}
	if len(tm.modes) > 0 {
		s.Modes = map[ansi.DECMode]bool{}
		for m, on := range tm.modes {
			s.Modes[m] = on
		}
	}
	e := tm.emu
	if e == nil {
		t.Fatal("no emulator after a capture")
	}
	for y := 0; y < tm.rows; y++ {
		for x := 0; x < tm.cols; x++ {
			cl := e.CellAt(x, y)
			if cl == nil {
				cl = &uv.EmptyCell
			}
			s.Cells = append(s.Cells, fmt.Sprintf("%d,%d %q w%d %s %v", x, y, cl.Content, cl.Width, cl.Style.String(), cl.Link))
		}
	}
	s.Cursor, s.Hidden, s.Alt = e.CursorPosition(), e.CursorHidden(), e.IsAltScreen()
	st, bl := e.CursorStyle()
	s.Style = fmt.Sprint(st, bl)
	return s
}

func diffState(t *testing.T, what string, a, b termState) {
	t.Helper()
	if reflect.DeepEqual(a, b) {
		return
	}
	for i := range a.Cells {
		if i < len(b.Cells) && a.Cells[i] != b.Cells[i] {
			t.Fatalf("%s: cell differs: never released %s, rebuilt %s", what, a.Cells[i], b.Cells[i])
		}
	}
	av, bv := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := 0; i < av.NumField(); i++ {
		if !reflect.DeepEqual(av.Field(i).Interface(), bv.Field(i).Interface()) {
			t.Fatalf("%s: %s differs:\nnever released %#v\nrebuilt        %#v", what, av.Type().Field(i).Name,
				av.Field(i).Interface(), bv.Field(i).Interface())
		}
	}
}

// continuation is what a program might print after a pane was idle: typed
// text, colours, wide characters at the right margin, a scroll, cursor
// motion, a line erase, an alternate screen visit, query-free sequences.
var continuation = []string{
	"typed",
	"\r\n\x1b[1;31mred\x1b[m plain \x1b[4munder",
	strings.Repeat("wrap-me ", 12),
	"\r\n日本語" + strings.Repeat("界", 40) + "\r\n",
	"\x1b[5;10Hmoved\x1b[K\x1b[2A\x1b[3Pdel\x1b[2@ins",
	"x\u0301\u20dd tail",
	"\x1b8restored\x1b7",
	strings.Repeat("line\r\n", 30),
	"\x1b[?1049hon alt\x1b[2;2Halt text\x1b[?1049lback",
	"\x1b(0lqqk\x1b(B ascii",
	"\x1b[10;20rscroll\r\n\r\n\r\n\x1b[r",
	"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\",
	"end",
}

// TestReleasedEmulatorRebuildsTheSameScreen: for every recording of the
// corpus (term/testdata/idle: bash prompts, ls --color, less, vi, htop,
// wide characters, colours), cut at many points, a terminal whose emulator
// was released and rebuilt shows the same cells, cursor, modes, history
// and client frame as one that kept its emulator, then and after the same
// continuation output; where the state cannot be released (the alternate
// screen), Park refuses and the terminal is untouched.
func TestReleasedEmulatorRebuildsTheSameScreen(t *testing.T) {
	files, err := filepath.Glob("testdata/idle/*.out")
	if err != nil || len(files) == 0 {
		t.Fatal("no corpus", err)
	}
	parked, refused := 0, 0
	n := 30
	if testing.Short() {
		n = 6
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cuts := []int{len(data)}
		for k := 1; k < n; k++ {
			cuts = append(cuts, len(data)*k/n)
		}
		for _, cut := range cuts {
			what := fmt.Sprintf("%s cut at %d", filepath.Base(f), cut)
			a := NewTerminal(Config{Cols: 80, Rows: 24})
			b := NewTerminal(Config{Cols: 80, Rows: 24})
			a.Write(data[:cut])
			b.Write(data[:cut])
			if !b.Park() {
				refused++
				if b.Parked() {
					t.Fatal("refused but parked")
				}
				a.Close()
				b.Close()
				continue
			}
			parked++
			if !b.Parked() {
				t.Fatal(what, "not parked")
			}
			diffState(t, what, stateOf(t, a), stateOf(t, b))
			// Released again, and fed the rest of the recording and the
			// continuation while released before each piece.
			rest := append([]string{string(data[cut:])}, continuation...)
			for i, piece := range rest {
				b.Park()
				a.Write([]byte(piece))
				b.Write([]byte(piece))
				if i == 0 || i%4 == 3 || i == len(rest)-1 {
					diffState(t, fmt.Sprintf("%s, then continuation %d", what, i), stateOf(t, a), stateOf(t, b))
				}
			}
			a.Close()
			b.Close()
		}
	}
	t.Logf("%d states released and rebuilt, %d refused", parked, refused)
	if parked < len(files)*n/4 { // the alternate screen (less, vi, htop) is refused
		t.Fatalf("only %d states released", parked)
	}
}

// TestRebuildKeepsSavedCursorPenAndPendingWrap: state the emulator's API
// does not return (the pen, a pending wrap, the saved cursor with its pen,
// margins, modes, character sets, colours) survives a release.
func TestRebuildKeepsSavedCursorPenAndPendingWrap(t *testing.T) {
	for _, in := range []string{
		"\x1b[3;5H\x1b[1;38;5;100m\x1b]8;;http://s\x1b\\\x1b7\x1b[m\x1b]8;;\x1b\\\x1b[10;1Hx",
		strings.Repeat("w", 80),               // pending wrap at the bottom-right
		"\x1b[5;1H" + strings.Repeat("q", 80), // pending wrap mid-screen
		"\x1b[4;20r\x1b[5 q\x1b[?25l\x1b[4h\x1b[?7l\x1b[20h\x1b[?1h\x1b[?2004h\x1b[?1006h",
		"\x1b)0\x1bn\x1b(A", // G1 special graphics shifted in, G0 UK
		"\x1b]11;rgb:1010/2020/3030\x1b\\\x1b]4;5;rgb:ffff/0000/0000\x1b\\", // colours
		"\x1b[44m\x1b[2J\x1b[H\x1b[33mcoloured erase",                       // background colour erase
	} {
		a := NewTerminal(Config{Cols: 80, Rows: 24})
		b := NewTerminal(Config{Cols: 80, Rows: 24})
		a.Write([]byte(in))
		b.Write([]byte(in))
		if !b.Park() {
			t.Fatalf("%q: not released", in)
		}
		b.mu.Lock()
		if b.emu != nil || b.host != nil {
			t.Fatal("emulator kept")
		}
		b.mu.Unlock()
		for i, next := range []string{"", "A", "\x1b8B", "\r\n\x1b[Bq\x1b(Bq", strings.Repeat("z\r\n", 30), "\x1b[m\x1b[5;5H\x1b[Kend"} {
			a.Write([]byte(next))
			b.Write([]byte(next))
			diffState(t, fmt.Sprintf("%q then %d", in, i), stateOf(t, a), stateOf(t, b))
			b.Park()
		}
		a.mu.Lock()
		ae := a.emu
		a.mu.Unlock()
		b.unparkForTest()
		if !sameColor(ae.BackgroundColor(), b.emu.BackgroundColor()) || !sameColor(ae.IndexedColor(5), b.emu.IndexedColor(5)) {
			t.Fatalf("%q: colours differ", in)
		}
	}
}

func (t *Terminal) unparkForTest() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.parking.unparkLocked()
}

// TestParkerReleasesIdleTerminalsOnly: the parker releases a terminal once
// its output was idle for the delay, not before; a terminal on the
// alternate screen is refused and not looked at again until it prints; a
// released terminal's next output rebuilds it and it is released again.
func TestParkerReleasesIdleTerminalsOnly(t *testing.T) {
	pk := NewParker(150 * time.Millisecond)
	a := NewTerminal(Config{Cols: 40, Rows: 5, Parker: pk})
	alt := NewTerminal(Config{Cols: 40, Rows: 5, Parker: pk})
	defer a.Close()
	defer alt.Close()
	a.Write([]byte("prompt$ "))
	alt.Write([]byte("\x1b[?1049hfull screen"))
	waitFor(t, "release", func() bool { return a.Parked() })
	waitFor(t, "refusal", func() bool { return pk.Stats().Refused >= 1 })
	if alt.Parked() {
		t.Fatal("alternate screen released")
	}
	pk.mu.Lock()
	n, armed := len(pk.queue), pk.armed
	pk.mu.Unlock()
	if n != 0 || armed {
		t.Fatalf("queue %d armed %v with nothing releasable", n, armed)
	}
	a.Write([]byte("ls\r\n"))
	if a.Parked() {
		t.Fatal("still released after output")
	}
	c, _ := a.Capture(CaptureRequest{})
	if !strings.HasPrefix(c.Lines[0], "prompt$ ls") {
		t.Fatalf("rebuilt screen %q", c.Lines)
	}
	waitFor(t, "second release", func() bool { return a.Parked() })
	if st := pk.Stats(); st.Released < 2 || st.Rebuilt < 1 {
		t.Fatalf("stats %+v", st)
	}
	pk.SetAfter(0)
	a.Write([]byte("x"))
	pk.mu.Lock()
	n = len(pk.queue)
	pk.mu.Unlock()
	if n != 0 {
		t.Fatal("queued with release off")
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 10 s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestPooledEmulatorBehavesAsANewOne: an emulator given back by a terminal
// (after any of the corpus recordings or random streams, short of the
// alternate screen) and taken by another behaves as a new one: the same
// cells, cursor, modes, history, frames and replies to queries for the
// same output.
func TestPooledEmulatorBehavesAsANewOne(t *testing.T) {
	files, _ := filepath.Glob("testdata/idle/*.out")
	var before [][]byte
	for _, f := range files {
		d, _ := os.ReadFile(f)
		before = append(before, d)
	}
	for seed := uint64(1); seed <= 20; seed++ {
		before = append(before, lineStream(seed, 200))
	}
	before = append(before, []byte("\x1b]11;rgb:1010/2020/3030\x1b\\\x1b]4;5;rgb:ffff/0000/0000\x1b\\\x1b[?2004h\x1b[4;9r\x1b[5 q\x1b7\x1bH\x1b)0\x1b]8;;u\x1b\\"))
	after := append([]byte(nil), lineStream(99, 100)...)
	after = append(after, "\x1b[c\x1b[6n\x1b]11;?\x1b\\\x1b]4;5;?\x1b\\\x1b[?2004$p\x1b[4$p\x1b[?7$p\x1bZ\tTAB\t"...)
	reused := 0
	for i, pre := range before {
		old := NewTerminal(Config{Cols: 80, Rows: 24})
		old.Write(pre)
		old.mu.Lock()
		h, alt := old.host, old.host.altUsed
		old.mu.Unlock()
		old.Close()
		var fresh, used repliesBuf
		a := NewTerminal(Config{Cols: 100, Rows: 30, Replies: &fresh})
		if !shared.pool.takeHost(h) {
			if !alt {
				t.Fatalf("stream %d: host not given back", i)
			}
			continue
		}
		reused++
		b := NewTerminal(Config{Cols: 100, Rows: 30, Replies: &used})
		for _, c := range []struct {
			t *Terminal
			h *vtHost
		}{{a, newHost()}, {b, h}} {
			c.t.mu.Lock()
			c.t.host = c.h
			c.h.attach(c.t, 100, 30)
			c.t.emu, c.t.lazy = c.h.e, false
			c.t.mu.Unlock()
		}
		b.Write(after)
		a.Write(after)
		diffState(t, fmt.Sprintf("stream %d", i), stateOf(t, a), stateOf(t, b))
		waitFor(t, "replies", func() bool { return fresh.String() != "" && fresh.String() == used.String() })
		a.Close()
		b.Close()
	}
	if reused < 15 {
		t.Fatalf("only %d hosts reused", reused)
	}
}

type repliesBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (r *repliesBuf) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.b.Write(p)
}

func (r *repliesBuf) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.b.String()
}

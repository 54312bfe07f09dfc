package term

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/vt"
)

// client is a terminal that is not ours (the library's plain emulator) fed
// with frames, as an attached client's terminal is.
type client struct {
	emu   *vt.Emulator
	title string
}

func newClient(cols, rows int) *client {
	c := &client{emu: vt.NewEmulator(cols, rows)}
	// The library's own title handler drops titles containing ';'.
	c.emu.RegisterOscHandler(2, func(data []byte) bool {
		_, title, _ := strings.Cut(string(data), ";")
		c.title = title
		return true
	})
	go func() { // replies must be drained
		buf := make([]byte, 256)
		for {
			if _, err := c.emu.Read(buf); err != nil {
				return
			}
		}
	}()
	return c
}

func (c *client) write(b []byte) { _, _ = c.emu.Write(b) }

// sameScreen reports the first difference between the terminal's screen and
// the client's: every cell's content, width and style, and the cursor.
func sameScreen(t *testing.T, term *Terminal, c *client) string {
	t.Helper()
	term.mu.Lock()
	defer term.mu.Unlock()
	term.flushHeld()
	e := term.emu
	if e == nil {
		return "terminal has no emulator"
	}
	for y := 0; y < term.rows; y++ {
		for x := 0; x < term.cols; x++ {
			a, b := cellOr(e.CellAt(x, y)), cellOr(c.emu.CellAt(x, y))
			if a.Content != b.Content || a.Width != b.Width || !a.Style.Equal(&b.Style) || a.Link != b.Link {
				return fmt.Sprintf("cell %d,%d: pane %q w%d %+v, client %q w%d %+v", x, y, a.Content, a.Width, a.Style, b.Content, b.Width, b.Style)
			}
		}
	}
	if a, b := e.CursorPosition(), c.emu.CursorPosition(); a != b {
		return fmt.Sprintf("cursor: pane %v, client %v", a, b)
	}
	if a, b := e.CursorHidden(), c.emu.CursorHidden(); a != b {
		return fmt.Sprintf("cursor hidden: pane %v, client %v", a, b)
	}
	return ""
}

func cellOr(c *uv.Cell) uv.Cell {
	if c == nil {
		return uv.EmptyCell
	}
	if c.Width == 0 && c.Content == "" {
		return uv.Cell{} // continuation
	}
	return *c
}

// Output covering colours (16, 256, true colour), attributes, wide
// characters, a hyperlink, scrolling, cursor movement and erasure.
var renderSteps = []string{
	"plain\r\n\x1b[31mred\x1b[m \x1b[1;4mbold underline\x1b[m \x1b[7mreverse\x1b[m\r\n",
	"\x1b[38;5;208m256\x1b[48;2;10;20;30mtrue\x1b[m 日本語 👍🏽 e\u0301\r\n",
	"\x1b]8;;https://example.org\x1b\\link\x1b]8;;\x1b\\ after\r\n",
	strings.Repeat("line of output that scrolls\r\n", 30),
	"\x1b[5;10Hmoved\x1b[K\x1b[2;1H\x1b[2K\x1b[3;3H\x1b[1J",
	"\x1b[?25l\x1b]2;a title; with semicolon\x07hidden cursor",
	"\x1b[?25h\x1b[?1049h\x1b[H\x1b[2J\x1b[44m full screen \x1b[m\x1b[10;1H~\r\n~\x1b[?2004h\x1b[?1h",
	"\x1b[?1049l\x1b[?2004l back on the primary screen",
}

// Each frame applied to a client terminal gives it the pane's screen: a
// whole-screen render from a blank terminal, and a run of incremental
// frames, one after each piece of output.
func TestFramesReproduceTheScreen(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {20, 6}} {
		term := NewTerminal(Config{Cols: size[0], Rows: size[1]})
		defer term.Close()
		inc := newClient(size[0], size[1])
		r := NewRenderer("xterm-256color")
		inc.write(term.Frame(r)) // a blank screen
		for i, step := range renderSteps {
			term.Write([]byte(step))
			inc.write(term.Frame(r))
			if d := sameScreen(t, term, inc); d != "" {
				t.Fatalf("%dx%d after step %d, incremental frames: %s", size[0], size[1], i, d)
			}
			whole := newClient(size[0], size[1])
			whole.write(term.RenderScreen("xterm-256color"))
			if d := sameScreen(t, term, whole); d != "" {
				t.Fatalf("%dx%d after step %d, whole-screen render: %s", size[0], size[1], i, d)
			}
			if i == 5 && (inc.title != "a title; with semicolon" || whole.title != inc.title) {
				t.Errorf("titles %q and %q, want the program's", inc.title, whole.title)
			}
		}
	}
}

// A frame with nothing changed carries nothing but the cursor; Invalidate
// redraws everything.
func TestFrameOfUnchangedScreenIsSmall(t *testing.T) {
	term := NewTerminal(Config{Cols: 80, Rows: 24})
	defer term.Close()
	term.Write([]byte(strings.Repeat("some text on the screen\r\n", 20)))
	r := NewRenderer("")
	first := len(term.Frame(r))
	again := len(term.Frame(r))
	if again >= 40 || again >= first {
		t.Errorf("unchanged frame is %d bytes (first %d)", again, first)
	}
	r.Invalidate()
	c := newClient(80, 24)
	c.write([]byte("garbage on the client's screen"))
	c.write(term.Frame(r))
	if d := sameScreen(t, term, c); d != "" {
		t.Errorf("after Invalidate: %s", d)
	}
}

// The input modes the program asked for are sent, and sent again when
// they change.
func TestFramesCarryInputModes(t *testing.T) {
	term := NewTerminal(Config{Cols: 40, Rows: 5})
	defer term.Close()
	r := NewRenderer("")
	term.Write([]byte("\x1b[?2004h\x1b[?1000h\x1b[?1006h\x1b[?1h"))
	f := string(term.Frame(r))
	for _, want := range []string{"\x1b[?2004h", "\x1b[?1000h", "\x1b[?1006h", "\x1b[?1h", "\x1b[?1003l"} {
		if !strings.Contains(f, want) {
			t.Errorf("first frame %q lacks %q", f, want)
		}
	}
	term.Write([]byte("\x1b[?2004l"))
	f = string(term.Frame(r))
	if !strings.Contains(f, "\x1b[?2004l") || strings.Contains(f, "\x1b[?1000") {
		t.Errorf("frame after a mode change %q, want only that mode", f)
	}
}

// A released terminal (its program exited) shows its stored rows, styles
// included, without a cursor.
func TestFrameOfReleasedTerminal(t *testing.T) {
	term := NewTerminal(Config{Cols: 30, Rows: 4})
	term.Write([]byte("first\r\n\x1b[32mgreen\x1b[m 日本\r\nlast"))
	want, _ := term.Capture(CaptureRequest{})
	term.Release()
	c := newClient(30, 4)
	f := term.RenderScreen("")
	c.write(f)
	for y, line := range want.Lines {
		var b strings.Builder
		for x := 0; x < 30; x++ {
			cell := cellOr(c.emu.CellAt(x, y))
			b.WriteString(cell.Content)
		}
		if b.String() != line {
			t.Errorf("row %d: client %q, capture %q", y, b.String(), line)
		}
	}
	if cell := c.emu.CellAt(0, 1); cell == nil || cell.Style.Fg == nil {
		t.Errorf("the green row lost its colour: %+v", cell)
	}
	if !bytes.Contains(f, []byte("\x1b[?25l")) || bytes.Contains(f, []byte("\x1b[?25h")) {
		t.Errorf("frame of an exited terminal shows a cursor: %q", f)
	}
}

// Watch reports output, resizes and the release, and never blocks the
// terminal when nobody reads it.
func TestWatchReportsChanges(t *testing.T) {
	term := NewTerminal(Config{Cols: 10, Rows: 3})
	ch, stop := term.Watch()
	defer stop()
	for i := 0; i < 100; i++ { // nobody reads: the terminal goes on
		term.Write([]byte("x"))
	}
	<-ch
	term.Resize(12, 4)
	<-ch
	term.Release()
	<-ch
	select {
	case <-ch:
		t.Fatal("a second value without a change")
	default:
	}
}

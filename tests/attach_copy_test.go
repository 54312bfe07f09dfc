package tests

// Copying from the history view of signaltty attach, inside tmux as the
// outer terminal, whose buffers keep what OSC 52 sent (docs/attach.md,
// "History view").

import (
	"fmt"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// newestBuffer waits until tmux's newest paste buffer is want.
func newestBuffer(t *testing.T, m *harness.Tmux, what, want string) {
	t.Helper()
	harness.Eventually(t, harness.PollTimeout, what, func() (bool, string) {
		names := strings.Fields(m.Tmux(t, "list-buffers", "-F", "#{buffer_name}"))
		if len(names) == 0 {
			return false, "no tmux buffer"
		}
		got := m.Tmux(t, "show-buffer", "-b", names[0])
		return got == want, fmt.Sprintf("buffer %q, want %q", got, want)
	})
}

func TestAttachHistoryCopiesCharactersRectanglesAndMouseDrags(t *testing.T) {
	t.Parallel()
	harness.NeedTmux(t)
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "attach-copy")
	p := bash(t, d, ws(w))
	run(t, d, p.ID, "seq -f 'row-%g' 1 300", "row-300")
	m := attached(t, d, p.ID, 80, 24, "--mouse")
	m.Tmux(t, "set", "-g", "set-clipboard", "on")

	// Characters: from row-200's "2" to row-201's sixth cell.
	m.SendKeys(t, "C-b", "[")
	m.SendText(t, "?row-200")
	m.SendKeys(t, "Enter")
	m.SendText(t, "llllvjly")
	newestBuffer(t, m, "v … y copied the characters between the two ends", "200\nrow-20")

	// A rectangle: the same three columns of three rows.
	m.SendText(t, "?row-250")
	m.SendKeys(t, "Enter")
	m.SendText(t, "llll")
	m.SendKeys(t, "C-v")
	m.SendText(t, "jjlly")
	newestBuffer(t, m, "C-v … y copied a rectangle", "250\n251\n252")
	m.SendKeys(t, "q")
	waitSame(t, d, m, p.ID, "q returns to the live pane")

	// The mouse: a drag on the live pane (which takes no mouse reports)
	// enters the view on the same rows and selects; the release copies.
	rows := m.Screen(t)
	y := -1
	for i, r := range rows {
		if strings.TrimRight(r, " ") == "row-290" {
			y = i + 1
		}
	}
	if y < 0 {
		t.Fatalf("row-290 is not on the screen:\n%s", strings.Join(rows, "\n"))
	}
	m.SendText(t, fmt.Sprintf("\x1b[<0;5;%dM", y))
	m.SendText(t, fmt.Sprintf("\x1b[<32;6;%dM\x1b[<32;7;%dM", y, y))
	m.SendText(t, fmt.Sprintf("\x1b[<0;7;%dm", y))
	newestBuffer(t, m, "a mouse drag copied the cells it went over", "290")
	m.WaitScreen(t, "the view says what the drag copied", func(rows []string) bool {
		line, _ := status(rows)
		return strings.Contains(line, "copied 3 characters of 1 row")
	})
	m.SendKeys(t, "q")
	waitSame(t, d, m, p.ID, "q returns to the live pane after the drag")
}

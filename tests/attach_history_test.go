package tests

// The history view of signaltty attach, inside tmux as the outer terminal
// (docs/attach.md, "History view").

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// status is the view's position line (the window's last row) and its
// [B/T] numbers, -1 when it has none.
func status(rows []string) (line string, behind int) {
	if len(rows) == 0 {
		return "", -1
	}
	line = rows[len(rows)-1]
	m := regexp.MustCompile(`\[(\d+)/(\d+)\]\s*$`).FindStringSubmatch(line)
	if m == nil {
		return line, -1
	}
	behind, _ = strconv.Atoi(m[1])
	return line, behind
}

func hasRow(rows []string, s string) bool {
	for _, r := range rows {
		if strings.TrimRight(r, " ") == s {
			return true
		}
	}
	return false
}

func TestAttachHistoryViewScrollsSearchesAndReturnsToTheLivePane(t *testing.T) {
	t.Parallel()
	harness.NeedTmux(t)
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "attach-history")
	p := bash(t, d, ws(w))
	run(t, d, p.ID, "seq -f 'row-%g' 1 10000", "row-10000")
	m := attached(t, d, p.ID, 80, 24)

	m.SendKeys(t, "C-b", "[")
	m.WaitScreen(t, "the history view with its position line [0/T]", func(rows []string) bool {
		_, b := status(rows)
		return b == 0 && hasRow(rows, "row-10000")
	})
	m.SendKeys(t, "PageUp")
	rows := m.WaitScreen(t, "PageUp shows earlier rows, 22 behind", func(rows []string) bool {
		_, b := status(rows)
		return b == 22 && hasRow(rows, "row-9978") && !hasRow(rows, "row-10000")
	})
	_ = rows

	// The pane goes on meanwhile; the view stays where it is and says how
	// far behind it is.
	d.Send(t, p.ID, `echo during-$((6*7))\r`)
	d.WaitLine(t, p.ID, "during-42")
	m.WaitScreen(t, "the position line counts the new rows", func(rows []string) bool {
		_, b := status(rows)
		return b > 22 && hasRow(rows, "row-9978") && !hasRow(rows, "during-42")
	})
	m.SendKeys(t, "G")
	m.WaitScreen(t, "G shows the pane's newest rows, the new ones included", func(rows []string) bool {
		_, b := status(rows)
		return b == 0 && hasRow(rows, "during-42")
	})

	m.SendKeys(t, "g")
	m.WaitScreen(t, "g shows the oldest of the 10,000 rows", func(rows []string) bool {
		return strings.TrimRight(rows[0], " ") == "$ seq -f 'row-%g' 1 10000" || hasRow(rows, "row-1")
	})
	m.SendKeys(t, "G")
	m.SendText(t, "?row-1234")
	m.SendKeys(t, "Enter")
	m.WaitScreen(t, "searching towards older rows finds row-1234", func(rows []string) bool {
		return hasRow(rows, "row-1234")
	})
	m.SendText(t, "/re:^row-40[0-9]{2}$")
	m.SendKeys(t, "Enter")
	m.WaitScreen(t, "a regular expression towards newer rows finds row-4000", func(rows []string) bool {
		return hasRow(rows, "row-4000")
	})
	m.SendText(t, "/no-such-row")
	m.SendKeys(t, "Enter")
	m.WaitScreen(t, "a search without a match says so", func(rows []string) bool {
		line, _ := status(rows)
		return strings.Contains(line, "no match: no-such-row")
	})

	// V selects rows from the cursor, y copies them to the outer
	// terminal's clipboard with OSC 52 (tmux keeps it as a buffer), s
	// saves them to a file.
	m.Tmux(t, "set", "-g", "set-clipboard", "on")
	m.SendText(t, "?row-2000")
	m.SendKeys(t, "Enter")
	m.SendText(t, "Vjjy")
	var buffer string
	harness.Eventually(t, harness.PollTimeout, "the outer terminal got the copied rows", func() (bool, string) {
		name := strings.TrimSpace(m.Tmux(t, "list-buffers", "-F", "#{buffer_name}"))
		if name == "" {
			return false, "no tmux buffer"
		}
		buffer = m.Tmux(t, "show-buffer", "-b", strings.Fields(name)[0])
		return buffer == "row-2000\nrow-2001\nrow-2002", fmt.Sprintf("buffer %q", buffer)
	})
	m.WaitScreen(t, "the view says what it copied", func(rows []string) bool {
		line, _ := status(rows)
		return strings.Contains(line, "copied 3 rows")
	})
	path := filepath.Join(harness.TempDir(t), "rows.txt")
	m.SendText(t, "Vk")
	m.SendText(t, "s"+path)
	m.SendKeys(t, "Enter")
	harness.Eventually(t, harness.PollTimeout, "s saved the selected rows", func() (bool, string) {
		b, err := os.ReadFile(path)
		return err == nil && string(b) == "row-2001\nrow-2002\n", fmt.Sprintf("%q %v", b, err)
	})

	m.SendKeys(t, "q")
	waitSame(t, d, m, p.ID, "q returns to the live pane, with what it printed meanwhile")
	m.SendText(t, "echo after-$((6*7))")
	m.SendKeys(t, "Enter")
	d.WaitLine(t, p.ID, "after-42")
	waitSame(t, d, m, p.ID, "keys go to the pane again")

	// The prefix twice sends it: C-b is readline's backward-char.
	m.SendText(t, "echo x")
	m.SendKeys(t, "C-b", "C-b", "y")
	m.SendKeys(t, "Enter")
	d.WaitLine(t, p.ID, "yx")
}

// In the tab view the history view is the focused pane's, in its frame;
// the other panes stay live.
func TestAttachTabHistoryViewIsTheFocusedPanes(t *testing.T) {
	t.Parallel()
	harness.NeedTmux(t)
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "tab-history")
	a := d.Spawn(t, ws(w), "sh", "-c", `printf 'A-%s\n' 1 2 3; exec sleep 100`)
	b := bash(t, d, []string{"--split", a.ID, "--axis", "cols"})
	d.WaitLine(t, a.ID, "A-3")
	m := d.Tmux(t, 100, 30, "signaltty", "attach", "--tab", a.Tab)
	live := func(what string) { t.Helper(); panesDrawn(t, d, m, what, a.ID, b.ID) }
	live("the tab view shows both panes")
	m.SendText(t, "seq -f 'row-%g' 1 3000")
	m.SendKeys(t, "Enter")
	d.WaitLine(t, b.ID, "row-3000")

	behind := regexp.MustCompile(`\[(\d+)/(\d+)\]`)
	position := func(rows []string) int {
		for _, r := range rows {
			if m := behind.FindStringSubmatch(r); m != nil {
				n, _ := strconv.Atoi(m[1])
				return n
			}
		}
		return -1
	}
	shows := func(rows []string, s string) bool { return strings.Contains(strings.Join(rows, "\n"), s) }
	m.SendKeys(t, "C-b", "[")
	m.WaitScreen(t, "the focused pane's history view with its position line", func(rows []string) bool {
		return position(rows) == 0 && shows(rows, "row-3000") && shows(rows, "A-3")
	})
	m.SendKeys(t, "PageUp")
	m.WaitScreen(t, "PageUp shows earlier rows in the frame", func(rows []string) bool {
		return position(rows) > 0 && !shows(rows, "row-3000") && shows(rows, "A-3")
	})
	m.SendText(t, "?row-1234")
	m.SendKeys(t, "Enter")
	m.WaitScreen(t, "the search finds row-1234", func(rows []string) bool { return shows(rows, "row-1234") })
	m.Tmux(t, "set", "-g", "set-clipboard", "on")
	m.SendText(t, "Vjy")
	newestBuffer(t, m, "the rows selected in the frame reached the outer terminal's clipboard", "row-1234\nrow-1235")
	m.SendText(t, "llll")
	m.SendKeys(t, "C-v")
	m.SendText(t, "klly")
	newestBuffer(t, m, "a rectangle in the frame too", "123\n123")
	m.SendText(t, "/no-such-row")
	m.SendKeys(t, "Enter")
	m.WaitScreen(t, "no match is said", func(rows []string) bool { return shows(rows, "no match: no-such-row") })
	m.SendKeys(t, "q")
	live("q returns to both live panes")
	m.SendText(t, "echo after-$((6*7))")
	m.SendKeys(t, "Enter")
	d.WaitLine(t, b.ID, "after-42")
}

// With --mouse the client takes the outer terminal's mouse reports while
// the pane takes none: the wheel enters the history view.
func TestAttachMouseWheelEntersTheHistoryView(t *testing.T) {
	t.Parallel()
	harness.NeedTmux(t)
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "attach-wheel")
	p := bash(t, d, ws(w))
	run(t, d, p.ID, "seq -f 'row-%g' 1 500", "row-500")
	m := attached(t, d, p.ID, 80, 24, "--mouse")
	m.SendText(t, "\x1b[<64;10;10M") // what a terminal sends for the wheel up
	m.WaitScreen(t, "the wheel entered the view three rows up", func(rows []string) bool {
		_, b := status(rows)
		return b == 3
	})
	m.SendText(t, "\x1b[<65;10;10M")
	m.WaitScreen(t, "the wheel down scrolls back", func(rows []string) bool {
		_, b := status(rows)
		return b == 0
	})
	m.SendKeys(t, "q")
	waitSame(t, d, m, p.ID, "q returns to the live pane")
	m.SendText(t, "\x1b[<0;10;10M\x1b[<0;10;10m") // a click is not the pane's: dropped
	m.SendText(t, "echo clicked-$((6*7))")
	m.SendKeys(t, "Enter")
	c := d.WaitLine(t, p.ID, "clicked-42")
	for _, l := range c.Lines {
		if strings.Contains(l, "<0;10;10") {
			t.Fatalf("the click reached the pane: %q", l)
		}
	}

	// A pane that asks for mouse reports gets them, the wheel included.
	m.SendText(t, `printf '\033[?1000h\033[?1006h'; cat -v`)
	m.SendKeys(t, "Enter")
	harness.Eventually(t, harness.PollTimeout, "the client saw the pane turn mouse reports on", func() (bool, string) {
		m.SendText(t, "\x1b[<0;10;10M") // dropped until then
		c := d.Capture(t, p.ID)
		return strings.Contains(c.Dump(), "^[[<0;10;10M"), c.Dump()
	})
	m.SendText(t, "\x1b[<64;10;10M")
	d.WaitCapture(t, p.ID, "the wheel went to the pane", func(c harness.Capture) bool {
		return strings.Contains(c.Dump(), "^[[<64;10;10M")
	})
}

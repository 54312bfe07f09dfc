package tests

// signaltty attach, driven inside a real terminal emulator that is not ours
// (tmux): what it shows, what it sends, size, detach, read-only clients and
// clients that stop reading (docs/attach.md).

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// attached starts `signaltty attach` on pane in a cols×rows tmux window and
// waits until the window shows what the pane's capture shows.
func attached(t *testing.T, d *harness.Daemon, pane string, cols, rows int, flags ...string) *harness.Tmux {
	t.Helper()
	m := d.Tmux(t, cols, rows, append([]string{"signaltty", "attach", pane}, flags...)...)
	waitSame(t, d, m, pane, "the attached client shows the pane's screen")
	return m
}

// waitSame polls until the tmux window's rows equal the pane's capture.
func waitSame(t *testing.T, d *harness.Daemon, m *harness.Tmux, pane, what string) harness.Capture {
	t.Helper()
	var c harness.Capture
	harness.Eventually(t, harness.PollTimeout, what, func() (bool, string) {
		c = d.Capture(t, pane)
		w := m.Screen(t)
		diff := harness.SameRows(w, c)
		return diff == "", diff + "\nattached:\n" + strings.Join(w, "\n") + "\ncapture:\n" + c.Dump()
	})
	return c
}

func TestAttachShowsWhatCaptureShows(t *testing.T) {
	t.Parallel()
	harness.NeedTmux(t)
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "attach-show")

	t.Run("shell", func(t *testing.T) {
		t.Parallel()
		p := bash(t, d, ws(w))
		run(t, d, p.ID, "echo one; echo two", "two")
		m := attached(t, d, p.ID, 80, 24)
		m.SendText(t, "echo typed-$((6*7))")
		m.SendKeys(t, "Enter")
		d.WaitLine(t, p.ID, "typed-42")
		waitSame(t, d, m, p.ID, "the shell's screen after typed input")
	})

	t.Run("less on the alternate screen", func(t *testing.T) {
		t.Parallel()
		p := bash(t, d, ws(w))
		m := attached(t, d, p.ID, 80, 24)
		m.SendText(t, "seq 1 1000 | less")
		m.SendKeys(t, "Enter")
		c := d.WaitCapture(t, p.ID, "less shows its pager", func(c harness.Capture) bool {
			return c.Screen == "alternate" && c.HasLine("23")
		})
		waitSame(t, d, m, p.ID, "less on the alternate screen")
		m.SendKeys(t, "Space") // a page on
		d.WaitLine(t, p.ID, "46")
		waitSame(t, d, m, p.ID, "less after a page")
		m.SendKeys(t, "q")
		c = d.WaitCapture(t, p.ID, "less quit", func(c harness.Capture) bool { return c.Screen == "primary" })
		waitSame(t, d, m, p.ID, "the shell after less")
		_ = c
	})

	t.Run("coloured ls", func(t *testing.T) {
		t.Parallel()
		dir := harness.TempDir(t)
		for _, sub := range []string{"alpha-dir", "beta-dir"} {
			if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "plain-file"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		p := bash(t, d, ws(w), "--cwd", dir)
		m := attached(t, d, p.ID, 80, 24)
		m.SendText(t, "LS_COLORS='di=01;34' ls --color=always; echo ls-done")
		m.SendKeys(t, "Enter")
		d.WaitLine(t, p.ID, "ls-done")
		waitSame(t, d, m, p.ID, "the coloured listing")
		esc := m.ScreenEscapes(t)
		for _, name := range []string{"alpha-dir", "beta-dir"} {
			if !strings.Contains(esc, "34m"+name) {
				t.Errorf("the attached screen does not draw %s in blue:\n%q", name, esc)
			}
		}
		if strings.Contains(esc, "34mplain-file") {
			t.Errorf("plain-file is drawn blue: %q", esc)
		}
	})
}

// Resizing the outer terminal resizes the pane; the detach key leaves the
// program running; a read-only client sees the same and sends nothing.
func TestAttachSizeDetachAndReadOnly(t *testing.T) {
	t.Parallel()
	harness.NeedTmux(t)
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "attach-size")
	p := bash(t, d, ws(w))
	m := attached(t, d, p.ID, 100, 30)
	if got := d.GetPane(t, p.ID); got.Cols != 100 || got.Rows != 30 {
		t.Errorf("attaching from a 100x30 terminal left the pane %dx%d", got.Cols, got.Rows)
	}
	m.Resize(t, 70, 20)
	harness.Eventually(t, harness.PollTimeout, "the pane follows the outer terminal's size", func() (bool, string) {
		got := d.GetPane(t, p.ID)
		return got.Cols == 70 && got.Rows == 20, fmt.Sprintf("%dx%d", got.Cols, got.Rows)
	})
	m.SendText(t, "stty size")
	m.SendKeys(t, "Enter")
	d.WaitLine(t, p.ID, "20 70")
	waitSame(t, d, m, p.ID, "the screen after the resize")

	ro := d.Tmux(t, 70, 20, "signaltty", "attach", p.ID, "--read-only")
	waitSame(t, d, ro, p.ID, "the read-only client shows the pane's screen")
	ro.Resize(t, 60, 15)
	ro.SendText(t, "echo from-read-only")
	ro.SendKeys(t, "Enter")
	m.SendText(t, "echo marker-$((1+1))")
	m.SendKeys(t, "Enter")
	c := d.WaitLine(t, p.ID, "marker-2")
	if c.Contains("from-read-only") {
		t.Errorf("keys typed into a read-only client reached the pane:\n%s", c.Dump())
	}
	if got := d.GetPane(t, p.ID); got.Cols != 70 || got.Rows != 20 {
		t.Errorf("a read-only client resized the pane to %dx%d", got.Cols, got.Rows)
	}
	ro.Resize(t, 70, 20)
	waitSame(t, d, ro, p.ID, "the read-only client follows the output")

	m.SendKeys(t, `C-\`)
	m.WaitEnded(t)
	if got := strings.Join(m.Screen(t), "\n"); !strings.Contains(got, "[detached from "+p.ID+"]") {
		t.Errorf("after the detach key the window shows:\n%s", got)
	}
	if got := d.GetPane(t, p.ID); got.State != "live" {
		t.Errorf("after detaching the pane is %s, want live", got.State)
	}
	run(t, d, p.ID, "echo still-$((2+2))", "still-4")
	waitSame(t, d, ro, p.ID, "the other client after the first detached")
}

// A client that stops reading (SIGSTOP) neither stops the pane's output nor
// makes the daemon hold that output for it; resumed, it is brought up to
// the current screen.
func TestAttachStoppedClient(t *testing.T) {
	t.Parallel()
	harness.NeedTmux(t)
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "attach-stop")
	p := bash(t, d, ws(w))
	m := attached(t, d, p.ID, 80, 24)
	client := m.Pid(t)
	before := rssKiB(t, d.Pid())
	if err := syscall.Kill(client, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(client, syscall.SIGCONT)
	// 48 MB of output, in 79-column lines of changing text, while the
	// client reads nothing.
	d.Send(t, p.ID, `seq -f 'line %043g of output for a stopped client' 1 600000; echo output-done\n`)
	harness.Eventually(t, 10*harness.PollTimeout, "the pane's output goes on while a client is stopped", func() (bool, string) {
		c := d.Capture(t, p.ID)
		return c.HasLine("output-done"), c.Dump()
	})
	after := rssKiB(t, d.Pid())
	t.Logf("daemon RSS %d KiB before, %d KiB after 48 MB of output with a stopped client", before, after)
	// A daemon that queued the output for the client would hold all 48 MB
	// (more as base64); one that does not grows by what emulation costs.
	// The race detector's shadow memory multiplies that.
	bound := 32 << 10
	if os.Getenv("SIGNALTTY_TEST_RACE") == "1" {
		bound *= 4
	}
	if grown := after - before; grown > bound {
		t.Errorf("daemon RSS grew by %d KiB while a client was stopped (output was 48 MB)", grown)
	}
	if err := syscall.Kill(client, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	waitSame(t, d, m, p.ID, "the resumed client shows the current screen")
}

// rssKiB is a process's resident set size.
func rssKiB(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	t.Fatalf("no VmRSS for pid %d", pid)
	return 0
}

// Attaching to a pane without a process shows its saved screen and its
// state until a key is pressed; a pane that exits while attached ends the
// attach with a line saying how.
func TestAttachExitedPane(t *testing.T) {
	t.Parallel()
	harness.NeedTmux(t)
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "attach-exited")
	done := d.Spawn(t, ws(w), "sh", "-c", "echo finished-output; exit 3")
	d.WaitExited(t, done.ID)
	m := d.Tmux(t, 80, 24, "signaltty", "attach", done.ID)
	rows := m.WaitScreen(t, "the saved screen with its state", func(rows []string) bool {
		return len(rows) == 24 && strings.HasPrefix(rows[0], "finished-output") && strings.Contains(rows[23], "exited with status 3")
	})
	_ = rows
	m.SendKeys(t, "x")
	m.WaitEnded(t)

	p := bash(t, d, ws(w))
	m = attached(t, d, p.ID, 80, 24)
	m.SendText(t, "exit 5")
	m.SendKeys(t, "Enter")
	m.WaitEnded(t)
	if got := strings.Join(m.Screen(t), "\n"); !strings.Contains(got, "["+p.ID+" exited with status 5]") {
		t.Errorf("after the program exited the window shows:\n%s", got)
	}
}

// After a restart a pane is a tombstone: attach shows its saved rows and
// says it has no process.
func TestAttachRestoredPane(t *testing.T) {
	t.Parallel()
	harness.NeedTmux(t)
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "attach-restored")
	p := bash(t, d, ws(w))
	run(t, d, p.ID, "echo saved-$((7*6))", "saved-42")
	d.Stop(t)
	d2 := harness.Start(t, harness.Options{Dir: d.Dir})
	m := d2.Tmux(t, 80, 24, "signaltty", "attach", p.ID)
	m.WaitScreen(t, "the saved rows with the pane's state", func(rows []string) bool {
		s := strings.Join(rows, "\n")
		return strings.Contains(s, "saved-42") && strings.Contains(rows[len(rows)-1], "has no process (restored")
	})
	m.SendKeys(t, "Enter")
	if code := m.WaitEnded(t); code != 0 {
		t.Errorf("attach to a tombstone exited %d", code)
	}
}

// A paste reaches the program in brackets once it enabled bracketed paste
// (the client's terminal is put in the pane's input modes), and plain
// before.
func TestAttachForwardsBracketedPaste(t *testing.T) {
	t.Parallel()
	harness.NeedTmux(t)
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "attach-paste")
	p := d.Spawn(t, ws(w), "sh", "-c", `stty -icanon -echo; echo ready; head -c 7 | od -c | head -1; printf '\033[?2004h'; echo bracketed; exec cat -v`)
	d.WaitLine(t, p.ID, "ready")
	m := attached(t, d, p.ID, 80, 24)
	paste := func(text string) {
		t.Helper()
		cmd := []string{"set-buffer", "--", text}
		m.Tmux(t, cmd...)
		m.Tmux(t, "paste-buffer", "-p", "-t", "0")
	}
	paste("plain-1")
	d.WaitCapture(t, p.ID, "the plain paste", func(c harness.Capture) bool { return c.Contains("p   l   a   i   n   -   1") })
	d.WaitLine(t, p.ID, "bracketed")
	waitSame(t, d, m, p.ID, "the client follows the program")
	paste("in-brackets")
	d.WaitCapture(t, p.ID, "the paste in brackets", func(c harness.Capture) bool { return c.Contains("^[[200~in-brackets^[[201~") })
}

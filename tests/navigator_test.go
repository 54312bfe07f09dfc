package tests

// signaltty without a command (and attach without a pane): the tree of
// workspaces, tabs and panes; on a terminal, a numbered prompt that
// attaches to the pane picked.

import (
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

func TestNavigatorListsAndAttaches(t *testing.T) {
	t.Parallel()
	harness.NeedTmux(t)
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "nav")
	done := d.Spawn(t, ws(w), "sh", "-c", "exit 4")
	d.WaitExited(t, done.ID)
	p := bash(t, d, ws(w))
	s := sleeper(t, d, w)
	d.JSON(t, &struct{}{}, "notify", "--pane", s.ID, "--title", "look", "--severity", "error")
	var started struct{ Run string }
	d.JSON(t, &started, "run", "--key", "k1", "--workspace", w.ID, "--", "true")

	// Off a terminal: the tree as text, exit 0; the pane that needs the
	// user first, the run's tab folded into one line.
	r := d.CLI(t)
	if r.Code != 0 {
		t.Fatalf("signaltty off a terminal: %s", r)
	}
	for _, want := range []string{"workspace nav (nav)", "! 1  " + s.ID, "error", "2  " + done.ID, "exited 4", "EXITED", "3  " + p.ID, "live pid", "LIVE",
		"runs: 1 panes, 0 live, 1 finished"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("the tree lacks %q:\n%s", want, r.Stdout)
		}
	}
	if strings.Contains(r.Stdout, "attach to") {
		t.Errorf("off a terminal the navigator prompts:\n%s", r.Stdout)
	}

	d.Fail(t, "invalid_params.pane", exitInvalid, "attach") // off a terminal there is nothing to pick with
	d.Fail(t, "invalid_params.terminal", exitInvalid, "attach", p.ID)

	// On a terminal: a attaches to the pane that needs the user.
	m := d.Tmux(t, 160, 24, "signaltty", "attach")
	m.WaitScreen(t, "the navigator's prompt", func(rows []string) bool {
		return strings.Contains(strings.Join(rows, "\n"), "attach to [1-3]")
	})
	m.SendKeys(t, "a", "Enter")
	waitSame(t, d, m, s.ID, "a attached the pane that needs the user")
	m.SendKeys(t, `C-\`)
	if code := m.WaitEnded(t); code != 0 {
		t.Errorf("the navigator exited %d after detaching", code)
	}
	if got := getAgentPane(t, d, s.ID).Attention; got != "none" {
		t.Errorf("attaching left the attention %q", got)
	}

	// Pick the shell (second now: the other's attention is cleared), type
	// into it, detach.
	m = d.Tmux(t, 80, 24, "signaltty", "attach")
	m.WaitScreen(t, "the navigator's prompt", func(rows []string) bool {
		return strings.Contains(strings.Join(rows, "\n"), "attach to [1-3]")
	})
	m.SendKeys(t, "2", "Enter")
	waitSame(t, d, m, p.ID, "the picked pane is attached")
	m.SendText(t, "echo picked-$((5+5))")
	m.SendKeys(t, "Enter")
	d.WaitLine(t, p.ID, "picked-10")
	m.SendKeys(t, `C-\`)
	if code := m.WaitEnded(t); code != 0 {
		t.Errorf("the navigator exited %d after detaching", code)
	}
}

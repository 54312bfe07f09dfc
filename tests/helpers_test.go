package tests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// Exit statuses of the CLI by error class.
const (
	exitInvalid     = 2
	exitNotFound    = 3
	exitConflict    = 5
	exitUnavailable = 6
)

// prompt is the PS1 of test shells; the prompt line reads "$".
const prompt = "$ "

// bash spawns an interactive `bash --norc --noprofile` with PS1 "$ " (plus
// extra spawn flags) and waits for its prompt.
func bash(t *testing.T, d *harness.Daemon, target []string, extra ...string) harness.Pane {
	t.Helper()
	flags := append(append(append([]string{}, target...), "--env", "PS1="+prompt), extra...)
	p := d.Spawn(t, flags, "bash", "--norc", "--noprofile")
	d.WaitLine(t, p.ID, "$")
	return p
}

// run types a command line into a shell pane and waits until a line of the
// screen equals want.
func run(t *testing.T, d *harness.Daemon, pane, cmdline, want string) harness.Capture {
	t.Helper()
	d.Send(t, pane, cmdline+`\n`)
	return d.WaitLine(t, pane, want)
}

// ws returns the spawn target flags for a new tab in workspace w.
func ws(w harness.Workspace) []string { return []string{"--workspace", w.ID} }

// sleeper spawns `sleep 100000` in a new tab of w: a pane that stays live
// for as long as any test runs (a loaded machine took over 100 s through
// the bad-input cases); the daemon's stop ends it with the test.
func sleeper(t *testing.T, d *harness.Daemon, w harness.Workspace) harness.Pane {
	t.Helper()
	return d.Spawn(t, ws(w), "sleep", "100000")
}

// checkGone requires every pid to be gone right now (the daemon replies to
// KillPane and recursive removals only after reaping the leaders).
func checkGone(t *testing.T, what string, pids ...int) {
	t.Helper()
	for _, pid := range pids {
		if !harness.Gone(pid) {
			p, _ := harness.ReadProc(pid)
			t.Errorf("%s: pid %d still runs: %s", what, pid, p)
		}
	}
}

// paneIDs lists the ids of panes.
func paneIDs(ps []harness.Pane) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	return out
}

// layoutString renders a layout compactly: p1 | (p2 / p3).
func layoutString(l *harness.Layout) string {
	switch {
	case l == nil:
		return "<nil>"
	case l.Kind == "pane" && l.Pane != nil:
		return *l.Pane
	case l.Kind == "split" && l.Axis != nil && l.Ratio != nil:
		sep := "?"
		switch *l.Axis {
		case "cols":
			sep = "|"
		case "rows":
			sep = "/"
		}
		return fmt.Sprintf("(%s %s %s @%.2f)", layoutString(l.First), sep, layoutString(l.Second), *l.Ratio)
	}
	return fmt.Sprintf("<bad node %+v>", *l)
}

// tabOf finds tab id among tabs.
func tabOf(t *testing.T, tabs []harness.Tab, id string) harness.Tab {
	t.Helper()
	for _, tb := range tabs {
		if tb.ID == id {
			return tb
		}
	}
	t.Fatalf("tab %s not among %d tabs", id, len(tabs))
	return harness.Tab{}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func lines(ls []string) string { return strings.Join(ls, "\n") }

// hung is a shell command that writes marker name in dir and then sleeps.
func hung(dir, name string) string {
	return harness.Mark(dir, name) + "; exec sleep 100"
}

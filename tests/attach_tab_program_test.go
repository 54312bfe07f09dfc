package tests

// signaltty attach --tab (and t N in the navigator) runs the tab view
// program signaltty-attach (docs/attach.md, "Tab view"): its failures read
// as the CLI's, and without the program the CLI says where it looked.

import (
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// A tab that does not exist is not_found.tab (exit 3), said by the tab
// view program exactly as the CLI says failures: the --json error line on
// standard output, else "signaltty: MESSAGE (CODE)" on standard error.
func TestAttachTabFailsAsTheCLIDoes(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	d.Fail(t, "not_found.tab", exitNotFound, "attach", "--tab", "tab_000000000000")
	r := d.CLI(t, "attach", "--tab", "tab_000000000000")
	if r.Code != exitNotFound || r.Stdout != "" || !strings.HasPrefix(r.Stderr, "signaltty: ") || !strings.HasSuffix(r.Stderr, "(not_found.tab)\n") {
		t.Fatalf("want not_found.tab on stderr, exit 3:\n%s", r)
	}
}

// Picking a pane's tab in the navigator (t N) runs the same tab view: the
// pane framed with its id, keys reaching it, C-b d detaching with exit 0.
func TestNavigatorOpensTheTabView(t *testing.T) {
	t.Parallel()
	harness.NeedTmux(t)
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "nav-tab")
	p := bash(t, d, ws(w))
	m := d.Tmux(t, 80, 24, "signaltty")
	m.WaitScreen(t, "the navigator's prompt", func(rows []string) bool {
		return strings.Contains(strings.Join(rows, "\n"), "attach to [1-1]")
	})
	m.SendKeys(t, "t1", "Enter")
	m.WaitScreen(t, "the tab view's frame titled with the pane", func(rows []string) bool {
		return strings.Contains(strings.Join(rows, "\n"), "· "+p.ID+" ")
	})
	m.SendText(t, "echo tab-$((6+6))")
	m.SendKeys(t, "Enter")
	d.WaitLine(t, p.ID, "tab-12")
	m.SendKeys(t, "C-b", "d")
	if code := m.WaitEnded(t); code != 0 {
		t.Errorf("the tab view exited %d after C-b d", code)
	}
}

package tests

// A run's tab is told apart from the user's and never becomes the active
// tab, before and after a restart (docs/workspaces.md, "Run tabs").

import (
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

func TestRunTabsNeverBecomeActiveAndAreMarked(t *testing.T) {
	d := harness.Start(t)
	d.CreateWorkspace(t, "tabs")
	user := d.Spawn(t, []string{"--workspace", "tabs"}, "sleep", "100")
	var runs []string
	for _, spec := range [][]string{{"--key", "a", "--", "true"}, {"--key", "b", "--shell", "exit 0"}} {
		var st struct{ Run, Tab string }
		d.JSON(t, &st, append([]string{"run", "--workspace", "tabs"}, spec...)...)
		d.JSON(t, &struct{}{}, "run", "wait", "--run", st.Run)
		runs = append(runs, st.Run)
	}
	check := func(d *harness.Daemon, when string) {
		t.Helper()
		w, tabs, _ := d.GetWorkspace(t, "tabs")
		if w.ActiveTab == nil || *w.ActiveTab != user.Tab {
			t.Errorf("%s: the active tab is %v, want the user's %s", when, harness.Deref(w.ActiveTab), user.Tab)
		}
		if len(tabs) != 3 {
			t.Fatalf("%s: %d tabs, want the user's and two runs'", when, len(tabs))
		}
		want := map[string]string{runs[0]: "run true", runs[1]: "run sh"}
		for _, tb := range tabs {
			switch {
			case tb.ID == user.Tab && tb.Run != nil:
				t.Errorf("%s: the user's tab is marked as run %s", when, *tb.Run)
			case tb.ID != user.Tab && (tb.Run == nil || want[*tb.Run] != tb.Title):
				t.Errorf("%s: run tab %s: run %v, title %q; want one of %v", when, tb.ID, harness.Deref(tb.Run), tb.Title, want)
			}
		}
	}
	check(d, "after two runs")
	d.Stop(t)
	check(harness.Start(t, harness.Options{Dir: d.Dir}), "after a restart")
}

package tests

// A run's tab is told apart from the user's and never becomes the active
// tab, before and after a restart (docs/workspaces.md, "Run tabs").

import (
	"fmt"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

func TestRunTabsNeverBecomeActiveAndAreMarked(t *testing.T) {
	t.Parallel()
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
		want := map[string]string{runs[0]: "run", runs[1]: "run"}
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

// With run.remove_panes on, a run's exited pane goes with its evicted
// record, and the run tab it empties with it; the user's tab stays.
func TestRunPanesRemovedWithTheirRecords(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	d.CreateWorkspace(t, "tidy")
	user := d.Spawn(t, []string{"--workspace", "tidy"}, "sleep", "100")
	var st struct{ Run, Pane, Tab string }
	d.JSON(t, &st, "run", "--key", "kept", "--workspace", "tidy", "--", "true")
	d.JSON(t, &struct{}{}, "run", "wait", "--run", st.Run)
	if _, tabs, _ := d.GetWorkspace(t, "tidy"); len(tabs) != 2 {
		t.Fatalf("with run.remove_panes off the run's tab must stay: %d tabs", len(tabs))
	}
	var cfg settingsReply
	d.JSON(t, &cfg, "config", "set", "--run-remove-panes", "--run-retain-ms", "200")
	if cfg.origin("run.remove_panes") != "runtime" {
		t.Errorf("run.remove_panes origin %q after config set", cfg.origin("run.remove_panes"))
	}
	if text := d.CLI(t, "config", "get").Stdout; !strings.Contains(text, "run.remove_panes true (runtime)\n") {
		t.Errorf("config get lacks run.remove_panes true (runtime):\n%s", text)
	}
	var later struct{ Run, Pane, Tab string }
	d.JSON(t, &later, "run", "--key", "removed", "--workspace", "tidy", "--", "true")
	harness.Eventually(t, harness.PollTimeout, "the run tabs are removed with their records", func() (bool, string) {
		_, tabs, panes := d.GetWorkspace(t, "tidy")
		return len(tabs) == 1 && tabs[0].ID == user.Tab && len(panes) == 1, fmt.Sprintf("tabs %+v panes %d", tabs, len(panes))
	})
	d.Fail(t, "not_found.pane", 3, "pane", "get", "--pane", later.Pane)
}

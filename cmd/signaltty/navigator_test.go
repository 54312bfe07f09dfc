package main

import (
	"strings"
	"testing"

	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
)

func TestTheTreeListsPanesThatNeedYouFirstAndFoldsRunTabs(t *testing.T) {
	leaf := func(id string) *mux.Layout { return &mux.Layout{Kind: "pane", Pane: &id} }
	run := "r1"
	pane := func(id, tab, attention string) mux.Pane {
		return mux.Pane{Id: id, Tab: tab, State: "live", Attention: attention, Lifecycle: "idle", Restore_state: "LIVE"}
	}
	tr := tree{{
		Workspace: mux.Workspace{Id: "ws", Name: "w", Handle: "w"},
		Tabs: []mux.Tab{{Id: "t1", Title: "one", Layout: leaf("calm")}, {Id: "t2", Title: "two", Layout: leaf("asks")},
			{Id: "t3", Title: "run", Layout: leaf("ran"), Run: &run}, {Id: "t4", Title: "four", Layout: leaf("warns")}},
		Panes: []mux.Pane{pane("calm", "t1", "none"), pane("asks", "t2", "permission_required"), pane("ran", "t3", "error"), pane("warns", "t4", "warning")},
	}}
	var b strings.Builder
	items := printTree(&b, tr)
	var order []string
	for _, p := range items {
		order = append(order, p.Id)
	}
	if strings.Join(order, " ") != "asks warns calm" {
		t.Fatalf("numbered %v, want the one asking, the warning, then the calm one (the run's folded)", order)
	}
	out := b.String()
	for _, want := range []string{"! 1  asks", "! 2  warns", "  3  calm", "runs: 1 panes, 1 live, 0 finished"} {
		if !strings.Contains(out, want) {
			t.Errorf("the tree lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ran  ") {
		t.Errorf("the run's pane is listed:\n%s", out)
	}
	if n := nextNeedingYou(items); n != 0 {
		t.Errorf("the first pane needing you is %d, want 0", n)
	}
}

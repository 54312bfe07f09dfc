package service

import "testing"

func TestTheSplitBeforeAPaneIsTheOneWhoseSecondPartStartsWithIt(t *testing.T) {
	root := &node{pane: "a"}
	root.split("a", "b", AxisCols) // a | b
	root.split("b", "c", AxisRows) // a | (b / c)
	root.split("a", "d", AxisRows) // (a / d) | (b / c)
	for pane, want := range map[string]*node{"b": root, "d": root.first, "c": root.second, "a": nil} {
		if got := root.before(pane); got != want {
			t.Errorf("before(%s) = %+v, want %+v", pane, got.snapshot(), want.snapshot())
		}
	}
}

func TestSetSplitRatioSavesTheRatioAndRefusesBadOnes(t *testing.T) {
	s := newTestService(t)
	w, _ := s.CreateWorkspace("w", "")
	a, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sleep", "100"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.SpawnPane(SpawnRequest{Split: a.ID, Axis: AxisCols, Argv: []string{"sleep", "100"}})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := s.SetSplitRatio(a.Tab, b.ID, 0.3)
	if err != nil || tab.Layout.Ratio != 0.3 {
		t.Fatalf("SetSplitRatio: %+v %v", tab.Layout, err)
	}
	if _, tabs, _, _ := s.GetWorkspace(w.ID); tabs[0].Layout.Ratio != 0.3 {
		t.Fatalf("the layout read again has ratio %v", tabs[0].Layout.Ratio)
	}
	for _, c := range []struct {
		tab, pane string
		ratio     float64
		code      string
	}{
		{a.Tab, b.ID, 0.01, "invalid_params.ratio"},
		{a.Tab, b.ID, 0.99, "invalid_params.ratio"},
		{a.Tab, a.ID, 0.5, "invalid_params.pane"},
		{"tab_000000000000", b.ID, 0.5, "not_found.tab"},
	} {
		if _, err := s.SetSplitRatio(c.tab, c.pane, c.ratio); code(err) != c.code {
			t.Errorf("SetSplitRatio(%s, %s, %v): %v, want %s", c.tab, c.pane, c.ratio, err, c.code)
		}
	}
	if _, tabs, _, _ := s.GetWorkspace(w.ID); tabs[0].Layout.Ratio != 0.3 {
		t.Fatalf("a refused call changed the ratio to %v", tabs[0].Layout.Ratio)
	}
	_ = s.RemoveWorkspace(t.Context(), w.ID, true)
}

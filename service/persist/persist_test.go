package persist

import (
	"slices"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/snapshot"
	"github.com/signaltty/signaltty/term"
)

func TestSavedAndRestoredStates(t *testing.T) {
	for _, c := range []struct {
		live, frozen, restored bool
		saveLive, restoreLive  bool
	}{
		{true, false, false, true, true},
		{false, true, false, true, true},
		{false, false, true, true, false},
		{false, false, false, false, false},
	} {
		l, r := SaveAs(c.live, c.frozen, c.restored)
		if l != c.saveLive || r != c.restoreLive {
			t.Errorf("SaveAs(%v, %v, %v) = %v, %v", c.live, c.frozen, c.restored, l, r)
		}
	}
	if RestoreAs(true, true) != snapshot.RestoreExited || RestoreAs(false, true) != snapshot.RestoreResumable ||
		RestoreAs(false, false) != snapshot.RestoreRestored {
		t.Error("RestoreAs: exited wins, then resumable, then restored")
	}
}

func TestExportsKeepUnchangedPanes(t *testing.T) {
	var ex Exports
	calls := 0
	export := func(id string) func() snapshot.Pane {
		return func() snapshot.Pane { calls++; return snapshot.Pane{ID: id} }
	}
	ex.Begin(2)
	ex.Keep("a", 1, false, export("a"))
	ex.Keep("b", 1, false, export("b"))
	ex.End()
	ex.Begin(2)
	ex.Keep("a", 1, false, export("a")) // unchanged
	ex.Keep("b", 2, false, export("b")) // revision moved
	ex.End()
	if calls != 3 {
		t.Fatalf("exported %d times, want 3", calls)
	}
	ex.Begin(1)
	ex.Keep("a", 1, true, export("a")) // shutdown-save mark moved; b removed
	ex.End()
	if calls != 4 || len(ex.m) != 1 {
		t.Fatalf("calls %d, kept %d", calls, len(ex.m))
	}
}

func TestTailsOfferOnlyChangedTerminals(t *testing.T) {
	a := term.NewRestoredTerminal(20, 4, []string{"one"}, 1)
	b := term.NewTerminal(term.Config{Cols: 20, Rows: 4, History: []string{"two"}})
	terms := map[string]*term.Terminal{"a": a, "b": b}
	panes := []snapshot.Pane{{ID: "a"}, {ID: "b"}, {ID: "c"}} // c: no terminal yet
	var tl Tails
	ts := tl.Begin(panes, terms)
	f := ts.Func()
	if f == nil {
		t.Fatal("a first save offers every tail")
	}
	if rows, ok := f("a"); !ok || !strings.Contains(strings.Join(rows, "\n"), "one") {
		t.Fatalf("tail a = %q, %v", rows, ok)
	}
	if _, ok := f("c"); ok {
		t.Fatal("a pane without a terminal has no tail")
	}
	ts.End(true)
	if tl.Changed(a) || tl.Changed(b) {
		t.Fatal("saved terminals count as changed")
	}
	if tl.Begin(panes, terms).Func() != nil {
		t.Fatal("nothing changed, yet tails are offered")
	}
	b.Write([]byte("more\r\n"))
	if !tl.Changed(b) || tl.Changed(a) {
		t.Fatal("only b changed")
	}
	ts = tl.Begin(panes, terms)
	if _, ok := ts.Func()("a"); ok {
		t.Fatal("a is unchanged: not offered")
	}
	ts.End(false)
	if !tl.Changed(a) {
		t.Fatal("after a failed save every tail is offered again")
	}
}

func TestEnvSavedLostAndRestart(t *testing.T) {
	e := Env{Vars: map[string]string{"LANG": "C", "SECRET": "x", "ADDED": "y"}, Transient: []string{"ADDED"}, Lost: []string{"OLD"}}
	saved := e.Saved()
	if _, ok := saved["SECRET"]; ok {
		t.Fatalf("saved %v: only allowlisted names", saved)
	}
	if _, ok := saved["ADDED"]; ok {
		t.Fatal("a variable a restart added is never saved")
	}
	if lost := e.LostNames(); !slices.Contains(lost, "OLD") || !slices.Contains(lost, "SECRET") || !slices.IsSorted(lost) {
		t.Fatalf("lost %v", lost)
	}
	env, unset, transient, lost := e.Restart(nil, map[string]string{"NEW": "1"}, []string{"ADDED"})
	if env["NEW"] != "1" || env["ADDED"] != "" || !slices.Equal(unset, []string{"ADDED"}) ||
		!slices.Equal(transient, []string{"NEW"}) || !slices.Equal(lost, []string{"OLD"}) {
		t.Fatalf("restart: %v %v %v %v", env, unset, transient, lost)
	}
}

func TestSettingsFileAndOrigins(t *testing.T) {
	check := func(name string, v int64) *errcode.Error {
		if v < 0 {
			return errcode.Invalid(name, "range", "negative")
		}
		return nil
	}
	vals, problems := ParseFile(map[string]string{SettingRunRemovePanes: "true", SettingHistoryRows: "x", SettingRunMaxActive: "-1", SettingSaveInterval: "5000"}, check)
	if vals[SettingRunRemovePanes] != 1 || vals[SettingSaveInterval] != 5000 || len(vals) != 2 || len(problems) != 2 {
		t.Fatalf("values %v, problems %q", vals, problems)
	}
	if txt := FileText(vals); txt[SettingRunRemovePanes] != "true" || txt[SettingSaveInterval] != "5000" {
		t.Fatalf("text %v", txt)
	}
	st := NewSettings()
	st.Loaded("/f", vals, map[string]int64{SettingHistoryRows: 10})
	path, file := st.WithChange(map[string]int64{SettingRunMaxActive: 3})
	if path != "/f" || file[SettingRunMaxActive] != 3 || len(st.file) != 2 {
		t.Fatalf("WithChange: %s %v (kept %v)", path, file, st.file)
	}
	st.Changed(file, map[string]int64{SettingRunMaxActive: 3})
	want := map[string]string{SettingRunMaxActive: OriginRuntime, SettingRunRemovePanes: OriginFile,
		SettingHistoryRows: OriginEnvironment, SettingRunRetainCount: OriginDefault}
	for _, o := range st.Origins() {
		if w, ok := want[o.Name]; ok && o.Origin != w {
			t.Errorf("%s: origin %s, want %s", o.Name, o.Origin, w)
		}
	}
}

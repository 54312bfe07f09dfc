package tests

// Naming workspaces by their exact name, refusing an empty one, and tidying
// up exited panes.

import (
	"slices"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// A workspace is found by its exact name too (a name whose handle is not
// the name, such as 工作 → ws-N); a name several workspaces share is
// ambiguous; an empty name is refused at creation as at renaming.
func TestWorkspaceByExactName(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "工作")
	if w.Handle == w.Name {
		t.Fatalf("handle %q equals the name; the test needs a name that is not a handle", w.Handle)
	}
	p := d.Spawn(t, []string{"--workspace", "工作"}, "sleep", "100")
	if p.Workspace != w.ID {
		t.Errorf("--workspace 工作 spawned into %s, want %s", p.Workspace, w.ID)
	}
	got, _, _ := d.GetWorkspace(t, "工作")
	if got.ID != w.ID {
		t.Errorf("workspace get --workspace 工作 is %s, want %s", got.ID, w.ID)
	}
	a, b := d.CreateWorkspace(t, "Twin Name"), d.CreateWorkspace(t, "Twin Name") // handles twin-name, twin-name-2
	e := d.Fail(t, "conflict.name_ambiguous", exitConflict, "pane", "list", "--workspace", "Twin Name")
	if ids, _ := e.Data["workspaces"].([]any); len(ids) != 2 {
		t.Errorf("ambiguous name: data %v, want both workspaces (%s, %s)", e.Data, a.ID, b.ID)
	}
	d.Fail(t, "invalid_params.name", exitInvalid, "workspace", "create", "--name", "")
	d.Kill(t, p.ID, "--grace-ms", "200")
}

// A reference that is one workspace's handle and another's name (after a
// rename, or a second workspace of the same name) is refused, naming
// both, instead of the handle silently winning; each is still reached by
// its id, and by a handle no name shares (docs/workspaces.md, "Names").
func TestWorkspaceRefThatIsAHandleAndAnothersNameIsRefused(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	a := d.CreateWorkspace(t, "alpha") // handle alpha
	b := d.CreateWorkspace(t, "beta")  // handle beta
	if r := d.CLI(t, "--json", "workspace", "rename", "--workspace", b.ID, "--name", "alpha"); r.Code != 0 {
		t.Fatalf("rename: %s", r)
	}
	e := d.Fail(t, "conflict.ref_ambiguous", exitConflict, "pane", "list", "--workspace", "alpha")
	ids, _ := e.Data["workspaces"].([]any)
	if len(ids) != 2 || ids[0] != a.ID || ids[1] != b.ID || e.Data["by_handle"] != a.ID {
		t.Errorf("alpha: data %v, want the handle's %s and the name's %s", e.Data, a.ID, b.ID)
	}
	d.Fail(t, "conflict.ref_ambiguous", exitConflict, "pane", "spawn", "--workspace", "alpha", "--", "true")
	for ref, want := range map[string]string{a.ID: a.ID, b.ID: b.ID, "beta": b.ID} {
		if got, _, _ := d.GetWorkspace(t, ref); got.ID != want {
			t.Errorf("workspace get %s is %s, want %s", ref, got.ID, want)
		}
	}

	// A second workspace with the name of the first: the name is
	// ambiguous, the second's handle is not.
	c1, c2 := d.CreateWorkspace(t, "gamma"), d.CreateWorkspace(t, "gamma") // handles gamma, gamma-2
	if c2.Handle != "gamma-2" {
		t.Fatalf("the second gamma's handle is %q", c2.Handle)
	}
	e = d.Fail(t, "conflict.ref_ambiguous", exitConflict, "pane", "list", "--workspace", "gamma")
	if ids, _ := e.Data["workspaces"].([]any); len(ids) != 2 || ids[0] != c1.ID || ids[1] != c2.ID {
		t.Errorf("gamma: data %v", e.Data)
	}
	if got, _, _ := d.GetWorkspace(t, "gamma-2"); got.ID != c2.ID {
		t.Errorf("gamma-2 is %s, want %s", got.ID, c2.ID)
	}
}

// pane remove --exited --workspace W removes W's exited panes and the tabs
// that leaves empty; live panes and other workspaces stay.
func TestRemoveExitedPanes(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "tidy")
	other := d.CreateWorkspace(t, "other")
	done1 := d.Spawn(t, ws(w), "true")
	done2 := d.Spawn(t, ws(w), "true")
	live := d.Spawn(t, ws(w), "sleep", "100")
	beside := d.Spawn(t, []string{"--split", live.ID, "--axis", "cols"}, "true")
	elsewhere := d.Spawn(t, ws(other), "true")
	for _, p := range []harness.Pane{done1, done2, beside, elsewhere} {
		d.WaitExited(t, p.ID)
	}
	r := d.CLI(t, "pane", "remove", "--exited", "--workspace", "tidy")
	if r.Code != 0 {
		t.Fatalf("remove --exited: %s", r)
	}
	removed := strings.Fields(r.Stdout)
	slices.Sort(removed)
	want := []string{done1.ID, done2.ID, beside.ID}
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("removed %q, want %q", removed, want)
	}
	got, tabs, panes := d.GetWorkspace(t, w.ID)
	if len(tabs) != 1 || len(panes) != 1 || panes[0].ID != live.ID || len(got.Tabs) != 1 {
		t.Errorf("after tidying: tabs %d, panes %+v; want the live pane's tab alone", len(tabs), panes)
	}
	if p := d.GetPane(t, live.ID); p.Cols != 80 {
		t.Errorf("the live pane kept %d columns, want the whole tab's 80 back", p.Cols)
	}
	if d.GetPane(t, elsewhere.ID).ID != elsewhere.ID {
		t.Errorf("another workspace's exited pane was removed")
	}
	var none struct {
		Panes []string `json:"panes"`
	}
	d.JSON(t, &none, "pane", "remove", "--exited", "--workspace", w.ID)
	if none.Panes == nil || len(none.Panes) != 0 {
		t.Errorf("nothing to remove: panes %v, want []", none.Panes)
	}
	d.Fail(t, "invalid_params.usage", exitInvalid, "pane", "remove", "--exited")
	d.Fail(t, "not_found.workspace", exitNotFound, "pane", "remove", "--exited", "--workspace", "nope")
	d.Kill(t, live.ID, "--grace-ms", "200")
}

// A workspace name of only white space is refused in create and rename
// alike, leaving nothing behind, and white space around a name is trimmed
// the same way in both (docs/workspaces.md, "Names").
func TestWorkspaceNameOfOnlySpacesRefusedInCreateAndRename(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	count := func() int {
		var r struct {
			Workspaces []harness.Workspace `json:"workspaces"`
		}
		d.JSON(t, &r, "workspace", "list")
		return len(r.Workspaces)
	}
	before := count()
	d.Fail(t, "invalid_params.name", exitInvalid, "workspace", "create", "--name", "   ")
	d.Fail(t, "invalid_params.name", exitInvalid, "workspace", "create", "--name", " \t ")
	if n := count(); n != before {
		t.Errorf("refused creates left %d workspaces, want %d", n, before)
	}
	w := d.CreateWorkspace(t, "  api  ")
	if w.Name != "api" {
		t.Errorf("create --name '  api  ' stored %q, want %q", w.Name, "api")
	}
	d.Fail(t, "invalid_params.name", exitInvalid, "workspace", "rename", "--workspace", w.ID, "--name", "    ")
	if got, _, _ := d.GetWorkspace(t, w.ID); got.Name != "api" {
		t.Errorf("a refused rename changed the name to %q", got.Name)
	}
	d.CLI(t, "workspace", "rename", "--workspace", w.ID, "--name", " web ")
	if got, _, _ := d.GetWorkspace(t, w.ID); got.Name != "web" {
		t.Errorf("rename --name ' web ' stored %q, want %q", got.Name, "web")
	}
}

package tests

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// Workspaces: create (handles unique), list, get, rename, remove.
func TestCLIWorkspaces(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)

	ci := d.CreateWorkspace(t, "ci")
	if !strings.HasPrefix(ci.ID, "ws_") || ci.Name != "ci" || ci.Handle != "ci" || ci.Cwd != d.Home || len(ci.Tabs) != 0 || ci.ActiveTab != nil {
		t.Errorf("workspace create --name ci: got %+v, want id ws_…, name and handle ci, cwd %s, no tabs", ci, d.Home)
	}
	ci2 := d.CreateWorkspace(t, "ci")
	if ci2.Handle != "ci-2" || ci2.Name != "ci" || ci2.ID == ci.ID {
		t.Errorf("second workspace named ci: got %+v, want handle ci-2, name ci, a new id", ci2)
	}
	proj := d.CreateWorkspace(t, "My Project!")
	if proj.Handle != "my-project" {
		t.Errorf("handle of %q is %q, want my-project", proj.Name, proj.Handle)
	}

	// No name, no cwd: name "workspace", cwd the daemon's $HOME.
	var def struct {
		Workspace harness.Workspace `json:"workspace"`
	}
	d.JSON(t, &def, "workspace", "create")
	if def.Workspace.Name != "workspace" || def.Workspace.Handle != "workspace" || def.Workspace.Cwd != d.Home {
		t.Errorf("workspace create without flags: got %+v, want name and handle \"workspace\", cwd %s", def.Workspace, d.Home)
	}

	var list struct {
		Workspaces []harness.Workspace `json:"workspaces"`
	}
	d.JSON(t, &list, "workspace", "list")
	var got []string
	for _, w := range list.Workspaces {
		got = append(got, w.Handle)
	}
	if want := []string{"ci", "ci-2", "my-project", "workspace"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("workspace list handles = %v, want %v (creation order)", got, want)
	}
	if r := d.CLI(t, "workspace", "list"); r.Code != 0 || !strings.Contains(r.Stdout, "ci-2") || !strings.Contains(r.Stdout, ci.ID) {
		t.Errorf("human workspace list lacks ci-2 or %s:\n%s", ci.ID, r)
	}

	// get by handle and by id
	for _, ref := range []string{"ci-2", ci2.ID} {
		w, tabs, panes := d.GetWorkspace(t, ref)
		if w.ID != ci2.ID || len(tabs) != 0 || len(panes) != 0 {
			t.Errorf("workspace get --workspace %s: got %+v with %d tabs %d panes, want %s, empty", ref, w, len(tabs), len(panes), ci2.ID)
		}
	}

	// rename: the name changes, the handle stays
	var ren struct {
		Workspace harness.Workspace `json:"workspace"`
	}
	d.JSON(t, &ren, "workspace", "rename", "--workspace", "ci-2", "--name", "release builds")
	if ren.Workspace.ID != ci2.ID || ren.Workspace.Name != "release builds" || ren.Workspace.Handle != "ci-2" {
		t.Errorf("rename: got %+v, want name \"release builds\", handle ci-2", ren.Workspace)
	}
	if w, _, _ := d.GetWorkspace(t, "ci-2"); w.Name != "release builds" {
		t.Errorf("after rename, get ci-2 shows name %q", w.Name)
	}
	d.Fail(t, "invalid_params.name", exitInvalid, "workspace", "rename", "--workspace", "ci-2", "--name", "")
	d.Fail(t, "invalid_params.name", exitInvalid, "workspace", "rename", "--workspace", "ci-2", "--name", "bad\x01name")
	d.Fail(t, "not_found.workspace", exitNotFound, "workspace", "rename", "--workspace", "nope", "--name", "x")
	d.Fail(t, "invalid_params.cwd", exitInvalid, "workspace", "create", "--name", "x", "--cwd", "/nonexistent/dir")

	// remove
	if r := d.CLI(t, "workspace", "remove", "--workspace", "ci-2"); r.Code != 0 {
		t.Fatalf("workspace remove:\n%s", r)
	}
	d.Fail(t, "not_found.workspace", exitNotFound, "workspace", "get", "--workspace", "ci-2")
	d.Fail(t, "not_found.workspace", exitNotFound, "workspace", "get", "--workspace", ci2.ID)
	d.Fail(t, "not_found.workspace", exitNotFound, "workspace", "remove", "--workspace", ci2.ID)
	d.JSON(t, &list, "workspace", "list")
	for _, w := range list.Workspaces {
		if w.ID == ci2.ID {
			t.Errorf("removed workspace %s still listed", ci2.ID)
		}
	}
	if st := d.Status(t); st.Workspaces != 3 {
		t.Errorf("status workspaces = %d, want 3", st.Workspaces)
	}

	// Without --json, errors go to stderr with the code, and the exit status is the class's.
	r := d.CLI(t, "workspace", "get", "--workspace", "nope")
	if r.Code != exitNotFound || !strings.Contains(r.Stderr, "not_found.workspace") {
		t.Errorf("human error output: want exit 3 and not_found.workspace on stderr:\n%s", r)
	}
}

// Tabs: create, remove, spawn into an empty tab.
func TestCLITabs(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "tabs")

	var tr struct {
		Tab harness.Tab `json:"tab"`
	}
	d.JSON(t, &tr, "tab", "create", "--workspace", w.Handle, "--title", "build")
	t1 := tr.Tab
	if !strings.HasPrefix(t1.ID, "tab_") || t1.Workspace != w.ID || t1.Title != "build" || t1.Layout != nil || t1.ActivePane != nil {
		t.Errorf("tab create: got %+v, want tab_… in %s titled build without layout", t1, w.ID)
	}
	d.JSON(t, &tr, "tab", "create", "--workspace", w.ID)
	t2 := tr.Tab
	if t2.Title != "tab" {
		t.Errorf("default tab title %q, want \"tab\"", t2.Title)
	}
	got, _, _ := d.GetWorkspace(t, w.ID)
	if strings.Join(got.Tabs, " ") != t1.ID+" "+t2.ID || got.ActiveTab == nil || *got.ActiveTab != t2.ID {
		t.Errorf("workspace tabs %v active %v, want [%s %s] active %s", got.Tabs, got.ActiveTab, t1.ID, t2.ID, t2.ID)
	}
	d.Fail(t, "not_found.workspace", exitNotFound, "tab", "create", "--workspace", "nope")

	if r := d.CLI(t, "tab", "remove", "--tab", t1.ID); r.Code != 0 {
		t.Fatalf("tab remove:\n%s", r)
	}
	got, _, _ = d.GetWorkspace(t, w.ID)
	if strings.Join(got.Tabs, " ") != t2.ID {
		t.Errorf("after removing %s, workspace tabs = %v, want [%s]", t1.ID, got.Tabs, t2.ID)
	}
	d.Fail(t, "not_found.tab", exitNotFound, "tab", "remove", "--tab", t1.ID)

	// A pane into the empty tab; the tab is then not empty any more.
	p := d.Spawn(t, []string{"--tab", t2.ID}, "sleep", "100")
	if p.Tab != t2.ID || p.Workspace != w.ID {
		t.Errorf("spawn --tab %s: pane in tab %s workspace %s", t2.ID, p.Tab, p.Workspace)
	}
	d.Fail(t, "conflict.tab_not_empty", exitConflict, "pane", "spawn", "--tab", t2.ID, "--", "sleep", "100")
	d.Fail(t, "not_found.tab", exitNotFound, "pane", "spawn", "--tab", "tab_000000000000", "--", "sleep", "100")

	// Removing a tab with a live pane needs --recursive.
	d.Fail(t, "conflict.pane_live", exitConflict, "tab", "remove", "--tab", t2.ID)
	if g := d.GetPane(t, p.ID); g.State != "live" {
		t.Errorf("a refused tab removal changed the pane: %+v", g)
	}
	if r := d.CLI(t, "tab", "remove", "--tab", t2.ID, "--recursive"); r.Code != 0 {
		t.Fatalf("tab remove --recursive:\n%s", r)
	}
	checkGone(t, "after tab remove --recursive", p.PID())
	d.Fail(t, "not_found.pane", exitNotFound, "pane", "get", "--pane", p.ID)
	if got, _, _ = d.GetWorkspace(t, w.ID); len(got.Tabs) != 0 {
		t.Errorf("workspace still has tabs %v", got.Tabs)
	}
}

// Spawning: a new tab per --workspace, splits dividing the size, the tab's
// layout, list and get.
func TestCLISpawnSplitLayout(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "split")

	p1 := bash(t, d, ws(w))
	if !strings.HasPrefix(p1.ID, "pane_") || p1.Cols != 80 || p1.Rows != 24 || p1.Workspace != w.ID ||
		p1.Argv0 != "bash" || p1.Title != "bash" || strings.Join(p1.Argv, " ") != "bash --norc --noprofile" ||
		p1.Cwd != w.Cwd || !slices.Equal(p1.Env, []string{"PS1"}) || p1.Screen != "primary" || p1.Terminating || p1.Status != nil {
		t.Errorf("spawned pane: %+v", p1)
	}
	wk, tabs, _ := d.GetWorkspace(t, w.ID)
	if len(wk.Tabs) != 1 || wk.Tabs[0] != p1.Tab {
		t.Fatalf("spawn --workspace: workspace tabs %v, want [%s]", wk.Tabs, p1.Tab)
	}
	if got := layoutString(tabOf(t, tabs, p1.Tab).Layout); got != p1.ID {
		t.Errorf("layout %s, want %s", got, p1.ID)
	}

	// Split side by side: the columns are divided, the rows stay.
	p2 := d.Spawn(t, []string{"--split", p1.ID, "--axis", "cols"}, "sleep", "100")
	p1 = d.GetPane(t, p1.ID)
	if p2.Tab != p1.Tab || p2.Rows != 24 || p1.Rows != 24 || p1.Cols < 1 || p2.Cols < 1 ||
		p1.Cols+p2.Cols < 79 || p1.Cols+p2.Cols > 80 {
		t.Errorf("after a cols split of 80x24: p1 %dx%d, p2 %dx%d (tab %s/%s); want the 80 columns divided, 24 rows each",
			p1.Cols, p1.Rows, p2.Cols, p2.Rows, p1.Tab, p2.Tab)
	}
	// The split pane's program sees its new size.
	run(t, d, p1.ID, "stty size", fmt.Sprintf("24 %d", p1.Cols))

	// Split p2 stacked: its rows are divided.
	p3 := d.Spawn(t, []string{"--split", p2.ID, "--axis", "rows"}, "sleep", "100")
	p2 = d.GetPane(t, p2.ID)
	if p3.Cols != p2.Cols || p2.Rows+p3.Rows < 23 || p2.Rows+p3.Rows > 24 || p3.Rows < 1 || p2.Rows < 1 {
		t.Errorf("after a rows split of p2: p2 %dx%d, p3 %dx%d; want %d columns each, the 24 rows divided",
			p2.Cols, p2.Rows, p3.Cols, p3.Rows, p2.Cols)
	}

	wk, tabs, panes := d.GetWorkspace(t, w.ID)
	tab := tabOf(t, tabs, p1.Tab)
	want := fmt.Sprintf("(%s | (%s / %s @0.50) @0.50)", p1.ID, p2.ID, p3.ID)
	if got := layoutString(tab.Layout); got != want {
		t.Errorf("tab layout %s, want %s", got, want)
	}
	if tab.ActivePane == nil || *tab.ActivePane != p3.ID {
		t.Errorf("active pane %v, want the newest %s", tab.ActivePane, p3.ID)
	}
	if len(wk.Tabs) != 1 || strings.Join(paneIDs(panes), " ") != p1.ID+" "+p2.ID+" "+p3.ID {
		t.Errorf("workspace get: tabs %v panes %v, want 1 tab with %s %s %s", wk.Tabs, paneIDs(panes), p1.ID, p2.ID, p3.ID)
	}

	for _, f := range [][]string{nil, {"--workspace", w.Handle}, {"--tab", p1.Tab}} {
		if got := paneIDs(d.ListPanes(t, f...)); strings.Join(got, " ") != p1.ID+" "+p2.ID+" "+p3.ID {
			t.Errorf("pane list %v = %v, want %s %s %s", f, got, p1.ID, p2.ID, p3.ID)
		}
	}
	if g := d.GetPane(t, p3.ID); g.ID != p3.ID || g.PID() != p3.PID() || g.Argv0 != "sleep" || g.State != "live" {
		t.Errorf("pane get: %+v", g)
	}
	if r := d.CLI(t, "pane", "list"); r.Code != 0 || !strings.Contains(r.Stdout, p3.ID) {
		t.Errorf("human pane list lacks %s:\n%s", p3.ID, r)
	}

	// Another --workspace spawn makes a second tab, with the requested size.
	p4 := d.Spawn(t, append(ws(w), "--cols", "100", "--rows", "30"), "sleep", "100")
	if p4.Cols != 100 || p4.Rows != 30 || p4.Tab == p1.Tab {
		t.Errorf("spawn --cols 100 --rows 30: %dx%d in tab %s", p4.Cols, p4.Rows, p4.Tab)
	}
	c := d.Capture(t, p4.ID)
	if c.Cols != 100 || c.Rows != 30 || len(c.Lines) != 30 {
		t.Errorf("capture of a 100x30 pane: cols %d rows %d, %d lines", c.Cols, c.Rows, len(c.Lines))
	}
	if wk, _, _ = d.GetWorkspace(t, w.ID); len(wk.Tabs) != 2 || wk.ActiveTab == nil || *wk.ActiveTab != p4.Tab {
		t.Errorf("workspace tabs %v active %v, want 2 tabs, active %s", wk.Tabs, wk.ActiveTab, p4.Tab)
	}
}

// Input and output: send text and base64 data, capture the screen.
func TestCLISendCapture(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "io")
	p := bash(t, d, ws(w))

	d.Send(t, p.ID, `echo hello\n`)
	c := d.WaitLine(t, p.ID, "hello")
	if !c.HasLine("$ echo hello") {
		t.Errorf("the echoed command line is missing:\n%s", c.Dump())
	}
	if c.Cols != 80 || c.Rows != 24 || len(c.Lines) != 24 || c.Screen != "primary" {
		t.Errorf("capture geometry: %s", c.Dump())
	}
	for i, l := range c.Lines {
		if len([]rune(l)) != 80 {
			t.Errorf("line %d has %d cells, want 80: %q", i, len([]rune(l)), l)
		}
	}

	var r struct {
		Written int `json:"written"`
	}
	d.JSON(t, &r, "pane", "send", "--pane", p.ID, "--data", base64.StdEncoding.EncodeToString([]byte("echo b64-$((40+2))\n")))
	if r.Written != 19 {
		t.Errorf("send --data: written %d, want 19", r.Written)
	}
	d.WaitLine(t, p.ID, "b64-42")

	// Human capture: trailing spaces and trailing empty rows left out.
	hc := d.CLI(t, "pane", "capture", "--pane", p.ID)
	if hc.Code != 0 || !strings.Contains(hc.Stdout, "\nhello\n") || strings.Contains(hc.Stdout, " \n") || strings.HasSuffix(hc.Stdout, "\n\n") {
		t.Errorf("human capture:\n%s", hc)
	}
	d.Fail(t, "invalid_params.*", exitInvalid, "pane", "send", "--pane", p.ID, "--data", "!!not base64!!")
	d.Fail(t, "invalid_params.*", exitInvalid, "pane", "send", "--pane", p.ID) // neither text nor data
}

// Resize: the program sees the new size.
func TestCLIResize(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "resize")
	p := bash(t, d, ws(w))

	var r struct {
		Pane harness.Pane `json:"pane"`
	}
	d.JSON(t, &r, "pane", "resize", "--pane", p.ID, "--cols", "100", "--rows", "30")
	if r.Pane.Cols != 100 || r.Pane.Rows != 30 {
		t.Errorf("resize reply: %dx%d, want 100x30", r.Pane.Cols, r.Pane.Rows)
	}
	c := run(t, d, p.ID, "stty size", "30 100")
	if c.Cols != 100 || c.Rows != 30 || len(c.Lines) != 30 {
		t.Errorf("capture after resize: %s", c.Dump())
	}
	if g := d.GetPane(t, p.ID); g.Cols != 100 || g.Rows != 30 {
		t.Errorf("pane get after resize: %dx%d", g.Cols, g.Rows)
	}
	d.Fail(t, "invalid_params.size", exitInvalid, "pane", "resize", "--pane", p.ID, "--cols", "0", "--rows", "30")
	d.Fail(t, "invalid_params.size", exitInvalid, "pane", "resize", "--pane", p.ID, "--cols", "80", "--rows", "1001")
	d.Fail(t, "not_found.pane", exitNotFound, "pane", "resize", "--pane", "pane_000000000000", "--cols", "80", "--rows", "24")
	if g := d.GetPane(t, p.ID); g.Cols != 100 || g.Rows != 30 {
		t.Errorf("a refused resize changed the size: %dx%d", g.Cols, g.Rows)
	}
}

// Signals reach the pane's process group.
func TestCLISignal(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "sig")

	p := d.Spawn(t, ws(w), "sh", "-c", `trap 'echo got-usr1' USR1; echo ready; while :; do sleep 1; done`)
	d.WaitLine(t, p.ID, "ready")
	if r := d.CLI(t, "pane", "signal", "--pane", p.ID, "--signal", "USR1"); r.Code != 0 {
		t.Fatalf("pane signal:\n%s", r)
	}
	d.WaitLine(t, p.ID, "got-usr1")
	if g := d.GetPane(t, p.ID); g.State != "live" {
		t.Errorf("a trapped USR1 ended the pane: %+v", g)
	}

	s := sleeper(t, d, w)
	if r := d.CLI(t, "pane", "signal", "--pane", s.ID, "--signal", "SIGTERM"); r.Code != 0 {
		t.Fatalf("pane signal SIGTERM:\n%s", r)
	}
	g := d.WaitExited(t, s.ID)
	if g.Signal() != "SIGTERM" || g.Status.Code != nil || g.PID() != 0 || g.ExitedAt == nil {
		t.Errorf("after SIGTERM: status %+v pid %v exited_at %v, want signal SIGTERM, no pid", g.Status, g.Pid, g.ExitedAt)
	}
	checkGone(t, "after SIGTERM", s.PID())
	d.Fail(t, "conflict.pane_exited", exitConflict, "pane", "signal", "--pane", s.ID, "--signal", "TERM")
	d.Fail(t, "invalid_params.signal", exitInvalid, "pane", "signal", "--pane", p.ID, "--signal", "BOGUS")
	d.Fail(t, "not_found.pane", exitNotFound, "pane", "signal", "--pane", "pane_000000000000", "--signal", "TERM")
}

// Kill: HUP by default; SIGKILL after the grace period for a program that
// ignores HUP.
func TestCLIKill(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "kill")

	b := bash(t, d, ws(w))
	k := d.Kill(t, b.ID)
	if k.State != "exited" || k.Signal() != "SIGHUP" || k.Terminating || k.PID() != 0 || k.ExitedAt == nil {
		t.Errorf("kill of bash: state %s status %+v terminating %v pid %v, want exited by SIGHUP", k.State, k.Status, k.Terminating, k.Pid)
	}
	checkGone(t, "after kill", b.PID())
	if again := d.Kill(t, b.ID); again.State != "exited" || again.Signal() != "SIGHUP" {
		t.Errorf("kill of an exited pane must return it as is: %+v", again)
	}
	d.Fail(t, "conflict.pane_exited", exitConflict, "pane", "send", "--pane", b.ID, "--text", "x")

	// A program ignoring SIGHUP is SIGKILLed after the grace period.
	h := d.Spawn(t, ws(w), "bash", "-c", `trap '' HUP; echo ready; exec sleep 100`)
	d.WaitLine(t, h.ID, "ready")
	start := time.Now()
	k = d.Kill(t, h.ID, "--grace-ms", "300")
	took := time.Since(start)
	if k.State != "exited" || k.Signal() != "SIGKILL" {
		t.Errorf("kill --grace-ms 300 of a HUP-ignoring program: state %s status %+v, want signal SIGKILL", k.State, k.Status)
	}
	if took < 300*time.Millisecond {
		t.Errorf("kill returned after %v, before the 300 ms grace period", took)
	}
	checkGone(t, "after SIGKILL", h.PID())

	s := sleeper(t, d, w)
	if k = d.Kill(t, s.ID, "--signal", "TERM"); k.Signal() != "SIGTERM" {
		t.Errorf("kill --signal TERM: status %+v", k.Status)
	}

	s = sleeper(t, d, w)
	d.Fail(t, "invalid_params.signal", exitInvalid, "pane", "kill", "--pane", s.ID, "--signal", "NOPE")
	d.Fail(t, "invalid_params.grace_ms", exitInvalid, "pane", "kill", "--pane", s.ID, "--grace-ms", "60001")
	d.Fail(t, "invalid_params.grace_ms", exitInvalid, "pane", "kill", "--pane", s.ID, "--grace-ms", "-1")
	if g := d.GetPane(t, s.ID); g.State != "live" || g.Terminating {
		t.Errorf("a refused kill touched the pane: %+v", g)
	}
	d.Fail(t, "not_found.pane", exitNotFound, "pane", "kill", "--pane", "pane_000000000000")
}

// Remove: a live pane needs --kill; the layout closes; the last pane takes its tab along.
func TestCLIRemovePane(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "rm")

	p1 := sleeper(t, d, w)
	p2 := d.Spawn(t, []string{"--split", p1.ID, "--axis", "cols"}, "sleep", "100")

	d.Fail(t, "conflict.pane_live", exitConflict, "pane", "remove", "--pane", p1.ID)
	if g := d.GetPane(t, p1.ID); g.State != "live" || g.Terminating {
		t.Errorf("a refused removal touched the pane: %+v", g)
	}

	if line := d.JSON(t, nil, "pane", "remove", "--pane", p1.ID, "--kill"); line != "{}" {
		t.Errorf("pane remove --json printed %s, want the empty reply object {}", line)
	}
	checkGone(t, "after pane remove --kill", p1.PID())
	d.Fail(t, "not_found.pane", exitNotFound, "pane", "get", "--pane", p1.ID)
	_, tabs, _ := d.GetWorkspace(t, w.ID)
	if got := layoutString(tabOf(t, tabs, p1.Tab).Layout); got != p2.ID {
		t.Errorf("layout after removing %s: %s, want %s", p1.ID, got, p2.ID)
	}
	// The layout closes around the removed pane: the sibling gets the whole area back.
	if g := d.GetPane(t, p2.ID); g.Cols != 80 || g.Rows != 24 {
		t.Errorf("after removing its sibling of a cols split of 80x24, %s is %dx%d, want 80x24", p2.ID, g.Cols, g.Rows)
	}

	// An exited pane is removed without --kill; it was the last one, so its tab goes too.
	d.Kill(t, p2.ID)
	if r := d.CLI(t, "pane", "remove", "--pane", p2.ID); r.Code != 0 {
		t.Fatalf("pane remove of an exited pane:\n%s", r)
	}
	wk, _, panes := d.GetWorkspace(t, w.ID)
	if contains(wk.Tabs, p1.Tab) || len(panes) != 0 {
		t.Errorf("after removing the last pane, workspace tabs %v panes %v, want tab %s gone", wk.Tabs, paneIDs(panes), p1.Tab)
	}
	d.Fail(t, "not_found.tab", exitNotFound, "tab", "remove", "--tab", p1.Tab)

	// A program that exits by itself.
	p3 := d.Spawn(t, ws(w), "true")
	g := d.WaitExited(t, p3.ID)
	if g.Status == nil || g.Status.Code == nil || *g.Status.Code != 0 || g.Status.Signal != nil {
		t.Errorf("status of true: %+v, want code 0", g.Status)
	}
	if r := d.CLI(t, "pane", "remove", "--pane", p3.ID); r.Code != 0 {
		t.Fatalf("pane remove:\n%s", r)
	}
	if wk, _, _ = d.GetWorkspace(t, w.ID); len(wk.Tabs) != 0 {
		t.Errorf("workspace still has tabs %v", wk.Tabs)
	}
	d.Fail(t, "not_found.pane", exitNotFound, "pane", "remove", "--pane", p3.ID)
}

// Recursive workspace removal stops the panes; their processes are gone.
func TestCLIRemoveWorkspaceRecursive(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "rec")
	other := d.CreateWorkspace(t, "other")
	keep := sleeper(t, d, other)

	a := sleeper(t, d, w)
	b := d.Spawn(t, []string{"--split", a.ID, "--axis", "rows"}, "sleep", "100")
	c := bash(t, d, ws(w))
	h := d.Spawn(t, ws(w), "bash", "-c", `trap '' HUP; echo ready; exec sleep 100`)
	d.WaitLine(t, h.ID, "ready")
	e := d.Spawn(t, ws(w), "true")
	d.WaitExited(t, e.ID)

	errr := d.Fail(t, "conflict.pane_live", exitConflict, "workspace", "remove", "--workspace", w.Handle)
	if live, ok := errr.Data["panes"].([]any); ok && len(live) != 4 {
		t.Errorf("conflict.pane_live data.panes lists %d panes, want the 4 live ones: %v", len(live), live)
	}
	for _, p := range []harness.Pane{a, b, c, h} {
		if g := d.GetPane(t, p.ID); g.State != "live" || g.Terminating {
			t.Errorf("a refused removal touched pane %s: %+v", p.ID, g)
		}
	}

	if r := d.CLI(t, "workspace", "remove", "--workspace", w.Handle, "--recursive"); r.Code != 0 {
		t.Fatalf("workspace remove --recursive:\n%s", r)
	}
	checkGone(t, "after workspace remove --recursive", a.PID(), b.PID(), c.PID(), h.PID())
	d.Fail(t, "not_found.workspace", exitNotFound, "workspace", "get", "--workspace", w.ID)
	for _, p := range []harness.Pane{a, b, c, h, e} {
		d.Fail(t, "not_found.pane", exitNotFound, "pane", "get", "--pane", p.ID)
	}
	st := d.Status(t)
	if st.Workspaces != 1 || st.Tabs != 1 || st.Panes != 1 || st.LivePanes != 1 {
		t.Errorf("status after removal: %+v, want only the other workspace's pane", st)
	}
	if g := d.GetPane(t, keep.ID); g.State != "live" || harness.Gone(keep.PID()) {
		t.Errorf("removing one workspace touched another's pane: %+v", g)
	}
}

package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// Workspaces on git checkouts (docs/workspaces.md): real repositories made
// here with git init, commits and git worktree add.

type gitState struct {
	Root     string  `json:"root"`
	Branch   *string `json:"branch"`
	Detached bool    `json:"detached"`
	Commit   *string `json:"commit"`
	Dirty    *bool   `json:"dirty"`
	Worktree bool    `json:"worktree"`
	Repo     string  `json:"repo"`
	Missing  bool    `json:"missing"`
}

func (g *gitState) branch() string {
	if g == nil || g.Branch == nil {
		return ""
	}
	return *g.Branch
}

func (g *gitState) dirty() string {
	switch {
	case g == nil || g.Dirty == nil:
		return "unknown"
	case *g.Dirty:
		return "dirty"
	}
	return "clean"
}

type gitWorkspace struct {
	harness.Workspace
	Git *gitState `json:"git"`
}

// gitIn runs git in dir with a fixed identity and no user or system
// configuration, and returns its trimmed output.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// makeRepo makes <new dir>/proj, a repository on main with one commit.
func makeRepo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(harness.TempDir(t), "proj")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "add", "README")
	gitIn(t, dir, "commit", "-q", "-m", "first")
	return dir
}

// repoPicture is what a failed request must leave unchanged around a
// repository: its branches, registered worktrees and the files in and next
// to it (.git excluded).
func repoPicture(t *testing.T, repo string) string {
	t.Helper()
	var files []string
	filepath.Walk(filepath.Dir(repo), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !strings.Contains(p, "/.git") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	return gitIn(t, repo, "branch", "--list") + "\n" + gitIn(t, repo, "worktree", "list", "--porcelain") + "\n" + strings.Join(files, "\n")
}

func createWs(t *testing.T, d *harness.Daemon, args ...string) (gitWorkspace, *harness.Pane) {
	t.Helper()
	var r struct {
		Workspace gitWorkspace  `json:"workspace"`
		Pane      *harness.Pane `json:"pane"`
	}
	d.JSON(t, &r, append([]string{"workspace", "create"}, args...)...)
	return r.Workspace, r.Pane
}

func getWs(t *testing.T, d *harness.Daemon, ref string, refresh bool) gitWorkspace {
	t.Helper()
	args := []string{"workspace", "get", "--workspace", ref}
	if refresh {
		args = append(args, "--refresh-git")
	}
	var r struct {
		Workspace gitWorkspace `json:"workspace"`
	}
	d.JSON(t, &r, args...)
	return r.Workspace
}

func listWs(t *testing.T, d *harness.Daemon) map[string]gitWorkspace {
	t.Helper()
	var r struct {
		Workspaces []gitWorkspace `json:"workspaces"`
	}
	d.JSON(t, &r, "workspace", "list")
	out := map[string]gitWorkspace{}
	for _, w := range r.Workspaces {
		out[w.Handle] = w
	}
	return out
}

func TestWorkspaceGitStateOfCheckouts(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	repo := makeRepo(t)
	head := gitIn(t, repo, "rev-parse", "HEAD")

	plain, _ := createWs(t, d, "--name", "plain", "--cwd", repo)
	if g := plain.Git; g == nil || g.Root != repo || g.branch() != "main" || g.Detached || g.dirty() != "clean" ||
		g.Worktree || g.Repo != repo || g.Missing || g.Commit == nil || *g.Commit != head {
		t.Fatalf("plain checkout: git = %+v", plain.Git)
	}

	events := d.Subscribe(t, []string{"workspace.git_changed"}, []string{plain.ID})
	os.WriteFile(filepath.Join(repo, "README"), []byte("changed\n"), 0o644)
	if g := getWs(t, d, "plain", false).Git; g.dirty() != "clean" {
		t.Fatalf("the git state changed without a refresh (it must never be polled): %s", g.dirty())
	}
	if g := getWs(t, d, "plain", true).Git; g.dirty() != "dirty" {
		t.Fatalf("after get --refresh-git of a changed checkout: %s, want dirty", g.dirty())
	}
	e := events.WaitFor(t, harness.PollTimeout, "workspace.git_changed", func(e harness.Event) bool { return e.Type == "workspace.git_changed" })
	if e.Data["dirty"] != true || e.Data["branch"] != "main" || e.Data["present"] != true {
		t.Fatalf("workspace.git_changed data = %v", e.Data)
	}
	gitIn(t, repo, "checkout", "-q", "--", "README")

	gitIn(t, repo, "checkout", "-q", "--detach")
	if g := getWs(t, d, "plain", true).Git; !g.Detached || g.Branch != nil || g.Commit == nil || *g.Commit != head {
		t.Fatalf("detached HEAD: git = %+v", g)
	}
	gitIn(t, repo, "checkout", "-q", "main")
	if g := getWs(t, d, "plain", true).Git; g.branch() != "main" || g.Detached {
		t.Fatalf("back on main: git = %+v", g)
	}

	wt := filepath.Join(filepath.Dir(repo), "linked")
	gitIn(t, repo, "worktree", "add", "-q", "-b", "side", wt)
	linked, _ := createWs(t, d, "--name", "linked", "--cwd", wt)
	if g := linked.Git; g == nil || g.Root != wt || !g.Worktree || g.Repo != repo || g.branch() != "side" {
		t.Fatalf("linked worktree: git = %+v", linked.Git)
	}

	none, _ := createWs(t, d, "--name", "none", "--cwd", d.Home)
	if none.Git != nil {
		t.Fatalf("a workspace outside git has git state %+v", none.Git)
	}
	var moved struct {
		Workspace gitWorkspace `json:"workspace"`
	}
	d.JSON(t, &moved, "workspace", "set-cwd", "--workspace", "none", "--cwd", wt)
	if g := moved.Workspace.Git; moved.Workspace.Cwd != wt || g == nil || g.branch() != "side" || !g.Worktree {
		t.Fatalf("after set-cwd into a worktree: %+v, git %+v", moved.Workspace.Workspace, g)
	}

	out := d.CLI(t, "workspace", "list")
	for _, want := range []string{"BRANCH", "GIT", "main", "side", "clean,worktree"} {
		if !strings.Contains(out.Stdout, want) {
			t.Errorf("workspace list does not show %q:\n%s", want, out.Stdout)
		}
	}
}

func TestWorkspaceWithoutGitProgramHasNoGitState(t *testing.T) {
	t.Parallel()
	repo := makeRepo(t)
	noGit := harness.TempDir(t) // an empty PATH directory: no git to be found
	d := harness.Start(t, harness.Options{Env: []string{"PATH=" + noGit}})
	w, _ := createWs(t, d, "--cwd", repo)
	if w.Git != nil {
		t.Fatalf("without git the workspace has git state %+v", w.Git)
	}
	if g := getWs(t, d, w.ID, true).Git; g != nil {
		t.Fatalf("refresh without git: %+v", g)
	}
	d.Fail(t, "unavailable.git", exitUnavailable, "workspace", "create", "--worktree", "x", "--repo", repo)
}

func TestWorktreeWorkspaceForNewAndExistingBranch(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	repo := makeRepo(t)
	first := gitIn(t, repo, "rev-parse", "HEAD")
	gitIn(t, repo, "commit", "-q", "--allow-empty", "-m", "second")
	gitIn(t, repo, "branch", "old", first)

	fresh, _ := createWs(t, d, "--worktree", "feature/new", "--repo", repo)
	want := filepath.Join(filepath.Dir(repo), "proj-worktrees", "feature", "new")
	if fresh.Cwd != want || fresh.Name != "feature/new" {
		t.Fatalf("new branch: cwd %s name %q, want cwd %s", fresh.Cwd, fresh.Name, want)
	}
	if g := fresh.Git; g == nil || g.Root != want || !g.Worktree || g.Repo != repo || g.branch() != "feature/new" ||
		*g.Commit != gitIn(t, repo, "rev-parse", "main") {
		t.Fatalf("new branch: git = %+v", fresh.Git)
	}
	if gitIn(t, want, "branch", "--show-current") != "feature/new" {
		t.Fatal("the worktree is not on its branch")
	}

	old, _ := createWs(t, d, "--worktree", "old", "--repo", repo)
	if g := old.Git; g.branch() != "old" || *g.Commit != first {
		t.Fatalf("existing branch: git = %+v (want old at %s)", g, first)
	}

	from, _ := createWs(t, d, "--worktree", "from-first", "--from", first, "--repo", filepath.Join(repo, "."))
	if g := from.Git; g.branch() != "from-first" || *g.Commit != first {
		t.Fatalf("--from: git = %+v", g)
	}

	// --repo naming a linked worktree puts the new one next to the main repository.
	nested, _ := createWs(t, d, "--worktree", "nested", "--repo", want)
	if nested.Cwd != filepath.Join(filepath.Dir(repo), "proj-worktrees", "nested") || nested.Git.Repo != repo {
		t.Fatalf("--repo in a linked worktree: cwd %s git %+v", nested.Cwd, nested.Git)
	}

	// With a program: it starts in the worktree.
	ws, p := createWs(t, d, "--worktree", "agent", "--repo", repo, "--", "sh", "-c", `echo "in $(pwd) on $(git branch --show-current)"; exec sleep 100`)
	if p == nil || p.Workspace != ws.ID || p.Cwd != ws.Cwd {
		t.Fatalf("create with a program: workspace %+v pane %+v", ws, p)
	}
	d.WaitLine(t, p.ID, "in "+ws.Cwd+" on agent")
}

func TestWorktreeRootIsConfigurable(t *testing.T) {
	t.Parallel()
	root := harness.TempDir(t)
	d := harness.Start(t, harness.Options{Env: []string{"SIGNALTTY_WORKTREE_ROOT=" + root}})
	repo := makeRepo(t)
	w, _ := createWs(t, d, "--worktree", "feat", "--repo", repo)
	if want := filepath.Join(root, "proj", "feat"); w.Cwd != want {
		t.Fatalf("cwd %s, want %s", w.Cwd, want)
	}
}

func TestWorktreeErrorsLeaveNothingBehind(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	repo := makeRepo(t)
	gitIn(t, repo, "branch", "taken")
	os.MkdirAll(filepath.Join(filepath.Dir(repo), "proj-worktrees", "occupied"), 0o755)
	notRepo := harness.TempDir(t)
	for _, c := range []struct {
		name string
		args []string
		code string
		exit int
	}{
		{"branch exists", []string{"--worktree", "taken", "--from", "main", "--repo", repo}, "conflict.branch_exists", exitConflict},
		{"path exists", []string{"--worktree", "occupied", "--repo", repo}, "conflict.path_exists", exitConflict},
		{"not a repository", []string{"--worktree", "x", "--repo", notRepo}, "invalid_params.repo", exitInvalid},
		{"unknown start point", []string{"--worktree", "x", "--from", "no-such-ref", "--repo", repo}, "invalid_params.from", exitInvalid},
		{"bad branch name", []string{"--worktree", "a..b", "--repo", repo}, "invalid_params.worktree", exitInvalid},
		{"checked out elsewhere", []string{"--worktree", "main", "--repo", repo}, "conflict.branch_checked_out", exitConflict},
		{"cwd with worktree", []string{"--worktree", "x", "--repo", repo, "--cwd", repo}, "invalid_params.cwd", exitInvalid},
		{"worktree without repo", []string{"--worktree", "x"}, "invalid_params.repo", exitInvalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := repoPicture(t, repo)
			world := d.TakeWorld(t)
			e := d.Fail(t, c.code, c.exit, append([]string{"workspace", "create"}, c.args...)...)
			world.Unchanged(t, c.name)
			if c.code == "conflict.path_exists" && e.Data["path"] != filepath.Join(filepath.Dir(repo), "proj-worktrees", "occupied") {
				t.Errorf("data = %v, want the path", e.Data)
			}
			if after := repoPicture(t, repo); after != before {
				t.Fatalf("left behind:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
	t.Run("program that cannot start", func(t *testing.T) {
		before := repoPicture(t, repo)
		d.Fail(t, "unavailable.spawn", exitUnavailable, "workspace", "create", "--worktree", "doomed", "--repo", repo, "--", "/nonexistent/agent")
		if after := repoPicture(t, repo); after != before {
			t.Fatalf("left behind:\nbefore:\n%s\nafter:\n%s", before, after)
		}
		if ws := listWs(t, d); len(ws) != 0 {
			t.Fatalf("workspaces left: %v", ws)
		}
	})
}

func TestRemovingWorkspaceKeepsWorktree(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	repo := makeRepo(t)
	w, p := createWs(t, d, "--worktree", "keep", "--repo", repo, "--", "sleep", "100")
	if p == nil {
		t.Fatal("no pane")
	}
	d.CLI(t, "workspace", "remove", "--workspace", w.ID, "--recursive")
	if _, err := os.Stat(filepath.Join(w.Cwd, "README")); err != nil {
		t.Fatalf("removing the workspace touched its worktree: %v", err)
	}
	if !strings.Contains(gitIn(t, repo, "worktree", "list", "--porcelain"), "worktree "+w.Cwd) ||
		gitIn(t, repo, "branch", "--list", "keep") == "" {
		t.Fatal("the worktree or its branch is gone from the repository")
	}

	// --remove-worktree: refused while dirty (nothing removed), done when clean.
	dirty, _ := createWs(t, d, "--worktree", "scratch", "--repo", repo)
	os.WriteFile(filepath.Join(dirty.Cwd, "wip.txt"), []byte("work in progress\n"), 0o644)
	e := d.Fail(t, "conflict.worktree_dirty", exitConflict, "workspace", "remove", "--workspace", dirty.ID, "--remove-worktree")
	if e.Data["workspace_removed"] != false {
		t.Errorf("data = %v", e.Data)
	}
	if _, ok := listWs(t, d)["scratch"]; !ok {
		t.Fatal("a refused removal removed the workspace")
	}
	if _, err := os.Stat(filepath.Join(dirty.Cwd, "wip.txt")); err != nil {
		t.Fatal("a refused removal touched the worktree")
	}
	os.Remove(filepath.Join(dirty.Cwd, "wip.txt"))
	out := d.CLI(t, "workspace", "remove", "--workspace", dirty.ID, "--remove-worktree")
	if out.Code != 0 || !strings.Contains(out.Stdout, "removed worktree "+dirty.Cwd) || !strings.Contains(out.Stdout, "branch scratch kept") {
		t.Fatalf("remove --remove-worktree: %s", out)
	}
	if _, err := os.Stat(dirty.Cwd); !os.IsNotExist(err) {
		t.Fatalf("the worktree directory is still there: %v", err)
	}
	if gitIn(t, repo, "branch", "--list", "scratch") == "" {
		t.Fatal("the branch went with its worktree")
	}

	plain, _ := createWs(t, d, "--name", "main-checkout", "--cwd", repo)
	d.Fail(t, "conflict.not_a_worktree", exitConflict, "workspace", "remove", "--workspace", plain.ID, "--remove-worktree")
	if _, err := os.Stat(filepath.Join(repo, "README")); err != nil {
		t.Fatal(err)
	}
}

func TestRestartRecoversWorktreeAssociation(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	repo := makeRepo(t)
	kept, _ := createWs(t, d, "--worktree", "kept", "--repo", repo, "--", "sleep", "100")
	var viaCtl struct {
		Workspace gitWorkspace  `json:"workspace"`
		Pane      *harness.Pane `json:"pane"`
	}
	d.VarlinkCall(t, "dev.signaltty.Mux.CreateWorkspace",
		map[string]any{"worktree": "deleted", "repo": repo, "argv": []string{"sleep", "100"}}, &viaCtl)
	gone := viaCtl.Workspace
	if gone.Git == nil || !gone.Git.Worktree || viaCtl.Pane == nil {
		t.Fatalf("CreateWorkspace through varlinkctl: %+v", viaCtl)
	}
	plain, _ := createWs(t, d, "--name", "plain", "--cwd", repo)
	d.Stop(t)

	var snap struct {
		Workspaces []struct {
			ID  string    `json:"id"`
			Git *gitState `json:"git"`
		} `json:"workspaces"`
	}
	b, err := os.ReadFile(filepath.Join(stateDir(d), "snapshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(b, &snap)
	saved := map[string]*gitState{}
	for _, w := range snap.Workspaces {
		saved[w.ID] = w.Git
	}
	if g := saved[kept.ID]; g == nil || !g.Worktree || g.Repo != repo || g.branch() != "kept" {
		t.Fatalf("snapshot.json git of a worktree workspace: %+v", g)
	}
	if g := saved[plain.ID]; g == nil || g.Worktree || g.Root != repo {
		t.Fatalf("snapshot.json git of a checkout: %+v", g)
	}

	// While the daemon is down: one worktree is deleted (not pruned), the
	// other gets a commit on a new branch.
	if err := os.RemoveAll(gone.Cwd); err != nil {
		t.Fatal(err)
	}
	gitIn(t, kept.Cwd, "checkout", "-q", "-b", "kept-2")

	d2 := harness.Start(t, harness.Options{Dir: d.Dir})
	ws := listWs(t, d2)
	if g := ws["kept"].Git; g == nil || !g.Worktree || g.Repo != repo || g.branch() != "kept-2" || g.Missing {
		t.Fatalf("after the restart, the worktree that stayed: %+v", g)
	}
	if g := ws["deleted"].Git; g == nil || !g.Missing || !g.Worktree || g.Repo != repo || g.branch() != "deleted" || g.Root != gone.Cwd {
		t.Fatalf("after the restart, the deleted worktree: %+v", g)
	}
	if g := ws["plain"].Git; g == nil || g.Missing || g.branch() != "main" {
		t.Fatalf("after the restart, the main checkout: %+v", g)
	}
	if out := d2.CLI(t, "workspace", "list"); !strings.Contains(out.Stdout, "missing,worktree") {
		t.Errorf("workspace list does not show the missing worktree:\n%s", out.Stdout)
	}
	var got struct {
		Workspace gitWorkspace `json:"workspace"`
	}
	d2.VarlinkCall(t, "dev.signaltty.Mux.GetWorkspace", map[string]any{"workspace": "deleted", "refresh_git": true}, &got)
	if g := got.Workspace.Git; g == nil || !g.Missing || g.branch() != "deleted" {
		t.Fatalf("GetWorkspace refresh_git of the deleted worktree: %+v", g)
	}
	for _, p := range restoredPanes(t, d2) {
		if p.RestoreState != "RESTORED" || p.State != "exited" {
			t.Errorf("pane %s after the restart: %s %s, want a RESTORED tombstone", p.ID, p.RestoreState, p.State)
		}
	}
	d2.Fail(t, "invalid_params.cwd", exitInvalid, "pane", "relaunch", "--pane", viaCtl.Pane.ID)
	if p := d2.GetPane(t, viaCtl.Pane.ID); p.State != "exited" {
		t.Fatalf("the pane of the missing worktree: %+v", p)
	}
}

// TestThreeAgentsInThreeWorktrees is the new user's path: one command per
// agent, each in its own worktree of one repository.
func TestThreeAgentsInThreeWorktrees(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	repo := makeRepo(t)
	agent := `echo "agent on $(git branch --show-current) in $(basename "$(pwd)")"; exec sleep 100`
	var panes []string
	for _, b := range []string{"agent-1", "agent-2", "agent-3"} {
		out := d.CLI(t, "workspace", "create", "--worktree", b, "--repo", repo, "--", "sh", "-c", agent)
		if out.Code != 0 {
			t.Fatalf("workspace create --worktree %s: %s", b, out)
		}
		ws := listWs(t, d)[b]
		_, _, ps := d.GetWorkspace(t, b)
		if len(ps) != 1 {
			t.Fatalf("workspace %s has %d panes", b, len(ps))
		}
		d.WaitLine(t, ps[0].ID, "agent on "+b+" in "+filepath.Base(ws.Cwd)) // the whole path may wrap
		panes = append(panes, ps[0].ID)
	}
	list := gitIn(t, repo, "worktree", "list")
	for _, b := range []string{"agent-1", "agent-2", "agent-3"} {
		if !strings.Contains(list, "["+b+"]") {
			t.Errorf("git worktree list lacks %s:\n%s", b, list)
		}
	}
	if len(panes) != 3 {
		t.Fatal(panes)
	}
}

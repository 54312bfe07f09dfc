package gitws

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// repo makes a git repository with one commit in a new directory and
// returns its path.
func repo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "proj")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(dir, "README"), []byte("hello\n"), 0o644)
	git(t, dir, "add", "README")
	git(t, dir, "commit", "-q", "-m", "first")
	return dir
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org", "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func inspect(t *testing.T, dir string) *State {
	t.Helper()
	st, err := (&Git{}).Inspect(context.Background(), dir)
	if err != nil {
		t.Fatalf("Inspect(%s): %v", dir, err)
	}
	return st
}

func TestInspectPlainCheckout(t *testing.T) {
	dir := repo(t)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	st := inspect(t, filepath.Join(dir, "sub"))
	if st == nil || st.Root != dir || st.Branch != "main" || st.Detached || st.Worktree || st.Repo != dir || st.Missing {
		t.Fatalf("state = %+v", st)
	}
	if st.Dirty == nil || *st.Dirty {
		t.Fatalf("dirty = %v, want false", st.Dirty)
	}
	if st.Commit != git(t, dir, "rev-parse", "HEAD") {
		t.Fatalf("commit = %q", st.Commit)
	}
}

func TestInspectDirtyAndUntracked(t *testing.T) {
	dir := repo(t)
	os.WriteFile(filepath.Join(dir, "README"), []byte("changed\n"), 0o644)
	if st := inspect(t, dir); st.Dirty == nil || !*st.Dirty {
		t.Fatalf("a modified file: dirty = %v", st.Dirty)
	}
	git(t, dir, "checkout", "--", "README")
	os.WriteFile(filepath.Join(dir, "new"), []byte("x"), 0o644)
	if st := inspect(t, dir); st.Dirty == nil || !*st.Dirty {
		t.Fatalf("an untracked file: dirty = %v", st.Dirty)
	}
}

func TestInspectDetachedHead(t *testing.T) {
	dir := repo(t)
	head := git(t, dir, "rev-parse", "HEAD")
	git(t, dir, "checkout", "-q", "--detach")
	st := inspect(t, dir)
	if !st.Detached || st.Branch != "" || st.Commit != head {
		t.Fatalf("state = %+v", st)
	}
}

func TestInspectLinkedWorktree(t *testing.T) {
	dir := repo(t)
	wt := filepath.Join(filepath.Dir(dir), "wt")
	git(t, dir, "worktree", "add", "-q", "-b", "side", wt)
	st := inspect(t, wt)
	if st.Root != wt || !st.Worktree || st.Repo != dir || st.Branch != "side" {
		t.Fatalf("state = %+v", st)
	}
}

func TestInspectOutsideGitOrWithoutGit(t *testing.T) {
	if st := inspect(t, t.TempDir()); st != nil {
		t.Fatalf("a directory outside git: %+v", st)
	}
	st, err := (&Git{Path: "/nonexistent/git"}).Inspect(context.Background(), repo(t))
	if st != nil || err != nil {
		t.Fatalf("without git: %+v, %v", st, err)
	}
}

func TestRecoverReportsDeletedWorktreeMissing(t *testing.T) {
	dir := repo(t)
	wt := filepath.Join(filepath.Dir(dir), "wt")
	git(t, dir, "worktree", "add", "-q", "-b", "side", wt)
	saved := inspect(t, wt)
	os.RemoveAll(wt)
	st, err := (&Git{}).Recover(context.Background(), wt, saved, false)
	if err != nil || st == nil || !st.Missing || st.Branch != "side" || st.Repo != dir || st.Dirty != nil {
		t.Fatalf("Recover = %+v, %v", st, err)
	}
}

// snapshotOf lists what a failed add must leave unchanged: branches,
// registered worktrees and the files next to the repository.
func snapshotOf(t *testing.T, dir string) string {
	t.Helper()
	var files []string
	filepath.Walk(filepath.Dir(dir), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !strings.Contains(p, "/.git/") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	return git(t, dir, "branch", "--list") + "\n" + git(t, dir, "worktree", "list", "--porcelain") + "\n" + strings.Join(files, "\n")
}

func TestAddWorktreeFailuresLeaveNothing(t *testing.T) {
	dir := repo(t)
	ctx := context.Background()
	g := &Git{}
	git(t, dir, "branch", "taken")
	os.MkdirAll(filepath.Join(filepath.Dir(dir), "exists"), 0o755)
	for _, c := range []struct {
		name string
		r    AddRequest
		kind string
	}{
		{"branch exists", AddRequest{Path: "x/taken", Branch: "taken", From: "HEAD"}, KindBranchExists},
		{"path exists", AddRequest{Path: "exists", Branch: "new"}, KindPathExists},
		{"unknown start point", AddRequest{Path: "x/new", Branch: "new", From: "no-such-ref"}, KindUnknownRef},
		{"bad branch name", AddRequest{Path: "x/bad", Branch: "bad..name"}, KindBadBranch},
		{"option-like branch", AddRequest{Path: "x/opt", Branch: "-f"}, KindBadBranch},
		{"checked out elsewhere", AddRequest{Path: "x/main", Branch: "main"}, KindBranchCheckedOut},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := snapshotOf(t, dir)
			c.r.Repo = dir
			c.r.Path = filepath.Join(filepath.Dir(dir), c.r.Path)
			_, err := g.AddWorktree(ctx, c.r)
			var ge *Error
			if !errors.As(err, &ge) || ge.Kind != c.kind {
				t.Fatalf("err = %v, want kind %s", err, c.kind)
			}
			if after := snapshotOf(t, dir); after != before {
				t.Fatalf("left behind:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

func TestAddAndRemoveWorktree(t *testing.T) {
	dir := repo(t)
	ctx := context.Background()
	g := &Git{}
	root := filepath.Join(filepath.Dir(dir), "proj-worktrees")
	path := filepath.Join(root, "feature", "one")
	a, err := g.AddWorktree(ctx, AddRequest{Repo: dir, Path: path, Branch: "feature/one"})
	if err != nil || !a.NewBranch {
		t.Fatalf("AddWorktree = %+v, %v", a, err)
	}
	if st := inspect(t, path); st.Branch != "feature/one" || !st.Worktree {
		t.Fatalf("state = %+v", st)
	}
	os.WriteFile(filepath.Join(path, "wip"), []byte("x"), 0o644)
	var ge *Error
	if err := g.RemoveWorktree(ctx, dir, path, root); !errors.As(err, &ge) || ge.Kind != KindDirty {
		t.Fatalf("removing a dirty worktree: %v", err)
	}
	os.Remove(filepath.Join(path, "wip"))
	if err := g.RemoveWorktree(ctx, dir, path, root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "feature")); !os.IsNotExist(err) {
		t.Fatalf("the emptied directory between the root and the worktree stayed: %v", err)
	}
	if git(t, dir, "branch", "--list", "feature/one") == "" {
		t.Fatal("the branch was removed with its worktree")
	}
	if err := g.RemoveWorktree(ctx, dir, dir, root); !errors.As(err, &ge) || ge.Kind != KindNotWorktree {
		t.Fatalf("removing the main worktree: %v", err)
	}
}

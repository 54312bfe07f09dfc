package gitws

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// AddRequest asks for a linked worktree of Repo at Path on Branch.
type AddRequest struct {
	Repo   string // a directory of the repository (its main worktree, usually)
	Path   string // absolute directory of the new worktree; must not exist
	Branch string // the branch to check out there
	// From is the start point of a new branch ("" = the repository's HEAD).
	// With From set the branch must not exist yet; without it an existing
	// branch is checked out, and a missing one is made from HEAD.
	From string
}

// Added is a worktree AddWorktree made, and what UndoAdd needs.
type Added struct {
	Path      string
	Branch    string
	NewBranch bool     // the branch was created for it
	madeDirs  []string // directories made for it, deepest first
	repo      string
}

// CheckBranchName fails with KindBadBranch unless name is a valid branch
// name for git (git check-ref-format --branch) that does not start with "-".
func (g *Git) CheckBranchName(ctx context.Context, name string) error {
	if name == "" || strings.HasPrefix(name, "-") || strings.HasPrefix(name, "@") {
		return fail(KindBadBranch, "", "%q is not a valid branch name", name)
	}
	r, err := g.run(ctx, string(filepath.Separator), "check-ref-format", "--branch", name)
	if err != nil {
		return err
	}
	if r.code != 0 {
		return fail(KindBadBranch, "", "%q is not a valid branch name", name)
	}
	return nil
}

// AddWorktree runs git worktree add for r (docs/workspaces.md, "A worktree
// per agent"). On failure nothing it made is left: no directory, branch or
// worktree registration. Errors: *Error of kind KindBadBranch,
// KindPathExists, KindBranchExists, KindUnknownRef, KindBranchCheckedOut,
// KindNotRepository, KindFailed; ErrNoGit.
func (g *Git) AddWorktree(ctx context.Context, r AddRequest) (*Added, error) {
	if err := g.CheckBranchName(ctx, r.Branch); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(r.Path); err == nil {
		return nil, withPath(fail(KindPathExists, "", "%s already exists", r.Path), r.Path)
	}
	exists, err := g.branchExists(ctx, r.Repo, r.Branch)
	if err != nil {
		return nil, err
	}
	args := []string{"worktree", "add"}
	a := &Added{Path: r.Path, Branch: r.Branch, repo: r.Repo}
	switch {
	case exists && r.From != "":
		return nil, fail(KindBranchExists, "", "branch %q already exists (leave out the start point to check it out)", r.Branch)
	case exists:
		args = append(args, "--", r.Path, r.Branch)
	default:
		from := r.From
		if from == "" {
			from = "HEAD"
		}
		oid, err := g.resolveCommit(ctx, r.Repo, from)
		if err != nil {
			return nil, err
		}
		a.NewBranch = true
		args = append(args, "-b", r.Branch, "--", r.Path, oid)
	}
	if a.madeDirs, err = missingDirs(filepath.Dir(r.Path)); err != nil {
		return nil, fail(KindFailed, "", "cannot check %s: %v", r.Path, err)
	}
	res, err := g.run(ctx, r.Repo, args...)
	if err == nil && res.code == 0 {
		return a, nil
	}
	g.UndoAdd(context.WithoutCancel(ctx), a)
	if err != nil {
		return nil, err
	}
	switch msg := res.stderr; {
	case strings.Contains(msg, "already checked out"), strings.Contains(msg, "already used by worktree"):
		return nil, fail(KindBranchCheckedOut, msg, "branch %q is checked out in another worktree", r.Branch)
	case strings.Contains(msg, "already exists"):
		return nil, withPath(fail(KindPathExists, msg, "%s already exists", r.Path), r.Path)
	default:
		return nil, fail(KindFailed, msg, "git worktree add failed")
	}
}

// UndoAdd removes what AddWorktree made: the worktree (with whatever is in
// it), its registration, a branch made for it and directories made for it.
// It is for a worktree nobody used yet: a request that failed after adding.
func (g *Git) UndoAdd(ctx context.Context, a *Added) {
	if fi, err := os.Lstat(a.Path); err == nil && fi.IsDir() {
		_, _ = g.run(ctx, a.repo, "worktree", "remove", "--force", "--force", "--", a.Path)
		_ = os.RemoveAll(a.Path) // git refused or did not register it
	}
	_, _ = g.run(ctx, a.repo, "worktree", "prune")
	if a.NewBranch {
		if ok, _ := g.branchExists(ctx, a.repo, a.Branch); ok {
			_, _ = g.run(ctx, a.repo, "branch", "-D", a.Branch)
		}
	}
	for _, d := range a.madeDirs {
		_ = os.Remove(d) // only when empty
	}
}

// RemoveWorktree removes the linked worktree at path of the repository
// holding repo, only when it is clean: no changes, no untracked files, not
// locked (git worktree remove without --force). Its branch stays. Empty
// directories between path and stop (exclusive) are removed as well.
// Errors: *Error of kind KindNotWorktree, KindDirty, KindLocked, KindFailed.
func (g *Git) RemoveWorktree(ctx context.Context, repo, path, stop string) error {
	wts, err := g.Worktrees(ctx, repo)
	if err != nil {
		return err
	}
	found := false
	for i, wt := range wts {
		if i > 0 && filepath.Clean(wt.Path) == filepath.Clean(path) {
			found = true
		}
	}
	if !found {
		return fail(KindNotWorktree, "", "%s is not a linked worktree of %s", path, repo)
	}
	r, err := g.run(ctx, repo, "worktree", "remove", "--", path)
	if err != nil {
		return err
	}
	if r.code != 0 {
		switch msg := r.stderr; {
		case strings.Contains(msg, "modified or untracked"), strings.Contains(msg, "untracked"):
			return withPath(fail(KindDirty, msg, "worktree %s has changes or untracked files; it was kept", path), path)
		case strings.Contains(msg, "locked"):
			return withPath(fail(KindLocked, msg, "worktree %s is locked; it was kept", path), path)
		default:
			return fail(KindFailed, msg, "git worktree remove failed")
		}
	}
	if stop != "" {
		for d := filepath.Dir(path); strings.HasPrefix(d, stop+string(filepath.Separator)); d = filepath.Dir(d) {
			if os.Remove(d) != nil {
				break
			}
		}
	}
	return nil
}

func (g *Git) branchExists(ctx context.Context, repo, branch string) (bool, error) {
	r, err := g.run(ctx, repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	if errors.Is(err, errNoDir) {
		return false, fail(KindNotRepository, "", "%s does not exist", repo)
	}
	if err != nil {
		return false, err
	}
	if r.code == 128 || (r.code != 0 && r.stderr != "") {
		return false, fail(KindNotRepository, r.stderr, "%s is not in a git repository", repo)
	}
	return r.code == 0, nil
}

func (g *Git) resolveCommit(ctx context.Context, repo, ref string) (string, error) {
	if strings.HasPrefix(ref, "-") {
		return "", fail(KindUnknownRef, "", "%q names no commit", ref)
	}
	r, err := g.run(ctx, repo, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err != nil {
		return "", err
	}
	if r.code != 0 {
		return "", fail(KindUnknownRef, r.stderr, "%q names no commit in %s", ref, repo)
	}
	return strings.TrimSpace(r.stdout), nil
}

func withPath(e *Error, path string) *Error {
	e.Path = path
	return e
}

// missingDirs lists dir and its ancestors that do not exist, deepest first.
func missingDirs(dir string) ([]string, error) {
	var out []string
	for d := dir; ; d = filepath.Dir(d) {
		_, err := os.Lstat(d)
		if err == nil {
			return out, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		out = append(out, d)
		if filepath.Dir(d) == d {
			return out, nil
		}
	}
}

package gitws

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
)

// State is the git state of a directory (docs/workspaces.md, "Git state").
type State struct {
	Root     string // top directory of the working tree holding the directory
	Branch   string // checked-out branch (short name); "" when detached
	Detached bool   // HEAD is a commit, not a branch
	Commit   string // full id of the HEAD commit; "" before the first commit
	Dirty    *bool  // changes or untracked files; nil when unknown
	Worktree bool   // Root is a linked worktree (git worktree add), not the main one
	Repo     string // the main worktree of the repository (Root itself for a main checkout)
	Missing  bool   // Root was a checkout and is gone (only from Recover)
}

// Equal reports whether two states say the same (nil is no git state).
func Equal(a, b *State) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, y := *a, *b
	x.Dirty, y.Dirty = nil, nil
	return x == y && (a.Dirty == nil) == (b.Dirty == nil) && (a.Dirty == nil || *a.Dirty == *b.Dirty)
}

// Inspect returns the git state of dir: nil (and no error) when dir is not
// in a git working tree or git is not installed. It runs git rev-parse,
// git status and, for a linked worktree, git worktree list.
func (g *Git) Inspect(ctx context.Context, dir string) (*State, error) {
	r, err := g.run(ctx, dir, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir")
	switch {
	case errors.Is(err, ErrNoGit), errors.Is(err, errNoDir):
		return nil, nil
	case err != nil:
		return nil, err
	case r.code != 0: // not a repository, or not a working tree (a bare repository, inside .git)
		return nil, nil
	}
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if len(lines) != 3 {
		return nil, fail(KindFailed, r.stdout, "unexpected git rev-parse output in %s", dir)
	}
	st := &State{Root: lines[0], Repo: lines[0]}
	st.Worktree = filepath.Clean(lines[1]) != filepath.Clean(lines[2])
	if err := g.status(ctx, st); err != nil {
		return nil, err
	}
	if st.Worktree {
		wts, err := g.Worktrees(ctx, st.Root)
		if err != nil {
			return nil, err
		}
		if len(wts) > 0 {
			st.Repo = wts[0].Path // git lists the main worktree first
		}
	}
	return st, nil
}

// status fills branch, commit and dirty from git status --porcelain=v2.
func (g *Git) status(ctx context.Context, st *State) error {
	r, err := g.run(ctx, st.Root, "status", "--porcelain=v2", "--branch", "--untracked-files=normal", "--ignore-submodules=dirty")
	if err != nil {
		return err
	}
	if r.code != 0 {
		return nil // state without branch and dirty flag: git could not say (a broken index, …)
	}
	dirty := false
	for _, line := range strings.Split(r.stdout, "\n") {
		switch {
		case line == "":
		case strings.HasPrefix(line, "# branch.oid "):
			if oid := strings.TrimPrefix(line, "# branch.oid "); oid != "(initial)" {
				st.Commit = oid
			}
		case strings.HasPrefix(line, "# branch.head "):
			if h := strings.TrimPrefix(line, "# branch.head "); h == "(detached)" {
				st.Detached = true
			} else {
				st.Branch = h
			}
		case strings.HasPrefix(line, "#"):
		default:
			dirty = true
		}
	}
	st.Dirty = &dirty
	return nil
}

// Worktree is one entry of git worktree list --porcelain.
type Worktree struct {
	Path     string
	Commit   string // HEAD
	Branch   string // short name; "" when detached or bare
	Detached bool
	Bare     bool
	Locked   bool
	Prunable bool // git found its directory gone
}

// Worktrees lists the worktrees registered in the repository holding dir,
// the main one first (git worktree list --porcelain).
func (g *Git) Worktrees(ctx context.Context, dir string) ([]Worktree, error) {
	r, err := g.run(ctx, dir, "worktree", "list", "--porcelain")
	if err != nil && !errors.Is(err, errNoDir) {
		return nil, err
	}
	if err != nil || r.code != 0 {
		return nil, fail(KindNotRepository, r.stderr, "%s is not in a git repository", dir)
	}
	return parseWorktrees(r.stdout), nil
}

func parseWorktrees(out string) []Worktree {
	var list []Worktree
	var cur *Worktree
	for _, line := range strings.Split(out, "\n") {
		key, val, _ := strings.Cut(line, " ")
		if key == "worktree" {
			list = append(list, Worktree{Path: val})
			cur = &list[len(list)-1]
			continue
		}
		if cur == nil {
			continue
		}
		switch key {
		case "HEAD":
			cur.Commit = val
		case "branch":
			cur.Branch = strings.TrimPrefix(val, "refs/heads/")
		case "detached":
			cur.Detached = true
		case "bare":
			cur.Bare = true
		case "locked":
			cur.Locked = true
		case "prunable":
			cur.Prunable = true
		}
	}
	return list
}

// Recover is the git state of a directory after a restart, given the state
// saved for it: Inspect when the directory exists; else, when it was a
// linked worktree, the saved state marked Missing with what the main
// repository still registers for it (git worktree list); else, when it was
// a checkout at all, the saved state marked Missing; nil otherwise.
func (g *Git) Recover(ctx context.Context, dir string, saved *State, dirExists bool) (*State, error) {
	if dirExists {
		return g.Inspect(ctx, dir)
	}
	if saved == nil {
		return nil, nil
	}
	st := *saved
	st.Missing, st.Dirty = true, nil
	if st.Worktree && st.Repo != "" {
		if wts, err := g.Worktrees(ctx, st.Repo); err == nil {
			for _, wt := range wts {
				if filepath.Clean(wt.Path) == filepath.Clean(st.Root) {
					st.Branch, st.Detached, st.Commit = wt.Branch, wt.Detached, wt.Commit
				}
			}
		}
	}
	return &st, nil
}

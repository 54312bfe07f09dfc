package service

import "strings"

// Checks of the workspace requests that involve git worktrees
// (docs/workspaces.md, "A worktree per agent"). Whether the branch name is
// one git accepts, and whether the start point names a commit, only git
// can say: gitws checks those, outside s.mu.

// maxRef is the longest branch name or start point, in bytes.
const maxRef = 1024

// checkWorktree validates r and fills its defaults.
func checkWorktree(r *WorktreeRequest) *Error {
	if r.Branch == "" {
		return invalid("worktree", "missing", "worktree (the branch) is required")
	}
	if len(r.Branch) > maxRef || len(r.From) > maxRef {
		return invalid("worktree", "size", "branch names and start points are at most %d bytes", maxRef)
	}
	if strings.ContainsRune(r.Branch, 0) || strings.ContainsRune(r.From, 0) {
		return invalid("worktree", "nul", "branch names and start points must not contain NUL")
	}
	if r.Cwd != "" {
		return invalid("cwd", "exclusive", "cwd and worktree are exclusive: the workspace's cwd is the new worktree")
	}
	if r.Repo == "" {
		return invalid("repo", "missing", "repo (a directory of the repository) is required with worktree")
	}
	repo, err := checkDir("repo", r.Repo)
	if err != nil {
		return err
	}
	r.Repo = repo
	if r.Name == "" {
		r.Name = r.Branch
	}
	return checkName("name", &r.Name)
}

package service

import "github.com/signaltty/signaltty/service/request"

// Checks of the workspace requests that involve git worktrees
// (docs/workspaces.md, "A worktree per agent"). Whether the branch name is
// one git accepts, and whether the start point names a commit, only git
// can say: gitws checks those, outside s.mu.

// checkWorktree validates r and fills its defaults.
func checkWorktree(r *WorktreeRequest) *Error {
	if err := request.CheckWorktreeRef(r.Branch, r.From); err != nil {
		return err
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

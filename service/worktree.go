package service

import (
	"context"
	"errors"
	"strings"

	"github.com/signaltty/signaltty/gitws"
	"github.com/signaltty/signaltty/service/errcode"
)

// A worktree per agent (docs/workspaces.md): CreateWorkspace with a branch
// runs git worktree add and makes the new worktree the workspace's cwd.
// Like every start (start.go) it reserves under s.mu (the worktree's path,
// so two requests cannot race for it), runs git without s.mu, and commits
// under s.mu if the daemon is not shutting down; a failure undoes what git
// made. Removing a workspace never removes its worktree or branch, unless
// asked to (RemoveWorkspace with removeWorktree), and then only a clean one.

// WorktreeRequest asks for a workspace in a linked worktree
// (Mux.CreateWorkspace with worktree).
type WorktreeRequest struct {
	Name   string // "" = the branch name
	Cwd    string // must be "": the cwd is the worktree
	Repo   string // absolute directory in the repository
	Branch string // the worktree's branch: an existing one, or a new one
	From   string // start point of a new branch ("" = HEAD); with it the branch must be new
}

// NewWorkspace is a CreateWorkspace request in full (Mux.CreateWorkspace).
type NewWorkspace struct {
	Name, Cwd string
	// Branch, when set, asks for a linked worktree of Repo on Branch
	// (from From), which becomes the workspace's cwd.
	Branch, Repo, From string
	// Argv, when set, is started in the workspace's first pane (as SpawnPane
	// with the workspace as target).
	Argv []string
	// Creator and Grants are the first pane's, as in SpawnRequest.
	Creator string
	Grants  []Grant
}

// CreateWorkspaceWith creates a workspace, in a new worktree when
// r.Branch is set, and starts r.Argv in it when set. A failure leaves
// nothing: no workspace, pane, worktree, branch or directory. Errors: those
// of CreateWorkspace and SpawnPane, invalid_params.worktree/.repo/.from,
// conflict.path_exists, conflict.branch_exists,
// conflict.branch_checked_out, unavailable.git.
func (s *Service) CreateWorkspaceWith(ctx context.Context, r NewWorkspace) (Workspace, *Pane, error) {
	if len(r.Argv) > 0 {
		if _, err := checkSpawn(SpawnRequest{Workspace: "-", Argv: r.Argv}); err != nil {
			return Workspace{}, nil, err
		}
		if err := s.limits.checkPaneLimit(); err != nil { // before the workspace (the spawn checks again)
			return Workspace{}, nil, err
		}
	}
	var w Workspace
	var added *gitws.Added
	var err error
	if r.Branch != "" || r.Repo != "" || r.From != "" {
		w, added, err = s.git.createWorkspace(ctx, WorktreeRequest{Name: r.Name, Cwd: r.Cwd, Repo: r.Repo, Branch: r.Branch, From: r.From})
	} else {
		w, err = s.CreateWorkspace(r.Name, r.Cwd)
	}
	if err != nil || len(r.Argv) == 0 {
		return w, nil, err
	}
	p, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: r.Argv, Creator: r.Creator, Grants: r.Grants})
	if err != nil {
		bg := context.WithoutCancel(ctx)
		s.mu.Lock()
		ws := s.workspaces[w.ID]
		s.mu.Unlock()
		if ws != nil {
			_ = s.remove(bg, removal{ws: ws, force: true, cause: CauseRemoval})
		}
		if added != nil {
			s.git.git.UndoAdd(bg, added)
		}
		return Workspace{}, nil, err
	}
	s.mu.Lock()
	if ws := s.workspaces[w.ID]; ws != nil {
		w = ws.snapshot()
	}
	s.mu.Unlock()
	return w, &p, nil
}

// createWorkspace adds a linked worktree of r.Repo on r.Branch
// under the worktree root and creates a workspace whose cwd it is; on
// failure nothing is left.
func (g *Git) createWorkspace(ctx context.Context, r WorktreeRequest) (Workspace, *gitws.Added, error) {
	s := g.s
	if err := checkWorktree(&r); err != nil {
		return Workspace{}, nil, err
	}
	gg := g.git
	repoState, err := gg.Inspect(ctx, r.Repo)
	switch {
	case err != nil:
		return Workspace{}, nil, gitError(err)
	case repoState == nil:
		if !gg.Installed() {
			return Workspace{}, nil, gitError(gitws.ErrNoGit)
		}
		return Workspace{}, nil, invalid("repo", "not_a_repository", "%s is not in a git working tree", r.Repo)
	}
	path, _ := g.worktreePath(repoState.Repo, r.Branch)

	s.mu.Lock() // reserve
	switch {
	case s.stopping:
		s.mu.Unlock()
		return Workspace{}, nil, errcode.Shutdown()
	case !g.reserveLocked(path):
		s.mu.Unlock()
		return Workspace{}, nil, newError(errcode.ConflictPathExists, map[string]any{"path": path}, "a worktree is being added at %s", path)
	}
	s.starts.Add(1) // Shutdown waits for this request to commit or undo
	s.mu.Unlock()
	defer s.starts.Done()

	added, err := gg.AddWorktree(ctx, gitws.AddRequest{Repo: repoState.Repo, Path: path, Branch: r.Branch, From: r.From})
	var st *GitState
	if err == nil {
		st = g.inspect(ctx, path)
	}

	s.mu.Lock() // commit
	g.releaseLocked(path)
	if err != nil {
		s.mu.Unlock()
		return Workspace{}, nil, gitError(err)
	}
	if s.stopping {
		s.mu.Unlock()
		gg.UndoAdd(context.WithoutCancel(ctx), added)
		return Workspace{}, nil, errcode.Shutdown()
	}
	w := s.addWorkspaceLocked(r.Name, path, st)
	s.mu.Unlock()
	s.log.Info("worktree added", "workspace", w.ID, "path", path, "branch", r.Branch, "new_branch", added.NewBranch)
	return w, added, nil
}

// RemovedWorktree says what RemoveWorkspace removed besides the workspace.
type RemovedWorktree struct {
	Path   string // the worktree's directory ("" when none was removed)
	Branch string // its branch, which was kept
}

// RemoveWorkspace removes a workspace (as RemoveWorkspace) and then
// the linked worktree its cwd is in (git worktree remove, without force).
// Nothing is removed unless, before, that worktree is clean and the
// workspace's cwd is a linked worktree; the branch stays. Errors: those of
// RemoveWorkspace, conflict.not_a_worktree, conflict.worktree_dirty,
// conflict.worktree_locked (then data.workspace_removed says whether the
// workspace went already), unavailable.git.
func (g *Git) RemoveWorkspace(ctx context.Context, ref string, recursive bool) (RemovedWorktree, error) {
	s := g.s
	s.mu.Lock()
	w, lerr := s.lookupWorkspace(ref)
	var cwd string
	if lerr == nil {
		cwd = w.cwd
	}
	s.mu.Unlock()
	if lerr != nil {
		return RemovedWorktree{}, lerr
	}
	st := g.inspect(ctx, cwd)
	switch {
	case st == nil || !st.Worktree:
		return RemovedWorktree{}, newError(errcode.ConflictNotAWorktree, map[string]any{"workspace": w.id, "cwd": cwd},
			"the cwd of workspace %s is not in a linked git worktree; nothing was removed", w.id)
	case st.Dirty == nil || *st.Dirty:
		return RemovedWorktree{}, newError(errcode.ConflictWorktreeDirty, map[string]any{"workspace": w.id, "worktree": st.Root, "workspace_removed": false},
			"worktree %s has changes or untracked files; nothing was removed", st.Root)
	}
	if err := s.remove(ctx, removal{ws: w, force: recursive, cause: CauseRemoval}); err != nil {
		return RemovedWorktree{}, err
	}
	_, root := g.worktreePath(st.Repo, st.Branch)
	if err := g.git.RemoveWorktree(ctx, st.Repo, st.Root, root); err != nil {
		e := gitError(err)
		e.Data["workspace_removed"] = true
		e.Message = "the workspace was removed, its worktree kept: " + e.Message
		return RemovedWorktree{}, e
	}
	s.log.Info("worktree removed", "workspace", w.id, "path", st.Root, "branch", st.Branch)
	return RemovedWorktree{Path: st.Root, Branch: st.Branch}, nil
}

// gitError maps a gitws failure to the service's errors (docs/errors.md).
func gitError(err error) *Error {
	var ge *gitws.Error
	if errors.Is(err, gitws.ErrNoGit) {
		return newError(errcode.UnavailableGit, nil, "git is not installed (no git in PATH)")
	}
	if !errors.As(err, &ge) {
		return newError(errcode.UnavailableGit, nil, "running git failed: %v", err)
	}
	data := map[string]any{}
	if ge.Stderr != "" {
		msg := ge.Stderr
		if len(msg) > 1024 {
			msg = msg[:1024]
		}
		data["git"] = strings.TrimSpace(msg)
	}
	if ge.Path != "" {
		data["path"] = ge.Path
	}
	param := func(p, reason string) *Error {
		data["param"], data["reason"] = p, reason
		return newError(errcode.InvalidParams(p), data, "%s", ge.Msg)
	}
	switch ge.Kind {
	case gitws.KindNotRepository:
		return param("repo", "not_a_repository")
	case gitws.KindBadBranch:
		return param("worktree", "branch_name")
	case gitws.KindUnknownRef:
		return param("from", "unknown_ref")
	}
	code := map[string]errcode.Code{
		gitws.KindPathExists:       errcode.ConflictPathExists,
		gitws.KindBranchExists:     errcode.ConflictBranchExists,
		gitws.KindBranchCheckedOut: errcode.ConflictBranchCheckedOut,
		gitws.KindDirty:            errcode.ConflictWorktreeDirty,
		gitws.KindLocked:           errcode.ConflictWorktreeLocked,
		gitws.KindNotWorktree:      errcode.ConflictNotAWorktree,
	}[ge.Kind]
	if code == "" {
		code = errcode.UnavailableGit
	}
	return newError(code, data, "%s", ge.Msg)
}

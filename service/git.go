package service

import (
	"context"
	"os"
	"path/filepath"
	"sync"

	"github.com/signaltty/signaltty/gitws"
	"github.com/signaltty/signaltty/service/events"
	"github.com/signaltty/signaltty/snapshot"
)

// A workspace's git state (docs/workspaces.md, "Git state") is computed by
// running git, which is process and disk work: never under s.mu. A refresh
// reads the workspace's cwd under s.mu, runs git without it, and stores
// the result under s.mu only if the cwd is still the one it inspected and
// no later refresh stored first. It happens when a workspace is created,
// when its cwd changes, on request (GetWorkspace with refresh) and after a
// restore; never on a timer.

// GitState is a workspace's git state; nil when its cwd is not in a git
// working tree or git is not installed.
type GitState = gitws.State

// gitState is the git bookkeeping of a Service; s.mu guards adding.
type gitState struct {
	git    *gitws.Git
	root   string          // where worktrees go ("" = next to each repository)
	adding map[string]bool // worktree paths being added (worktree.go)
}

func newGitState(cfg Config) gitState {
	return gitState{git: &gitws.Git{Env: cfg.Environ}, root: cfg.WorktreeRoot, adding: map[string]bool{}}
}

// gitRefresh is a refresh begun under s.mu.
type gitRefresh struct {
	w      *workspace
	cwd    string
	cwdGen uint64
	ticket uint64
}

// beginGit starts a refresh of w; s.mu is held.
func (s *Service) beginGit(w *workspace) gitRefresh {
	w.gitTicket++
	return gitRefresh{w: w, cwd: w.cwd, cwdGen: w.cwdGen, ticket: w.gitTicket}
}

// endGit stores a refresh's result if it still applies, with its event
// when the state changed; s.mu is held.
func (s *Service) endGit(r gitRefresh, st *GitState) {
	w := r.w
	if s.workspaces[w.id] != w || w.cwdGen != r.cwdGen || r.ticket < w.gitApplied {
		return
	}
	w.gitApplied = r.ticket
	if gitws.Equal(w.git, st) {
		return
	}
	w.git = st
	s.emit(gitChanged(w))
}

func gitChanged(w *workspace) events.WorkspaceGitChanged {
	e := events.WorkspaceGitChanged{Workspace: w.id, Present: w.git != nil}
	if g := w.git; g != nil {
		e.Branch, e.Detached, e.Dirty, e.Worktree, e.Missing = g.Branch, g.Detached, g.Dirty, g.Worktree, g.Missing
	}
	return e
}

// inspectGit runs git for dir; s.mu is not held. A failure of git itself
// (a deadline) is logged and counts as no git state.
func (s *Service) inspectGit(ctx context.Context, dir string) *GitState {
	st, err := s.git.git.Inspect(ctx, dir)
	if err != nil {
		s.log.Warn("git state unknown", "dir", dir, "err", err)
		return nil
	}
	return st
}

// refreshGit recomputes w's git state; s.mu is not held. A cwd that is
// gone keeps the last state, marked missing (gitws.Git.Recover).
func (s *Service) refreshGit(ctx context.Context, w *workspace) {
	s.mu.Lock()
	r, saved := s.beginGit(w), w.git
	s.mu.Unlock()
	st := s.recoverGit(ctx, r.cwd, saved)
	s.mu.Lock()
	s.endGit(r, st)
	s.mu.Unlock()
}

// recoverGit is the git state of dir given the one last stored; s.mu is
// not held. A failure of git itself (a deadline) is logged and keeps the
// last state.
func (s *Service) recoverGit(ctx context.Context, dir string, saved *GitState) *GitState {
	fi, err := os.Stat(dir)
	st, gerr := s.git.git.Recover(ctx, dir, saved, err == nil && fi.IsDir())
	if gerr != nil {
		s.log.Warn("git state unknown", "dir", dir, "err", gerr)
		return saved
	}
	return st
}

// RefreshGit recomputes a workspace's git state (Mux.GetWorkspace with
// refresh_git, which then reads the workspace). Errors: not_found.workspace.
func (s *Service) RefreshGit(ctx context.Context, ref string) error {
	s.mu.Lock()
	w, err := s.lookupWorkspace(ref)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	s.refreshGit(ctx, w)
	return nil
}

// RecoverGit recomputes every workspace's git state after a restore, from
// its saved cwd, its saved state and the repository's registered worktrees
// (gitws.Git.Recover): a linked worktree whose directory is gone keeps its
// saved state with Missing set. At most four workspaces are inspected at a
// time. Call it after Restore; it starts no process in any pane.
func (s *Service) RecoverGit(ctx context.Context) {
	s.mu.Lock()
	type job struct {
		r     gitRefresh
		saved *GitState
	}
	var jobs []job
	for _, id := range s.wsOrder {
		w := s.workspaces[id]
		jobs = append(jobs, job{s.beginGit(w), w.git})
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for _, j := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			st := s.recoverGit(ctx, j.r.cwd, j.saved)
			s.mu.Lock()
			s.endGit(j.r, st)
			s.mu.Unlock()
			if st != nil && st.Missing {
				s.log.Warn("the checkout of a workspace is gone", "workspace", j.r.w.id, "dir", st.Root)
			}
		}()
	}
	wg.Wait()
}

// SetWorkspaceCwd changes the directory new panes of a workspace start in
// and recomputes its git state (Mux.SetWorkspaceCwd). Errors:
// not_found.workspace, invalid_params.cwd.
func (s *Service) SetWorkspaceCwd(ctx context.Context, ref, cwd string) (Workspace, error) {
	cwd, err := checkDir("cwd", cwd)
	if err != nil {
		return Workspace{}, err
	}
	s.mu.Lock()
	w, lerr := s.lookupWorkspace(ref)
	if lerr != nil {
		s.mu.Unlock()
		return Workspace{}, lerr
	}
	if w.cwd != cwd {
		w.cwd = cwd
		w.cwdGen++
		s.emit(events.WorkspaceUpdated{Workspace: w.id, Name: w.name, Cwd: cwd})
	}
	s.mu.Unlock()
	s.refreshGit(ctx, w)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.workspaces[w.id] != w {
		return Workspace{}, notFound("workspace", ref)
	}
	return w.snapshot(), nil
}

// exportGit and importGit convert between a state and its snapshot form.
func exportGit(g *GitState) *snapshot.Git {
	if g == nil {
		return nil
	}
	return &snapshot.Git{Root: g.Root, Branch: g.Branch, Detached: g.Detached, Commit: g.Commit, Dirty: g.Dirty,
		Worktree: g.Worktree, Repo: g.Repo, Missing: g.Missing}
}

func importGit(g *snapshot.Git) *GitState {
	if g == nil || g.Root == "" {
		return nil
	}
	return &GitState{Root: filepath.Clean(g.Root), Branch: g.Branch, Detached: g.Detached, Commit: g.Commit, Dirty: g.Dirty,
		Worktree: g.Worktree, Repo: g.Repo, Missing: g.Missing}
}

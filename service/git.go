package service

import (
	"context"
	"log/slog"
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

// Git is the git side of the workspaces: how git runs, where worktrees go
// and which are being added, each workspace's git state kept current, and
// worktrees made and removed with their workspaces (worktree.go). Its
// Locked methods read and write the workspaces' git fields and adding,
// under the service's lock; the others run git and are called without it.
// Service.Git returns it.
type Git struct {
	s      *Service
	git    *gitws.Git
	log    *slog.Logger
	root   string          // where worktrees go ("" = next to each repository)
	adding map[string]bool // worktree paths being added (worktree.go)
}

// Git returns the git side of the workspaces.
func (s *Service) Git() *Git { return s.git }

func newGit(s *Service, cfg Config) *Git {
	return &Git{s: s, git: &gitws.Git{Env: cfg.Environ}, log: cfg.Logger, root: cfg.WorktreeRoot, adding: map[string]bool{}}
}

// gitRefresh is a refresh begun under s.mu.
type gitRefresh struct {
	w      *workspace
	cwd    string
	cwdGen uint64
	ticket uint64
}

// beginLocked starts a refresh of w; s.mu is held.
func (g *Git) beginLocked(w *workspace) gitRefresh {
	w.gitTicket++
	return gitRefresh{w: w, cwd: w.cwd, cwdGen: w.cwdGen, ticket: w.gitTicket}
}

// endLocked stores a refresh's result if it still applies: its workspace
// is live (still in the model), its cwd unchanged and no later refresh
// stored first. It returns the event to emit and true when the stored
// state changed; s.mu is held.
func (g *Git) endLocked(r gitRefresh, st *GitState, live bool) (events.WorkspaceGitChanged, bool) {
	w := r.w
	if !live || w.cwdGen != r.cwdGen || r.ticket < w.gitApplied {
		return events.WorkspaceGitChanged{}, false
	}
	w.gitApplied = r.ticket
	if gitws.Equal(w.git, st) {
		return events.WorkspaceGitChanged{}, false
	}
	w.git = st
	e := events.WorkspaceGitChanged{Workspace: w.id, Present: st != nil}
	if st != nil {
		e.Branch, e.Detached, e.Dirty, e.Worktree, e.Missing = st.Branch, st.Detached, st.Dirty, st.Worktree, st.Missing
	}
	return e, true
}

// inspect runs git for dir; s.mu is not held. A failure of git itself
// (a deadline) is logged and counts as no git state.
func (g *Git) inspect(ctx context.Context, dir string) *GitState {
	st, err := g.git.Inspect(ctx, dir)
	if err != nil {
		g.log.Warn("git state unknown", "dir", dir, "err", err)
		return nil
	}
	return st
}

// recoverState is the git state of dir given the one last stored; s.mu is
// not held. A cwd that is gone keeps the last state, marked missing
// (gitws.Git.Recover). A failure of git itself (a deadline) is logged and
// keeps the last state.
func (g *Git) recoverState(ctx context.Context, dir string, saved *GitState) *GitState {
	fi, err := os.Stat(dir)
	st, gerr := g.git.Recover(ctx, dir, saved, err == nil && fi.IsDir())
	if gerr != nil {
		g.log.Warn("git state unknown", "dir", dir, "err", gerr)
		return saved
	}
	return st
}

// worktreePath is where the worktree for branch of the repository whose
// main worktree is repo goes, and the root it is under.
func (g *Git) worktreePath(repo, branch string) (path, root string) {
	if g.root != "" {
		root = filepath.Join(g.root, filepath.Base(repo))
	} else {
		root = repo + "-worktrees"
	}
	return filepath.Join(root, filepath.FromSlash(branch)), root
}

// reserveLocked claims path for a worktree being added; false when another
// request is adding one there. s.mu is held.
func (g *Git) reserveLocked(path string) bool {
	if g.adding[path] {
		return false
	}
	g.adding[path] = true
	return true
}

// releaseLocked gives up the claim on path (reserveLocked); s.mu is held.
func (g *Git) releaseLocked(path string) { delete(g.adding, path) }

// refresh recomputes w's git state; s.mu is not held: it is taken to
// begin and to store, never while git runs.
func (g *Git) refresh(ctx context.Context, w *workspace) {
	s := g.s
	s.mu.Lock()
	r, saved := s.git.beginLocked(w), w.git
	s.mu.Unlock()
	st := s.git.recoverState(ctx, r.cwd, saved)
	s.mu.Lock()
	if e, ok := s.git.endLocked(r, st, s.workspaces[w.id] == w); ok {
		s.emitLocked(e)
	}
	s.mu.Unlock()
}

// Refresh recomputes a workspace's git state (Mux.GetWorkspace with
// refresh_git, which then reads the workspace). Errors: not_found.workspace.
func (g *Git) Refresh(ctx context.Context, ref string) error {
	s := g.s
	s.mu.Lock()
	w, err := s.lookupWorkspace(ref)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	g.refresh(ctx, w)
	return nil
}

// Recover recomputes every workspace's git state after a restore, from
// its saved cwd, its saved state and the repository's registered worktrees
// (gitws.Git.Recover): a linked worktree whose directory is gone keeps its
// saved state with Missing set. At most four workspaces are inspected at a
// time. Call it after Restore; it starts no process in any pane.
func (g *Git) Recover(ctx context.Context) {
	s := g.s
	s.mu.Lock()
	type job struct {
		r     gitRefresh
		saved *GitState
	}
	var jobs []job
	for _, id := range s.wsOrder {
		w := s.workspaces[id]
		jobs = append(jobs, job{s.git.beginLocked(w), w.git})
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for _, j := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			st := s.git.recoverState(ctx, j.r.cwd, j.saved)
			s.mu.Lock()
			if e, ok := s.git.endLocked(j.r, st, s.workspaces[j.r.w.id] == j.r.w); ok {
				s.emitLocked(e)
			}
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
		s.emitLocked(events.WorkspaceUpdated{Workspace: w.id, Name: w.name, Cwd: cwd})
	}
	s.mu.Unlock()
	s.git.refresh(ctx, w)
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

package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/events"
)

// maxName is the longest workspace name or tab title, in bytes.
const maxName = 256

// checkName trims the white space around *v (a name of only spaces is
// empty) and checks what is left: invalid_params.<param> with reason
// empty, size or control (docs/workspaces.md, "Names").
func checkName(param string, v *string) *Error {
	trimmed := strings.TrimFunc(*v, unicode.IsSpace)
	if trimmed == "" {
		return invalid(param, "empty", "%s must not be empty or only white space", param)
	}
	*v = trimmed
	if len(trimmed) > maxName {
		return invalid(param, "size", "%s is longer than %d bytes", param, maxName)
	}
	for _, r := range trimmed {
		if unicode.IsControl(r) {
			return invalid(param, "control", "%s must not contain control characters", param)
		}
	}
	return nil
}

// checkDir returns the absolute, existing directory dir, or invalid_params.<param>.
func checkDir(param, dir string) (string, *Error) {
	if !filepath.IsAbs(dir) {
		return "", invalid(param, "relative", "%s %q is not an absolute path", param, dir)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", invalid(param, "not_a_directory", "%s %q is not an existing directory", param, dir)
	}
	return filepath.Clean(dir), nil
}

// defaultCwd is $HOME when it is a directory, else /tmp.
func (s *Service) defaultCwd() string {
	if home := lookEnv(s.cfg.Environ, "HOME"); home != "" {
		if d, err := checkDir("cwd", home); err == nil {
			return d
		}
	}
	return "/tmp"
}

// CreateWorkspace makes a workspace (Mux.CreateWorkspace).
func (s *Service) CreateWorkspace(name, cwd string) (Workspace, error) {
	if name == "" {
		name = "workspace"
	}
	if err := checkName("name", &name); err != nil {
		return Workspace{}, err
	}
	if cwd == "" {
		cwd = s.defaultCwd()
	}
	cwd, err := checkDir("cwd", cwd)
	if err != nil {
		return Workspace{}, err
	}
	git := s.git.inspect(context.Background(), cwd) // before s.mu: git is process work
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return Workspace{}, errcode.Shutdown()
	}
	return s.addWorkspaceLocked(name, cwd, git), nil
}

// addWorkspaceLocked puts a new workspace into the model with its event; s.mu is held.
func (s *Service) addWorkspaceLocked(name, cwd string, git *GitState) Workspace {
	w := &workspace{id: newID("ws"), name: name, cwd: cwd, createdAt: time.Now(), tabs: []string{}, git: git}
	w.handle = s.uniqueHandle(slug(name))
	s.workspaces[w.id] = w
	s.wsOrder = append(s.wsOrder, w.id)
	s.emitLocked(events.WorkspaceCreated{Workspace: w.id, Name: w.name, Handle: w.handle})
	return w.snapshot()
}

// ListWorkspaces returns all workspaces in creation order (Mux.ListWorkspaces).
func (s *Service) ListWorkspaces() []Workspace {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Workspace, 0, len(s.wsOrder))
	for _, id := range s.wsOrder {
		out = append(out, s.workspaces[id].snapshot())
	}
	return out
}

// GetWorkspace returns a workspace with its tabs and panes (Mux.GetWorkspace).
func (s *Service) GetWorkspace(ref string) (Workspace, []Tab, []Pane, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, err := s.lookupWorkspace(ref)
	if err != nil {
		return Workspace{}, nil, nil, err
	}
	tabs := []Tab{}
	panes := []Pane{}
	for _, tid := range w.tabs {
		t := s.tabs[tid]
		tabs = append(tabs, t.snapshot())
		panes = append(panes, snapshots(s.tabPanes(t))...)
	}
	return w.snapshot(), tabs, panes, nil
}

// RenameWorkspace changes a workspace's name; its handle stays (Mux.RenameWorkspace).
func (s *Service) RenameWorkspace(ref, name string) (Workspace, error) {
	if err := checkName("name", &name); err != nil {
		return Workspace{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w, err := s.lookupWorkspace(ref)
	if err != nil {
		return Workspace{}, err
	}
	if w.name != name {
		w.name = name
		s.emitLocked(events.WorkspaceUpdated{Workspace: w.id, Name: name})
	}
	return w.snapshot(), nil
}

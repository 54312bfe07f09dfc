package service

import (
	"time"

	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/events"
)

// CreateTab appends an empty tab to a workspace and makes it active (Mux.CreateTab).
func (s *Service) CreateTab(wsRef, title string) (Tab, error) {
	if title == "" {
		title = "tab"
	}
	if err := checkName("title", &title); err != nil {
		return Tab{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w, err := s.lookupWorkspace(wsRef)
	if err != nil {
		return Tab{}, err
	}
	if w.removing {
		return Tab{}, newError(errcode.ConflictRemoving, map[string]any{"workspace": w.id}, "workspace %s is being removed", w.id)
	}
	t := s.addTabLocked(w, title, "")
	return t.snapshot(), nil
}

// addTabLocked appends a new empty tab to w and makes it active, unless run
// names the run it is made for: a run never changes the active tab
// (docs/workspaces.md, "Run tabs"); s.mu is held.
func (s *Service) addTabLocked(w *workspace, title, run string) *tab {
	t := &tab{id: newID("tab"), workspace: w.id, title: title, createdAt: time.Now(), run: run}
	s.tabs[t.id] = t
	w.tabs = append(w.tabs, t.id)
	if run == "" {
		w.activeTab = t.id
	}
	s.emitLocked(events.TabCreated{Tab: t.id, Workspace: w.id, Title: title})
	return t
}

package service

import (
	"context"
	"time"
)

// CreateTab appends an empty tab to a workspace and makes it active (Mux.CreateTab).
func (s *Service) CreateTab(wsRef, title string) (Tab, error) {
	if title == "" {
		title = "tab"
	}
	if err := checkName("title", title); err != nil {
		return Tab{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w, err := s.lookupWorkspace(wsRef)
	if err != nil {
		return Tab{}, err
	}
	if w.removing {
		return Tab{}, newError("conflict.removing", map[string]any{"workspace": w.id}, "workspace %s is being removed", w.id)
	}
	t := s.addTab(w, title)
	return t.snapshot(), nil
}

// addTab appends a new empty tab to w and makes it active; s.mu is held.
func (s *Service) addTab(w *workspace, title string) *tab {
	t := &tab{id: newID("tab"), workspace: w.id, title: title, createdAt: time.Now()}
	s.tabs[t.id] = t
	w.tabs = append(w.tabs, t.id)
	w.activeTab = t.id
	s.emit("tab.created", t.id, map[string]any{"workspace": w.id, "title": title})
	return t
}

// RemoveTab removes a tab with its panes (Mux.RemoveTab). Live panes make it
// fail with conflict.pane_live unless recursive, which terminates them first.
func (s *Service) RemoveTab(ctx context.Context, id string, recursive bool) error {
	s.mu.Lock()
	t, err := s.lookupTab(id)
	if err != nil {
		s.mu.Unlock()
		return err
	}
	panes := s.tabPanes(t)
	if err := s.beginRemoval(panes, recursive, func() bool { return t.removing || s.workspaces[t.workspace].removing }); err != nil {
		s.mu.Unlock()
		return err
	}
	t.removing = true
	s.mu.Unlock()

	if err := s.terminate(ctx, panes, 0, -1, CauseRemoval); err != nil {
		s.mu.Lock()
		t.removing = false
		s.mu.Unlock()
		return err
	}
	s.mu.Lock()
	removed := s.deleteTab(t)
	s.mu.Unlock()
	closeAll(removed)
	return nil
}

// tabPanes lists a tab's panes in layout order; s.mu is held.
func (s *Service) tabPanes(t *tab) []*pane {
	var out []*pane
	for _, id := range t.layout.leaves() {
		out = append(out, s.panes[id])
	}
	return out
}

// beginRemoval checks that a removal may start; s.mu is held.
func (s *Service) beginRemoval(panes []*pane, recursive bool, removing func() bool) *Error {
	if removing() {
		return newError("conflict.removing", nil, "already being removed")
	}
	if recursive {
		return nil
	}
	var live []string
	for _, p := range panes {
		if !p.exited {
			live = append(live, p.id)
		}
	}
	if len(live) > 0 {
		return newError("conflict.pane_live", map[string]any{"panes": live},
			"%d live pane(s): kill them first, or remove with --kill (a pane) or --recursive (a tab or workspace)", len(live))
	}
	return nil
}

// deleteTab removes a tab and its panes from the model, publishing
// pane.removed for each and tab.removed; s.mu is held. The caller releases
// the returned panes' processes after unlocking.
func (s *Service) deleteTab(t *tab) []*pane {
	panes := s.tabPanes(t)
	for _, p := range panes {
		delete(s.panes, p.id)
		s.emit("pane.removed", p.id, map[string]any{"workspace": p.workspace, "tab": p.tab})
	}
	t.layout = nil
	delete(s.tabs, t.id)
	w := s.workspaces[t.workspace]
	for i, id := range w.tabs {
		if id == t.id {
			w.tabs = append(w.tabs[:i], w.tabs[i+1:]...)
			break
		}
	}
	if w.activeTab == t.id {
		w.activeTab = ""
		if n := len(w.tabs); n > 0 {
			w.activeTab = w.tabs[n-1]
		}
	}
	s.emit("tab.removed", t.id, map[string]any{"workspace": w.id})
	return panes
}

// closeAll releases the processes, descriptors and rows of removed panes
// (no longer reachable through the service, so their fields are stable).
func closeAll(panes []*pane) {
	for _, p := range panes {
		if p.proc != nil {
			p.proc.Close()
		}
		p.term.Close()
	}
}

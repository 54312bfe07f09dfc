package service

import (
	"context"

	"github.com/signaltty/signaltty/pty"
	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/events"
)

// removal is one RemovePane, RemoveTab or RemoveWorkspace: exactly one of
// pane, tab and ws is set.
type removal struct {
	pane  *pane
	tab   *tab
	ws    *workspace
	force bool   // kill (a pane) or recursive (a tab or workspace): terminate live panes first
	cause string // what runs in terminated panes record
}

// RemovePane removes a pane from its tab; a tab left empty is removed too
// (Mux.RemovePane). A pane with a process (or getting one) fails with
// conflict.pane_live unless kill, which terminates it first.
func (s *Service) RemovePane(ctx context.Context, id string, kill bool) error {
	s.mu.Lock()
	p, err := s.lookupPane(id)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return s.remove(ctx, removal{pane: p, force: kill, cause: CausePaneKill})
}

// RemoveTab removes a tab with its panes (Mux.RemoveTab). Live panes make it
// fail with conflict.pane_live unless recursive, which terminates them first.
func (s *Service) RemoveTab(ctx context.Context, id string, recursive bool) error {
	s.mu.Lock()
	t, err := s.lookupTab(id)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return s.remove(ctx, removal{tab: t, force: recursive, cause: CauseRemoval})
}

// RemoveWorkspace removes a workspace, its tabs and panes (Mux.RemoveWorkspace).
// Live panes make it fail with conflict.pane_live unless recursive, which
// terminates them first.
func (s *Service) RemoveWorkspace(ctx context.Context, ref string, recursive bool) error {
	s.mu.Lock()
	w, err := s.lookupWorkspace(ref)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return s.remove(ctx, removal{ws: w, force: recursive, cause: CauseRemoval})
}

// remove checks, terminates and removes, until everything in scope is
// without a process; then it removes it all in one critical section and
// releases the panes' resources. Panes still starting in scope are removed
// too: their starts fail with conflict.removing.
func (s *Service) remove(ctx context.Context, r removal) error {
	for first := true; ; first = false {
		s.mu.Lock()
		if err := r.checkLocked(s, first); err != nil {
			s.mu.Unlock()
			return err
		}
		panes := r.panesLocked(s)
		var live []*pane
		var holding []string
		for _, p := range panes {
			if p.state.hasProcess() {
				live = append(live, p)
			}
			if p.state.holdsPTY() && p.announced() {
				holding = append(holding, p.id)
			}
		}
		if !r.force && len(holding) > 0 {
			s.mu.Unlock()
			return newError(errcode.ConflictPaneLive, map[string]any{"panes": holding},
				"%d live pane(s): kill them first, or remove with the parameter kill (a pane) or recursive (a tab or workspace) set to true (CLI --kill, --recursive)", len(holding))
		}
		if len(live) == 0 {
			resize := s.removeLocked(r, panes)
			s.mu.Unlock()
			for _, op := range resize { // outside s.mu: terminal and PTY locks
				_ = op.proc.Resize(op.cols, op.rows)
			}
			release(panes)
			return nil
		}
		r.setRemovingLocked(true) // no new panes in scope meanwhile
		s.mu.Unlock()
		if err := s.terminate(ctx, live, 0, -1, r.cause); err != nil {
			s.mu.Lock()
			r.setRemovingLocked(false)
			s.mu.Unlock()
			return err
		}
	}
}

// check fails when the scope is gone from s (a concurrent removal won) or,
// on the first pass, already being removed; s.mu is held.
func (r removal) checkLocked(s *Service, first bool) *Error {
	switch {
	case r.pane != nil:
		if r.pane.state == stateRemoved {
			return notFound("pane", r.pane.id)
		}
	case r.tab != nil:
		if s.tabs[r.tab.id] != r.tab {
			return notFound("tab", r.tab.id)
		}
		if first && (r.tab.removing || s.workspaces[r.tab.workspace].removing) {
			return newError(errcode.ConflictRemoving, nil, "already being removed")
		}
	default:
		if s.workspaces[r.ws.id] != r.ws {
			return notFound("workspace", r.ws.id)
		}
		if first && r.ws.removing {
			return newError(errcode.ConflictRemoving, nil, "already being removed")
		}
	}
	return nil
}

// setRemoving marks the tab or workspace in scope as being removed (no new
// panes start there) or not; s.mu is held.
func (r removal) setRemovingLocked(on bool) {
	switch {
	case r.tab != nil:
		r.tab.removing = on
	case r.ws != nil:
		r.ws.removing = on
	}
}

// panes lists the panes of s in scope, in layout order, followed by new
// panes still starting there (not placed yet); s.mu is held.
func (r removal) panesLocked(s *Service) []*pane {
	if r.pane != nil {
		return []*pane{r.pane}
	}
	var tabs []string
	if r.tab != nil {
		tabs = []string{r.tab.id}
	} else {
		tabs = r.ws.tabs
	}
	var out []*pane
	for _, tid := range tabs {
		out = append(out, s.tabPanes(s.tabs[tid])...)
	}
	for _, p := range s.panes {
		if !p.announced() && (r.ws != nil && p.workspace == r.ws.id || r.tab != nil && p.tab == r.tab.id) {
			out = append(out, p)
		}
	}
	return out
}

// resizeOp is a PTY resize to apply once s.mu is released.
type resizeOp struct {
	proc       *pty.Process
	cols, rows int
}

// removeLocked removes everything in scope, with its events; s.mu is held
// and no pane in scope has a process.
func (s *Service) removeLocked(r removal, panes []*pane) []resizeOp {
	switch {
	case r.pane != nil:
		return s.removePaneLocked(r.pane)
	case r.tab != nil:
		s.deleteTabLocked(r.tab)
	default:
		w := r.ws
		for _, tid := range append([]string{}, w.tabs...) {
			s.deleteTabLocked(s.tabs[tid])
		}
		for _, p := range panes { // new panes starting in a tab of their own
			if p.state == stateStarting {
				s.transitionLocked(p, change{to: stateRemoved, lost: removedWhileStarting(p)})
			}
		}
		delete(s.workspaces, w.id)
		for i, id := range s.wsOrder {
			if id == w.id {
				s.wsOrder = append(s.wsOrder[:i], s.wsOrder[i+1:]...)
				break
			}
		}
		s.emitLocked(events.WorkspaceRemoved{Workspace: w.id})
	}
	return nil
}

// removePaneLocked removes one pane and closes its tab's layout around the
// gap (the remaining panes share the area), or removes the tab it empties;
// s.mu is held. It returns the resizes of the remaining panes.
func (s *Service) removePaneLocked(p *pane) []resizeOp {
	t := s.tabs[p.tab]
	cols, rows := t.layout.area(s.paneSize) // the tab's area, before p leaves it
	s.transitionLocked(p, change{to: stateRemoved, lost: removedWhileStarting(p)})
	t.layout = t.layout.without(p.id)
	if t.layout == nil {
		s.deleteTabLocked(t)
		return nil
	}
	if t.activePane == p.id {
		t.activePane = t.layout.leaves()[0]
	}
	s.emitLocked(events.TabLayoutChanged{Tab: t.id, Workspace: t.workspace})
	var resize []resizeOp
	t.layout.fit(min(cols, MaxSize), min(rows, MaxSize), func(pid string, c, r int) {
		c, r = min(c, MaxSize), min(r, MaxSize)
		q := s.panes[pid]
		if q.cols == c && q.rows == r {
			return
		}
		q.cols, q.rows = c, r
		s.emitLocked(events.PaneResized{Pane: q.id, Cols: c, Rows: r})
		if q.state.hasProcess() {
			resize = append(resize, resizeOp{q.inst.proc, c, r})
		}
	})
	return resize
}

// removedWhileStarting is the error a start fails with when a removal
// takes its pane (nil for a pane that is not starting).
func removedWhileStarting(p *pane) *Error {
	if p.state != stateStarting {
		return nil
	}
	return newError(errcode.ConflictRemoving, map[string]any{"pane": p.id}, "pane %s was removed while it was starting", p.id)
}

// deleteTabLocked removes a tab and its panes from the model, publishing
// pane.removed for each and tab.removed; s.mu is held and no pane of the
// tab has a process. New panes starting in the tab are removed too.
func (s *Service) deleteTabLocked(t *tab) {
	for _, p := range s.tabPanes(t) {
		s.transitionLocked(p, change{to: stateRemoved, lost: removedWhileStarting(p)})
	}
	for _, p := range s.panes {
		if p.tab == t.id && p.state == stateStarting {
			s.transitionLocked(p, change{to: stateRemoved, lost: removedWhileStarting(p)})
		}
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
	s.emitLocked(events.TabRemoved{Tab: t.id, Workspace: w.id})
}

// release frees the processes, descriptors and rows of removed panes (their
// fields are stable once removed). A start that lost its pane releases its
// own new process.
func release(panes []*pane) {
	for _, p := range panes {
		if p.inst != nil {
			p.inst.proc.Close()
			dropCgroup(p.inst.proc)
		}
		if p.term != nil {
			p.term.Close()
		}
	}
}

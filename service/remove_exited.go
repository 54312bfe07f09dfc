package service

import "github.com/signaltty/signaltty/service/errcode"

// RemoveExitedPanes removes every pane of a workspace whose process has
// exited (state exited; tombstones restored after a restart stay, for a
// relaunch), each as RemovePane removes one: the layout closes around it
// and a tab it empties is removed too. Everything is removed in one
// critical section. It returns the removed panes' ids in tab and layout
// order (none: an empty list). Errors: not_found.workspace,
// conflict.name_ambiguous, conflict.removing.
// finishRemoval resizes the panes left and releases the removed ones, after
// removePaneLocked; s.mu is not held (terminal and PTY locks). The last
// size of a pane wins.
func finishRemoval(resize []resizeOp, gone []*pane) {
	for _, op := range resize {
		_ = op.proc.Resize(op.cols, op.rows)
	}
	release(gone)
}

// removeRunPane removes the pane of a run whose record was evicted, when
// run.remove_panes is on (docs/workspaces.md, "Run tabs"), as RemovePane
// would: only while it has exited (a relaunched one stays), and not while
// its tab or workspace is being removed or the daemon stops; s.mu is not
// held.
func (s *Service) removeRunPane(p *pane) {
	s.mu.Lock()
	w, t := s.workspaces[p.workspace], s.tabs[p.tab]
	if s.stopping || s.panes[p.id] != p || p.state != stateExited || w == nil || t == nil || w.removing || t.removing {
		s.mu.Unlock()
		return
	}
	resize := s.removePaneLocked(p)
	s.mu.Unlock()
	finishRemoval(resize, []*pane{p})
}

func (s *Service) RemoveExitedPanes(wsRef string) ([]string, error) {
	s.mu.Lock()
	w, err := s.lookupWorkspace(wsRef)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	if w.removing {
		s.mu.Unlock()
		return nil, newError(errcode.ConflictRemoving, map[string]any{"workspace": w.id}, "workspace %s is being removed", w.id)
	}
	var gone []*pane
	var resize []resizeOp
	for _, tid := range append([]string{}, w.tabs...) {
		t := s.tabs[tid]
		if t.removing {
			continue
		}
		for _, p := range s.tabPanes(t) { // the tab goes with its last pane, after the loop's last step
			if p.state == stateExited {
				resize = append(resize, s.removePaneLocked(p)...)
				gone = append(gone, p)
			}
		}
	}
	s.mu.Unlock()
	finishRemoval(resize, gone)
	ids := make([]string, 0, len(gone))
	for _, p := range gone {
		ids = append(ids, p.id)
	}
	return ids, nil
}

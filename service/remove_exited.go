package service

// RemoveExitedPanes removes every pane of a workspace whose process has
// exited (state exited; tombstones restored after a restart stay, for a
// relaunch), each as RemovePane removes one: the layout closes around it
// and a tab it empties is removed too. Everything is removed in one
// critical section. It returns the removed panes' ids in tab and layout
// order (none: an empty list). Errors: not_found.workspace,
// conflict.name_ambiguous, conflict.removing.
func (s *Service) RemoveExitedPanes(wsRef string) ([]string, error) {
	s.mu.Lock()
	w, err := s.lookupWorkspace(wsRef)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	if w.removing {
		s.mu.Unlock()
		return nil, newError("conflict.removing", map[string]any{"workspace": w.id}, "workspace %s is being removed", w.id)
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
	for _, op := range resize { // outside s.mu: terminal and PTY locks; the last size of a pane wins
		_ = op.proc.Resize(op.cols, op.rows)
	}
	release(gone)
	ids := make([]string, 0, len(gone))
	for _, p := range gone {
		ids = append(ids, p.id)
	}
	return ids, nil
}

package service

// Pane record revisions (docs/scale.md): every pane carries the revision of
// its record, a number from one counter of the Service that is taken anew
// whenever something a Pane snapshot shows may have changed. A caller that
// keeps what it made of a snapshot (varlink keeps the encoded record) asks
// ListPaneRecords for the revisions and gets snapshots only of the panes
// whose revision it does not have.
//
// Where a record changes is known in three places: Service.transition (state,
// pid, status, terminating), Service.emit (every event about a pane: title,
// cwd, size, screen, agent, attention, …) and the few fields that change
// without an event, which call touch themselves.

// PaneRecord is a pane of ListPaneRecords: its id, the revision of its
// record, and its snapshot unless the caller already has that revision.
type PaneRecord struct {
	ID   string
	Rev  uint64 // never 0; a pane's next revision is greater
	Pane *Pane  // nil when have(ID, Rev) was true
}

// touch gives p a new record revision; s.mu is held.
func (s *Service) touch(p *pane) {
	s.recordRev++
	p.rev = s.recordRev
}

// touchResource gives the pane an event is about a new revision (emit);
// s.mu is held.
func (s *Service) touchResource(id string) {
	if p := s.panes[id]; p != nil {
		s.touch(p)
	}
}

// GetWorkspaceRecords is GetWorkspace with the panes as ListPaneRecords
// gives them (have is called with s.mu held). Errors are GetWorkspace's.
func (s *Service) GetWorkspaceRecords(ref string, have func(id string, rev uint64) bool) (Workspace, []Tab, []PaneRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, err := s.lookupWorkspace(ref)
	if err != nil {
		return Workspace{}, nil, nil, err
	}
	tabs := []Tab{}
	panes := []PaneRecord{}
	var ids []string
	for _, tid := range w.tabs {
		t := s.tabs[tid]
		tabs = append(tabs, t.snapshot())
		ids = t.layout.appendLeaves(ids[:0])
		for _, id := range ids {
			panes = append(panes, s.paneRecord(s.panes[id], have))
		}
	}
	return w.snapshot(), tabs, panes, nil
}

// paneRecord is p's PaneRecord, with its snapshot unless have it; s.mu is
// held.
func (s *Service) paneRecord(p *pane, have func(id string, rev uint64) bool) PaneRecord {
	if p.rev == 0 {
		s.touch(p)
	}
	r := PaneRecord{ID: p.id, Rev: p.rev}
	if !have(p.id, p.rev) {
		snap := p.snapshot()
		r.Pane = &snap
	}
	return r
}

// ListPaneRecords lists the panes ListPanes lists, in its order, with their
// record revisions; have(id, rev) reports whether the caller holds that
// revision of the pane's record, and is called with s.mu held (it must not
// call the Service). Errors are ListPanes'.
func (s *Service) ListPaneRecords(wsRef, tabID string, have func(id string, rev uint64) bool) ([]PaneRecord, error) {
	s.scanAgents("")
	s.mu.Lock()
	defer s.mu.Unlock()
	tabs, err := s.listedTabs(wsRef, tabID)
	if err != nil {
		return nil, err
	}
	out := []PaneRecord{}
	if tabID == "" {
		out = make([]PaneRecord, 0, len(s.panes))
	}
	var ids []string // one for all tabs
	for _, t := range tabs {
		ids = t.layout.appendLeaves(ids[:0])
		for _, id := range ids {
			out = append(out, s.paneRecord(s.panes[id], have))
		}
	}
	return out, nil
}

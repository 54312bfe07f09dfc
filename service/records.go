package service

// Pane record revisions (docs/scale.md): every pane carries the revision of
// its record, a number from one counter of the Service that is taken anew
// whenever something a Pane snapshot shows may have changed. A caller that
// keeps what it made of a snapshot (varlink keeps the encoded record) asks
// ListPaneRecords for the revisions and gets snapshots only of the panes
// whose revision it does not have.
//
// Where a record changes is known in three places: Service.transitionLocked (state,
// pid, status, terminating), Service.emitLocked (every event about a pane: title,
// cwd, size, screen, agent, attention, …) and the few fields that change
// without an event, which call touch themselves. The counter is a
// recordRevs, guarded by s.mu.

// PaneRecord is a pane of ListPaneRecords: its id, the revision of its
// record, and its snapshot unless the caller already has that revision.
type PaneRecord struct {
	ID   string
	Rev  uint64 // never 0; a pane's next revision is greater
	Pane *Pane  // nil when have(ID, Rev) was true
}

// recordRevs gives the pane record revisions: last is the last one given.
type recordRevs struct{ last uint64 }

// touch gives p a new record revision.
func (r *recordRevs) touch(p *pane) {
	r.last++
	p.rev = r.last
}

// touchResource gives the pane of panes an event is about (by its
// resource id; none when it names no pane) a new revision.
func (r *recordRevs) touchResource(panes map[string]*pane, id string) {
	if p := panes[id]; p != nil {
		r.touch(p)
	}
}

// record is p's PaneRecord, with its snapshot unless have it (a pane
// without a revision gets one first).
func (r *recordRevs) record(p *pane, have func(id string, rev uint64) bool) PaneRecord {
	if p.rev == 0 {
		r.touch(p)
	}
	rec := PaneRecord{ID: p.id, Rev: p.rev}
	if !have(p.id, p.rev) {
		snap := p.snapshot()
		rec.Pane = &snap
	}
	return rec
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
			panes = append(panes, s.records.record(s.panes[id], have))
		}
	}
	return w.snapshot(), tabs, panes, nil
}

// ListPaneRecords lists the panes ListPanes lists, in its order, with their
// record revisions; have(id, rev) reports whether the caller holds that
// revision of the pane's record, and is called with s.mu held (it must not
// call the Service). Errors are ListPanes'.
func (s *Service) ListPaneRecords(wsRef, tabID string, have func(id string, rev uint64) bool) ([]PaneRecord, error) {
	s.scanAgents("")
	s.mu.Lock()
	defer s.mu.Unlock()
	tabs, err := s.listedTabsLocked(wsRef, tabID)
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
			out = append(out, s.records.record(s.panes[id], have))
		}
	}
	return out, nil
}

package service

import "github.com/signaltty/signaltty/snapshot"

// A save keeps what it exported of each pane with the pane's record
// revision (records.go), and the next save exports again only the panes
// whose revision moved (or whose shutdown-save mark did): saving many idle
// panes holds s.mu for little more than a walk over them (docs/scale.md).

// exportedPane is a pane as the last save exported it.
type exportedPane struct {
	rev          uint64
	shutdownSave bool
	sp           snapshot.Pane
}

// exportPaneKept is exportPane(p), or the kept export when p has not
// changed since; it records the result in next. s.mu is held.
func (s *Service) exportPaneKept(p *pane, next map[string]exportedPane) snapshot.Pane {
	if p.rev == 0 {
		s.touch(p)
	}
	e, ok := s.persist.exported[p.id]
	if !ok || e.rev != p.rev || e.shutdownSave != p.shutdownSave {
		e = exportedPane{rev: p.rev, shutdownSave: p.shutdownSave, sp: exportPane(p)}
	}
	next[p.id] = e
	return e.sp
}

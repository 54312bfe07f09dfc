package service

import "github.com/signaltty/signaltty/snapshot"

// A save keeps what it exported of each pane with the pane's record
// revision (records.go), and the next save exports again only the panes
// whose revision moved (or whose shutdown-save mark did): saving many idle
// panes holds s.mu for little more than a walk over them (docs/scale.md).

// exportPaneKept is exportPane(p), or the kept export when p has not
// changed since (persist.Exports); s.mu is held.
func (s *Service) exportPaneKept(p *pane) snapshot.Pane {
	if p.rev == 0 {
		s.touch(p)
	}
	return s.persist.exported.Keep(p.id, p.rev, p.shutdownSave, func() snapshot.Pane { return exportPane(p) })
}

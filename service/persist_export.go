package service

import "github.com/signaltty/signaltty/snapshot"

// A save keeps what it exported of each pane with the pane's record
// revision (records.go), and the next save exports again only the panes
// whose revision moved (or whose shutdown-save mark did): saving many idle
// panes holds s.mu for little more than a walk over them (docs/scale.md).

// exportedPane is a pane as the last save exported it; gen is the save
// that last saw it.
type exportedPane struct {
	rev          uint64
	shutdownSave bool
	gen          uint64
	sp           snapshot.Pane
}

// exportedPanes are the kept exports by pane id, updated in place save
// after save.
type exportedPanes struct {
	gen  uint64
	seen int // panes seen by save gen
	m    map[string]*exportedPane
}

// exportPaneKept is exportPane(p), or the kept export when p has not
// changed since; it marks the kept export seen by this save. s.mu is held.
func (s *Service) exportPaneKept(p *pane) snapshot.Pane {
	if p.rev == 0 {
		s.touch(p)
	}
	ex := &s.persist.exported
	if ex.m == nil {
		ex.m = make(map[string]*exportedPane, len(s.panes))
	}
	e := ex.m[p.id]
	if e == nil {
		e = &exportedPane{}
		ex.m[p.id] = e
	}
	if e.gen == 0 || e.rev != p.rev || e.shutdownSave != p.shutdownSave {
		e.rev, e.shutdownSave, e.sp = p.rev, p.shutdownSave, exportPane(p)
	}
	if e.gen != ex.gen {
		e.gen = ex.gen
		ex.seen++
	}
	return e.sp
}

// dropUnseen forgets the panes the current save did not export (removed
// ones) and starts counting for the next save. s.mu is held.
func (ex *exportedPanes) dropUnseen() {
	if len(ex.m) > ex.seen {
		for id, e := range ex.m {
			if e.gen != ex.gen {
				delete(ex.m, id)
			}
		}
	}
	ex.seen = 0
}

package persist

import "github.com/signaltty/signaltty/snapshot"

// Exports keeps what a save exported of each pane with the pane's record
// revision, and the next save exports again only the panes whose revision
// moved (or whose shutdown-save mark did): saving many idle panes holds
// the service's lock for little more than a walk over them
// (docs/scale.md). Its methods run under the caller's lock.
type Exports struct {
	gen  uint64
	seen int // panes seen by save gen
	m    map[string]*exportedPane
}

// exportedPane is a pane as the last save exported it; gen is the save
// that last saw it.
type exportedPane struct {
	rev          uint64
	shutdownSave bool
	gen          uint64
	sp           snapshot.Pane
}

// Begin starts a save that will keep about n panes.
func (ex *Exports) Begin(n int) {
	ex.gen++
	if ex.m == nil {
		ex.m = make(map[string]*exportedPane, n)
	}
}

// Keep is export(), or the kept export of pane id when its revision rev and
// shutdown-save mark did not change since; it marks the pane seen by this
// save.
func (ex *Exports) Keep(id string, rev uint64, shutdownSave bool, export func() snapshot.Pane) snapshot.Pane {
	e := ex.m[id]
	if e == nil {
		e = &exportedPane{}
		ex.m[id] = e
	}
	if e.gen == 0 || e.rev != rev || e.shutdownSave != shutdownSave {
		e.rev, e.shutdownSave, e.sp = rev, shutdownSave, export()
	}
	if e.gen != ex.gen {
		e.gen = ex.gen
		ex.seen++
	}
	return e.sp
}

// End forgets the panes this save did not see (removed ones) and starts
// counting for the next save.
func (ex *Exports) End() {
	if len(ex.m) > ex.seen {
		for id, e := range ex.m {
			if e.gen != ex.gen {
				delete(ex.m, id)
			}
		}
	}
	ex.seen = 0
}

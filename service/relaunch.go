package service

import (
	"math"
	"strings"
)

// RelaunchPane starts a pane's saved argv again, in its saved cwd, with its
// saved (allowlisted) environment and size, as a fresh PTY child in the same
// pane: same id, tab and title, its earlier rows kept above the new output in
// a new numbering epoch (Mux.RelaunchPane; docs/persistence.md, "Relaunch").
// Only a pane without a process can be relaunched: a restored tombstone or
// one that exited. A pane's run, if any, is not carried over: a relaunch is
// never a run. Errors: not_found.pane, conflict.pane_live,
// conflict.relaunching (another start is under way), conflict.removing (a
// removal took the pane meanwhile), invalid_params.cwd (the saved directory
// is gone), unavailable.spawn, unavailable.shutdown; on any of them the
// pane is as it was.
func (s *Service) RelaunchPane(id string) (Pane, error) {
	s.mu.Lock()
	p, err := s.lookupPane(id)
	switch {
	case err != nil:
	case p.state == stateStarting:
		err = newError("conflict.relaunching", map[string]any{"pane": id}, "pane %s is being relaunched", id)
	case p.state.hasProcess():
		err = newError("conflict.pane_live", map[string]any{"pane": id}, "pane %s is live", id)
	case s.stopping:
		err = newError("unavailable.shutdown", nil, "the daemon is shutting down")
	case len(p.argv) == 0:
		err = invalid("argv", "missing", "pane %s has no saved command", id)
	}
	if err != nil {
		s.mu.Unlock()
		return Pane{}, err
	}
	old := p.term
	st := s.reserve(p, nil, spawnSpec{})
	s.mu.Unlock()

	// Outside s.mu: the old rows (a terminal lock) and the saved cwd (disk).
	tail := paneTail(old, tailRows, math.MaxInt)
	history := make([]string, len(tail.Lines))
	for i, l := range tail.Lines {
		history[i] = strings.TrimRight(l, " ")
	}
	st.cfg.History, st.cfg.Epoch = history, old.Epoch()+1 // the kept rows are numbered anew
	if cwd, cerr := checkDir("cwd", st.cfg.Dir); cerr != nil {
		st.err = cerr
	} else {
		st.cfg.Dir = cwd
	}
	s.launch(st)

	s.mu.Lock()
	err = s.commit(st)
	var snap Pane
	if err == nil {
		p.restoredRows = int64(len(history))
		snap = p.snapshot()
	}
	s.mu.Unlock()
	s.settle(st, err)
	if err != nil {
		return Pane{}, err
	}
	s.log.Info("pane relaunched", "pane", p.id, "pid", snap.Pid)
	return snap, nil
}

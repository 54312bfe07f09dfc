package service

import (
	"github.com/signaltty/signaltty/service/agents"
	"math"
	"slices"
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
	snap, err := s.restartPane(id, "relaunching", func(p *pane) (*restartCommand, *Error) {
		if len(p.argv) == 0 {
			return nil, invalid("argv", "missing", "pane %s has no saved command", id)
		}
		return nil, nil // the saved argv and environment, as reserve takes them
	})
	if err != nil {
		return Pane{}, err
	}
	s.log.Info("pane relaunched", "pane", snap.ID, "pid", snap.Pid)
	return snap, nil
}

// restartCommand replaces what a restart runs: argv with exactly env as
// the pane's own environment (nothing of the one it had).
type restartCommand struct {
	argv []string
	env  map[string]string
	// committed, when set, is called with s.mu held once the start
	// committed, so its events follow pane.relaunched in the same section.
	committed func(p *pane)
}

// restartPane starts a process again in a pane without one: through the
// one start path (start.go), keeping the pane's rows above the new output.
// busy names the conflict when another start is under way; pick checks the
// pane (s.mu held) and returns what to run instead of its saved command
// (nil: the saved one). A restart that does not commit leaves the pane as
// it was.
func (s *Service) restartPane(id, busy string, pick func(p *pane) (*restartCommand, *Error)) (Pane, error) {
	s.mu.Lock()
	p, err := s.lookupPane(id)
	var cmd *restartCommand
	switch {
	case err != nil:
	case p.state == stateStarting:
		err = newError("conflict."+busy, map[string]any{"pane": id}, "pane %s is being started", id)
	case p.state.hasProcess():
		err = newError("conflict.pane_live", map[string]any{"pane": id}, "pane %s is live", id)
	case s.stopping:
		err = newError("unavailable.shutdown", nil, "the daemon is shutting down")
	default:
		if err = s.checkPaneLimit(); err == nil {
			cmd, err = pick(p)
		}
	}
	if err != nil {
		s.mu.Unlock()
		return Pane{}, err
	}
	old := p.term
	st := s.reserve(p, nil, spawnSpec{})
	if cmd != nil {
		st.cfg.Argv = slices.Clone(cmd.argv)
		st.cfg.Env = childEnvFrom(s.childBase, cmd.env, p.envUnset, p.id, s.cfg.Address)
	}
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
	var prevArgv []string
	if cmd != nil { // spawnError names the program that failed to start
		prevArgv, p.argv = p.argv, cmd.argv
	}
	err = s.commit(st)
	var snap Pane
	if err == nil {
		p.restoredRows = int64(len(history))
		// A new process: what the agent was doing and what it wanted from
		// the user belonged to the one before (docs/agents.md, "Lifecycle").
		s.setLifecycle(p, agents.LifecycleUnknown)
		s.clearAttention(p, "restart")
		if cmd != nil {
			p.env = map[string]string{}
			for k, v := range cmd.env {
				p.env[k] = v
			}
			if cmd.committed != nil {
				cmd.committed(p)
			}
		}
		snap = p.snapshot()
	} else if cmd != nil && s.panes[p.id] == p {
		p.argv = prevArgv
	}
	s.mu.Unlock()
	s.settle(st, err)
	if err != nil {
		return Pane{}, err
	}
	return snap, nil
}

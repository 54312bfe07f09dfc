package service

import (
	"time"

	"github.com/signaltty/signaltty/pty"
	"github.com/signaltty/signaltty/snapshot"
	"github.com/signaltty/signaltty/term"
)

// RelaunchPane starts a pane's saved argv again, in its saved cwd, with its
// saved (allowlisted) environment and size, as a fresh PTY child in the same
// pane: same id, tab and title, its earlier rows kept above the new output
// (Mux.RelaunchPane). Only a pane without a process can be relaunched: a
// restored tombstone or one that exited. A pane's run, if any, is not
// carried over: a relaunch is never a run. Errors: not_found.pane,
// conflict.pane_live, conflict.relaunching, invalid_params.cwd (the saved
// directory is gone), unavailable.spawn (nothing changes).
func (s *Service) RelaunchPane(id string) (Pane, error) {
	s.mu.Lock()
	p, err := s.lookupPane(id)
	switch {
	case err != nil:
	case !p.exited:
		err = newError("conflict.pane_live", map[string]any{"pane": id}, "pane %s is live", id)
	case p.relaunching:
		err = newError("conflict.relaunching", map[string]any{"pane": id}, "pane %s is being relaunched", id)
	case s.stopping:
		err = newError("unavailable.shutdown", nil, "the daemon is shutting down")
	case len(p.argv) == 0:
		err = invalid("argv", "missing", "pane %s has no saved command", id)
	}
	if err != nil {
		s.mu.Unlock()
		return Pane{}, err
	}
	p.relaunching = true
	oldProc, oldTerm := p.proc, p.term
	argv, cwd, env, cols, rows := p.argv, p.cwd, p.env, p.cols, p.rows
	s.mu.Unlock()

	history := tailOf(oldTerm)   // outside s.mu: pty locks
	epoch := oldTerm.Epoch() + 1 // the kept rows are numbered anew
	if cd, cerr := checkDir("cwd", cwd); cerr != nil {
		s.mu.Lock()
		p.relaunching = false
		s.mu.Unlock()
		return Pane{}, cerr
	} else {
		cwd = cd
	}

	s.mu.Lock()
	proc, perr := pty.Start(pty.Config{
		Argv: argv, Dir: cwd, Env: childEnv(s.cfg.Environ, env, p.id, s.cfg.Address),
		Cols: cols, Rows: rows, HistoryRows: s.cfg.HistoryRows, HistoryBytes: s.cfg.HistoryBytes, History: history, Epoch: epoch,
		OnEvent: func(e term.Event) { s.observe(p, e) },
		OnExit:  func(st pty.ExitStatus) { s.exited(p, st) },
	})
	p.relaunching = false
	if perr != nil {
		s.mu.Unlock()
		return Pane{}, spawnError(perr, argv)
	}
	p.proc, p.term, p.pid = proc, proc.Terminal(), proc.Pid()
	p.exited, p.terminating, p.status, p.exitedAt = false, false, nil, time.Time{}
	p.restoreState, p.run, p.altScreen = snapshot.RestoreLive, nil, false
	p.commandOpen, p.programStatus = false, false
	p.restoredRows = int64(len(history))
	s.emit("pane.relaunched", p.id, map[string]any{"workspace": p.workspace, "tab": p.tab, "argv0": argv0(argv)})
	snap := p.snapshot()
	s.mu.Unlock()

	if oldProc != nil {
		oldProc.Close()
	}
	oldTerm.Close()
	s.log.Info("pane relaunched", "pane", p.id, "pid", snap.Pid)
	return snap, nil
}

package service

import (
	"context"
	"math"
	"slices"

	"github.com/signaltty/signaltty/pty"
	"github.com/signaltty/signaltty/service/agents"
	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/term"
)

// RelaunchPane is RelaunchPaneWith without changes to the environment.
func (s *Service) RelaunchPane(id string) (Pane, error) {
	p, _, err := s.RelaunchPaneWith(id, RestartEnv{})
	return p, err
}

// RelaunchPaneWith starts a pane's saved argv again, in its saved cwd,
// with its environment (the one it was started with while the daemon
// runs; after a restart the allowlisted saved part) changed by r, and its
// size, as a fresh PTY child in the same pane: same id, tab and title, its
// earlier rows kept above the new output in a new numbering epoch
// (Mux.RelaunchPane; docs/persistence.md, "Relaunch"). lost names the
// variables the pane was started with that the new process does not have
// (values lost in a restart, not given again in r). Only a pane without a
// process can be relaunched: a restored tombstone or one that exited. A
// pane's run, if any, is not carried over: a relaunch is never a run.
// Errors: not_found.pane, conflict.pane_live, conflict.relaunching
// (another start is under way), conflict.removing (a removal took the
// pane meanwhile), invalid_params.cwd (the saved directory is gone),
// invalid_params.env, invalid_params.env_unset, unavailable.spawn,
// unavailable.shutdown; on any of them the pane is as it was.
func (s *Service) RelaunchPaneWith(id string, r RestartEnv) (Pane, []string, error) {
	snap, lost, err := s.restartPane(id, errcode.ConflictRelaunching, r, func(p *pane) (*restartCommand, *Error) {
		if len(p.argv) == 0 {
			return nil, invalid("argv", "missing", "pane %s has no saved command", id)
		}
		return &restartCommand{argv: slices.Clone(p.argv)}, nil
	})
	if err != nil {
		return Pane{}, nil, err
	}
	s.log.Info("pane relaunched", "pane", snap.ID, "pid", snap.Pid)
	return snap, lost, nil
}

// restartCommand is what a restart runs: argv with env as the pane's own
// environment before RestartEnv applies (nil: the pane's environment).
type restartCommand struct {
	argv []string
	env  map[string]string
	// typed, when set, is typed into the new process once it started (a
	// shell pane's resume: the shell runs the agent's resume command).
	typed string
	// committed, when set, is called with s.mu held once the start
	// committed, so its events follow pane.relaunched in the same section.
	committed func(p *pane)
}

// restartPane starts a process again in a pane without one: through the
// one start path (start.go), keeping the pane's rows above the new output.
// busy names the conflict when another start is under way; pick checks the
// pane (s.mu held) and returns what to run. A restart that does not
// commit leaves the pane as it was, its command and environment included.
func (s *Service) restartPane(id string, busy errcode.Code, r RestartEnv, pick func(p *pane) (*restartCommand, *Error)) (Pane, []string, error) {
	if err := r.check(); err != nil {
		return Pane{}, nil, err
	}
	var (
		p                      *pane
		cmd                    *restartCommand
		env                    map[string]string
		unset, transient, lost []string
		old                    *term.Terminal
		prevArgv               []string
		tail                   term.Tail
		snap                   Pane
		proc                   *pty.Process
	)
	err := s.startPane(startSteps{
		reserveLocked: func() (*start, *Error) {
			var err *Error
			p, err = s.lookupPane(id)
			switch {
			case err != nil:
			case p.state == stateStarting:
				err = newError(busy, map[string]any{"pane": id}, "pane %s is being started", id)
			case p.state.hasProcess():
				err = newError(errcode.ConflictPaneLive, map[string]any{"pane": id}, "pane %s is live", id)
			case s.stopping:
				err = errcode.Shutdown()
			default:
				if err = s.limits.checkPaneLimitLocked(); err == nil {
					cmd, err = pick(p)
				}
			}
			if err != nil {
				return nil, err
			}
			env, unset, transient, lost = restartEnvOfLocked(p, cmd.env, r)
			old = p.term
			st := s.reserveLocked(p, nil, spawnSpec{})
			st.cfg.Argv = slices.Clone(cmd.argv)
			st.cfg.Env = childEnvFrom(s.childBase, env, unset, p.id, s.cfg.Address)
			return st, nil
		},
		// Outside s.mu: the old rows (a terminal lock) and the saved cwd (disk).
		prepare: func(st *start) {
			tail = old.TailStyled(tailRows, math.MaxInt) // in their colours
			// The kept rows are numbered anew.
			st.termCfg.History, st.termCfg.Epoch = tail.Lines, old.Epoch()+1
			if cwd, cerr := checkDir("cwd", st.cfg.Dir); cerr != nil {
				st.err = cerr
			} else {
				st.cfg.Dir = cwd
			}
		},
		// spawnError names the program that failed to start
		beforeCommitLocked: func(*start) { prevArgv, p.argv = p.argv, cmd.argv },
		committedLocked: func(*start) {
			p.restoredRows = int64(len(tail.Lines))
			// A new process: what the agent was doing and what it wanted from
			// the user belonged to the one before (docs/agents.md, "Lifecycle").
			s.agentChangedLocked(p, p.agent.SetLifecycle(p.id, agents.LifecycleUnknown))
			s.agentChangedLocked(p, p.agent.ClearAttention(p.id, "restart"))
			p.env, p.envUnset, p.envTransient, p.envLost = env, unset, transient, lost
			if cmd.committed != nil {
				cmd.committed(p)
			}
			if cmd.typed != "" && p.inst != nil {
				proc = p.inst.proc
			}
			snap = p.snapshot()
		},
		failedLocked: func(*start) {
			if s.panes[p.id] == p {
				p.argv = prevArgv
			}
		},
	})
	if err != nil {
		return Pane{}, nil, err
	}
	if proc != nil { // outside s.mu: a write to the terminal
		ctx, cancel := context.WithTimeout(context.Background(), startWait)
		_, werr := proc.Send(ctx, []byte(cmd.typed))
		cancel()
		if werr != nil {
			s.log.Warn("typing the resume command into the shell failed", "pane", snap.ID, "err", werr)
		}
	}
	return snap, lost, nil
}

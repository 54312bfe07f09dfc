package service

import (
	"runtime"
	"strconv"

	"github.com/signaltty/signaltty/pty"
	"github.com/signaltty/signaltty/service/agents"
	"github.com/signaltty/signaltty/service/events"
	"github.com/signaltty/signaltty/service/runs"
	"github.com/signaltty/signaltty/term"
)

// observe records an observation from a pane's output and publishes it
// (docs/events.md, "Observations"). Called by the instance's emulation
// goroutine; it waits until the start was decided, and drops observations
// of an instance that is not (or no longer) the pane's.
func (s *Service) observe(p *pane, inst *instance, e term.Event) {
	<-inst.decided
	if !inst.committed {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.inst != inst || !p.state.hasProcess() {
		return
	}
	switch e.Kind {
	case term.EventTitle:
		if p.title != e.Text {
			p.title = e.Text
			s.titleChangedLocked(p)
		}
	case term.EventCwd:
		p.reportedCwd = e.Text
		s.emitLocked(events.PaneCwd{Pane: p.id, Cwd: e.Text})
	case term.EventBell:
		s.emitLocked(events.PaneBell{Pane: p.id})
		s.agentChangedLocked(p, p.agent.RaiseAttention(p.id, agents.AttentionUnread))
	case term.EventNotify:
		src := "osc9"
		if e.Code != nil {
			src = "osc" + strconv.Itoa(*e.Code)
		}
		s.Notifications().addLocked(p, "", e.Text, e.Body, "info", src)
	case term.EventCommandStart:
		p.commandOpen = true
		s.emitLocked(events.CommandStarted{Pane: p.id})
	case term.EventCommandFinish:
		p.commandOpen = false
		s.emitLocked(events.CommandFinished{Pane: p.id, Code: e.Code})
	case term.EventProgramStatus:
		st := e.Text
		if len(st) > 1024 {
			st = st[:1024]
		}
		p.programStatus = true
		s.emitLocked(events.ProgramStatusChanged{Pane: p.id, Status: st})
	case term.EventAltScreen:
		if p.altScreen != e.Bool {
			p.altScreen = e.Bool
			screen := term.ScreenPrimary
			if e.Bool {
				screen = term.ScreenAlternate
			}
			s.emitLocked(events.PaneUpdated{Pane: p.id, Screen: screen})
		}
	}
}

// processExited moves a pane to exited when its instance's leader was
// reaped and its output emulated (called once per instance, on its own
// goroutine). The output tail an observer asked for is taken first,
// outside s.mu: the terminal is final by now.
func (s *Service) processExited(p *pane, inst *instance, es pty.ExitStatus) {
	<-inst.decided
	if !inst.committed {
		return
	}
	swept := inst.mark != 0 && inst.proc.Cgroup() == nil
	if swept { // before the exit is recorded: Shutdown waits for it (escapees.go)
		s.sweeps.add()
		defer func() { go s.sweepInstance(p, inst) }()
	}
	info := &exitInfo{status: es, escaped: !swept && leftRunning(inst.proc, es)}
	if inst.wantTail {
		info.output = runs.NewOutput(paneTail(inst.term, inst.tailRows, inst.tailBytes), inst.proc.Offset())
	}
	s.mu.Lock()
	if p.inst == inst && p.state.hasProcess() {
		s.transitionLocked(p, change{to: stateExited, exit: info})
	}
	s.mu.Unlock()
	// The transition woke whoever waits for this exit (Run.Wait, Mux.Wait):
	// let them run on this P now, before the log writes and the terminal's
	// release below, rather than after them or on another thread woken to
	// steal them.
	runtime.Gosched()
	if es.Code != nil {
		s.log.Info("pane exited", "pane", p.id, "code", *es.Code)
	} else {
		s.log.Info("pane exited", "pane", p.id, "signal", es.Signal)
	}
	inst.term.Release()
}

// paneTail is a terminal's last rows (term.Tail): the one tail algorithm
// behind a run's output and a snapshot's saved rows.
func paneTail(t *term.Terminal, maxRows, maxBytes int) term.Tail {
	return t.Tail(maxRows, maxBytes)
}

func statusData(w *WaitStatus) events.ExitData {
	return events.ExitData{CoreDumped: w.CoreDumped, Code: w.Code, Signal: w.Signal}
}

// leftRunning reports whether an instance that no sweep follows left
// descendants running: with a cgroup, processes still in it after a leader
// that exited on its own (a termination ends with cgroup.kill); without
// one, the PTY still held open after the drain.
func leftRunning(proc *pty.Process, es pty.ExitStatus) bool {
	if cg := proc.Cgroup(); cg != nil {
		return !proc.Terminating() && cg.Populated()
	}
	return es.HeldOpen
}

package service

import (
	"fmt"
	"syscall"
	"time"

	"github.com/signaltty/signaltty/pty"
	"github.com/signaltty/signaltty/service/events"
	"github.com/signaltty/signaltty/snapshot"
	"github.com/signaltty/signaltty/term"
	"golang.org/x/sys/unix"
)

// A pane's lifecycle (docs/pane-lifecycle.md). The state is one field,
// pane.state, changed only by transition below, with s.mu held; the events
// of a transition are published by transition itself, in the same critical
// section. Verbs check the state, never anything else.
type paneState uint8

const (
	stateNone        paneState = iota // not in the model yet (a new pane before its reservation)
	stateRestored                     // a tombstone from a snapshot: saved rows, no process
	stateStarting                     // a process is being started for it (spawn, relaunch) outside s.mu
	stateLive                         // its leader runs
	stateTerminating                  // the stop sequence is under way (docs/termination.md)
	stateExited                       // its leader was reaped; its rows stay
	stateRemoved                      // gone from the model; its resources are released
)

var stateNames = [...]string{"none", "restored", "starting", "live", "terminating", "exited", "removed"}

func (st paneState) String() string { return stateNames[st] }

// legal lists, for each state, the states a pane may move to.
var legal = map[paneState][]paneState{
	stateNone:        {stateStarting, stateRestored, stateExited}, // a spawn's reservation; a restore
	stateRestored:    {stateStarting, stateRemoved},               // relaunch; removal
	stateStarting:    {stateLive, stateRestored, stateExited, stateRemoved},
	stateLive:        {stateTerminating, stateExited},
	stateTerminating: {stateExited},
	stateExited:      {stateStarting, stateRemoved},
}

// hasProcess reports whether a pane in this state has a process of its own
// that the daemon supervises (starting panes have none yet).
func (st paneState) hasProcess() bool { return st == stateLive || st == stateTerminating }

// holdsPTY reports whether the pane counts as live for removal and restore:
// it has a process, or is getting one.
func (st paneState) holdsPTY() bool { return st == stateStarting || st.hasProcess() }

// change is one transition and what it carries.
type change struct {
	to paneState
	// stateTerminating: the signal sent first and why (a run's cause).
	signal syscall.Signal
	cause  string
	// stateExited from a process: its wait status and final rows.
	exit *exitInfo
	// stateStarting: the reservation.
	start *start
	// stateRemoved of a pane that is starting: the error its starter fails with.
	lost *Error
}

// exitInfo is what a process left when it exited.
type exitInfo struct {
	status pty.ExitStatus
	output *RunOutput // nil unless an observer asked for it (see instance.tail)
	// escaped: the leader left descendants running that no sweep will stop
	// (see Status.Escaped); a swept instance is counted by its sweep.
	escaped bool
}

// paneObserver follows a pane's transitions: a run follows the pane whose
// leader is its command. Called by transition with s.mu held, after the
// pane's own events, so an observer's events follow them.
type paneObserver interface {
	paneChanged(s *Service, p *pane, from paneState, c change)
}

// transitionLocked moves p to c.to and publishes the events of that move; s.mu is
// held. An illegal move is a programming error: it panics with both states.
func (s *Service) transitionLocked(p *pane, c change) {
	from := p.state
	ok := false
	for _, to := range legal[from] {
		ok = ok || to == c.to
	}
	if !ok {
		panic(fmt.Sprintf("service: pane %s: illegal transition %s -> %s", p.id, from, c.to))
	}
	announced := p.announced()
	p.state = c.to
	s.records.touch(p)
	s.limits.countPTYLocked(from, c.to)
	switch c.to {
	case stateStarting:
		c.start.from = from
		p.start = c.start
	case stateLive:
		if announced {
			p.relaunched()
			s.emitLocked(events.PaneRelaunched{Pane: p.id, Workspace: p.workspace, Tab: p.tab, Argv0: argv0(p.argv)})
		} else {
			s.emitLocked(events.PaneCreated{Pane: p.id, Workspace: p.workspace, Tab: p.tab, Argv0: argv0(p.argv), Cols: p.cols, Rows: p.rows})
		}
	case stateTerminating:
		s.emitLocked(events.PaneTerminating{Pane: p.id, Signal: unix.SignalName(c.signal)})
	case stateExited:
		if c.exit != nil {
			s.recordExitLocked(p, c.exit.status, c.exit.escaped)
		}
	case stateRemoved:
		if p.start != nil {
			p.start.lost = c.lost
		}
		if announced {
			s.emitLocked(events.PaneRemoved{Pane: p.id, Workspace: p.workspace, Tab: p.tab})
		}
		delete(s.panes, p.id)
	}
	if from == stateStarting {
		close(p.start.settled) // whoever waited for the start looks again
		p.start = nil
	}
	for _, o := range p.observers {
		o.paneChanged(s, p, from, c)
	}
	if c.to == stateExited || c.to == stateRemoved {
		p.observers = nil
	}
}

// recordExitLocked records a leader's wait status and publishes the pane-exit
// sequence (docs/events.md, "Pane exit sequence"): an open command is finished, a
// reported program status cleared, then pane.exited; s.mu is held.
func (s *Service) recordExitLocked(p *pane, st pty.ExitStatus, escaped bool) {
	p.exitedAt = st.At
	p.status = &WaitStatus{Code: st.Code, Signal: st.Signal, CoreDumped: st.CoreDumped}
	if escaped {
		s.escaped++
	}
	if p.commandOpen {
		p.commandOpen = false
		s.emitLocked(events.CommandFinished{Pane: p.id, Reason: "pane_exit"})
	}
	if p.programStatus {
		p.programStatus = false
		s.emitLocked(events.ProgramStatusChanged{Pane: p.id, Status: "", Reason: "pane_exit"})
	}
	s.emitLocked(events.PaneExited{Pane: p.id, Status: statusData(p.status)})
}

// relaunched resets what a pane observed of its previous process.
func (p *pane) relaunched() {
	p.status, p.exitedAt = nil, time.Time{}
	p.altScreen, p.commandOpen, p.programStatus = false, false, false
	p.resumable, p.shutdownSave = false, false
}

// shown is the state a pane shows to clients: a pane that is starting shows
// the state it started from until the start is committed.
func (p *pane) shown() paneState {
	if p.state == stateStarting {
		return p.start.from
	}
	return p.state
}

// announced reports whether pane.created was published for p: it shows a
// state, which a new pane does not until its first start commits.
func (p *pane) announced() bool { return p.shown() != stateNone }

// restoreState is the pane's restore state as the persistence contract
// names it (docs/persistence.md, "Restore states").
func (p *pane) restoreState() string {
	switch p.shown() {
	case stateRestored:
		if p.resumable {
			return snapshot.RestoreResumable
		}
		return snapshot.RestoreRestored
	case stateExited, stateRemoved:
		return snapshot.RestoreExited
	}
	return snapshot.RestoreLive
}

// instance is one process started for a pane: by a spawn or a relaunch. Its
// callbacks (observations, exit) wait until the start was decided, so
// nothing a process does reaches the model before its pane was committed,
// and nothing of an abandoned start ever does. Its proc writes its output to
// its term, which launch made (start.go); it stays readable after the exit.
type instance struct {
	id      string // "i<N>": this daemon's Nth process instance (a wait baseline names it)
	proc    *pty.Process
	term    *term.Terminal
	mark    uint64        // its pane mark (escapees.go); 0: none
	decided chan struct{} // closed once committed is final
	// Written under s.mu before decided is closed; read-only after.
	committed           bool
	tailRows, tailBytes int // the output tail an observer wants at the exit (0: none)
	wantTail            bool
}

func newInstance() *instance { return &instance{decided: make(chan struct{})} }

package service

import (
	"context"
	"errors"
	"syscall"
	"time"

	"github.com/signaltty/signaltty/pty"
	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/request"
	"golang.org/x/sys/unix"
)

// KillPane terminates a pane's processes (Mux.KillPane; docs/termination.md)
// and returns the pane once it exited. grace < 0 means the default. A pane
// without a process is returned as it is; one that is starting is
// terminated once its start is decided.
func (s *Service) KillPane(ctx context.Context, id, signal string, grace time.Duration) (Pane, error) {
	sig, err := request.ParseStop(signal, grace)
	if err != nil {
		return Pane{}, err
	}
	s.mu.Lock()
	p, err := s.lookupPane(id)
	s.mu.Unlock()
	if err != nil {
		return Pane{}, err
	}
	if err := s.terminate(ctx, []*pane{p}, sig, grace, CausePaneKill); err != nil {
		return Pane{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.state == stateRemoved {
		return Pane{}, notFound("pane", id)
	}
	return p.snapshot(), nil
}

// terminate runs the stop sequence on the panes among ps that have a
// process, concurrently, and waits until each has exited and been
// recorded. A pane that is starting is waited for and then stopped if its
// start committed. sig 0 means SIGHUP; grace < 0 means pty.DefaultGrace;
// cause is what the pane's observers (its run) record (first cause wins).
// It fails with timeout.terminate when a leader was not reaped within the
// kill-wait, or with cancelled when ctx ended.
func (s *Service) terminate(ctx context.Context, ps []*pane, sig syscall.Signal, grace time.Duration, cause string) *Error {
	if sig == 0 {
		sig = unix.SIGHUP
	}
	if grace < 0 {
		grace = pty.DefaultGrace
	}
	var procs []*pty.Process
	for pending := ps; len(pending) > 0; {
		var wait []chan struct{}
		var again []*pane
		s.mu.Lock()
		for _, p := range pending {
			switch p.state {
			case stateStarting:
				wait, again = append(wait, p.start.settled), append(again, p)
			case stateLive:
				s.transitionLocked(p, change{to: stateTerminating, signal: sig, cause: cause})
				fallthrough
			case stateTerminating:
				procs = append(procs, p.inst.proc)
			}
		}
		s.mu.Unlock()
		for _, ch := range wait {
			select {
			case <-ch:
			case <-ctx.Done():
				return newError(errcode.CodeCancelled, nil, "request cancelled while terminating")
			}
		}
		pending = again
	}
	errs := make(chan error, len(procs))
	for _, proc := range procs {
		go func(proc *pty.Process) {
			err := proc.Terminate(ctx, sig, grace, pty.DefaultKillWait)
			if err == nil {
				select { // the exit is recorded (processExited) before Done closes
				case <-proc.Done():
				case <-ctx.Done():
					err = ctx.Err()
				}
			}
			errs <- err
		}(proc)
	}
	var first error
	for range procs {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	switch {
	case first == nil:
		return nil
	case errors.Is(first, pty.ErrTerminateTimeout):
		return newError(errcode.TimeoutTerminate, nil, "a process was not reaped %v after SIGKILL", pty.DefaultKillWait)
	case errors.Is(first, context.Canceled), errors.Is(first, context.DeadlineExceeded):
		return newError(errcode.CodeCancelled, nil, "request cancelled while terminating")
	}
	return newError(errcode.CodeInternal, nil, "terminate: %v", first)
}

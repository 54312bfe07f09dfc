package service

import (
	"context"
	"sync"

	"github.com/signaltty/signaltty/pty"
	"github.com/signaltty/signaltty/service/procs"
)

// Processes a pane left behind (docs/termination.md, "Descendants outside
// the process group"). Every process instance of a pane gets a mark of its
// own (procs.Mark.NewInstance): a hard RLIMIT_RTTIME below the daemon's,
// that its descendants inherit and cannot raise, whatever they do with
// their session, process group or parent. Without a cgroup, the end of the
// leader (its own exit, a kill, a removal, the shutdown) is followed by a
// sweep (procs.Sweeper): the processes carrying the instance's mark are
// found in /proc, pinned by pidfd and stopped with the termination
// sequence; those still alive after it are what the pane is counted as
// having left running.

// PaneMark is the mark of the daemon's processes (procs.Mark).
type PaneMark = procs.Mark

// sweepInstance stops what an exited instance left running, carrying its
// mark, and counts the pane as having escaped descendants when some of
// them outlived the stop; s.mu is not held. Only instances without a
// cgroup are swept (a cgroup names its processes itself).
func (s *Service) sweepInstance(p *pane, inst *instance) {
	defer s.sweeps.done()
	found, left := s.sweeper.Sweep(inst.mark, pty.DefaultGrace, pty.DefaultKillWait)
	if found > 0 {
		s.log.Info("stopped processes a pane left", "pane", p.id, "instance", inst.id, "found", found, "left", left)
	}
	if left > 0 {
		s.mu.Lock()
		s.escaped++
		s.mu.Unlock()
	}
}

// sweepCount counts the sweeps under way. Unlike a sync.WaitGroup it may be
// waited for while sweeps start: a pane may end during the shutdown.
type sweepCount struct {
	mu   sync.Mutex
	n    int
	zero chan struct{} // closed when n went back to 0
}

// closedChan is an already closed channel: no sweep is under way.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (c *sweepCount) add() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == 0 {
		c.zero = make(chan struct{})
	}
	c.n++
}

func (c *sweepCount) done() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n--; c.n == 0 {
		close(c.zero)
	}
}

// idle is closed once no sweep that had started when it was called runs.
func (c *sweepCount) idle() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == 0 {
		return closedChan
	}
	return c.zero
}

// waitCtx waits for the sweeps under way, or until ctx ends.
func (c *sweepCount) waitCtx(ctx context.Context) {
	select {
	case <-c.idle():
	case <-ctx.Done():
	}
}

// Wait waits until no sweep runs.
func (c *sweepCount) Wait() { <-c.idle() }

package service

import (
	"context"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/signaltty/signaltty/pty"
	"github.com/signaltty/signaltty/service/procs"
	"golang.org/x/sys/unix"
)

// Processes a pane left behind (docs/termination.md, "Descendants outside
// the process group"). Every process instance of a pane gets a mark of its
// own (instanceMark): a hard RLIMIT_RTTIME below the daemon's, that its
// descendants inherit and cannot raise, whatever they do with their
// session, process group or parent. Without a cgroup, the end of the
// leader (its own exit, a kill, a removal, the shutdown) is followed by a
// sweep: the processes carrying the instance's mark are found in /proc,
// pinned by pidfd and stopped with the termination sequence; those still
// alive after it are what the pane is counted as having left running.

// PaneMark is the mark of the daemon's processes (procs.Mark).
type PaneMark = procs.Mark

// sweepRounds bounds the rounds of a sweep: a process that forks while it
// is being stopped is found by the next round's scan.
const sweepRounds = 3

// markScanner finds the processes carrying given marks. One scan of /proc
// runs at a time, outside every lock of the model; the requests that
// arrive during a scan are answered together by the next one, so that
// many panes ending at once cost a few scans, not one each.
type markScanner struct {
	mu   sync.Mutex
	next *markScan // requests for the scan after the running one
	busy bool      // a scanning goroutine runs
}

// markScan is one scan: the marks asked for and, once done is closed, the
// pids found for each.
type markScan struct {
	pids map[uint64][]int
	done chan struct{}
}

// find returns the pids of the processes whose hard RLIMIT_RTTIME is mark,
// as one scan of /proc that started after this call saw them.
func (c *markScanner) find(mark uint64) []int {
	c.mu.Lock()
	b := c.next
	if b == nil {
		b = &markScan{pids: map[uint64][]int{}, done: make(chan struct{})}
		c.next = b
		if !c.busy {
			c.busy = true
			go c.run()
		}
	}
	b.pids[mark] = nil
	c.mu.Unlock()
	<-b.done
	return b.pids[mark]
}

// run scans for each batch of requests until none is waiting.
func (c *markScanner) run() {
	for {
		c.mu.Lock()
		b := c.next
		c.next = nil
		if b == nil {
			c.busy = false
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		scanMarks(b.pids)
		close(b.done)
	}
}

// scanMarks adds to want[mark] every process of /proc whose hard
// RLIMIT_RTTIME is mark. Processes whose limits this user may not read
// (other users') are skipped: the daemon could not signal them either.
func scanMarks(want map[uint64][]int) {
	d, err := os.Open("/proc")
	if err != nil {
		return
	}
	defer d.Close()
	self := os.Getpid()
	for {
		names, err := d.Readdirnames(512)
		for _, name := range names {
			pid, err := strconv.Atoi(name)
			if err != nil || pid == self {
				continue
			}
			var l unix.Rlimit
			if unix.Prlimit(pid, unix.RLIMIT_RTTIME, nil, &l) != nil {
				continue
			}
			if _, ok := want[l.Max]; ok {
				want[l.Max] = append(want[l.Max], pid)
			}
		}
		if err != nil {
			return
		}
	}
}

// pinned is a process found by a scan, held by its pidfd.
type pinned struct {
	pid int
	fd  int
}

// pinMarked opens a pidfd for each pid and keeps those that, once pinned,
// still carry mark: a pid reused between the scan and the pidfd_open is
// dropped, and signals go through the pidfd, never to a pid.
func pinMarked(pids []int, mark uint64) []pinned {
	var out []pinned
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // gone
		}
		// The limit read through pid is the pinned process's only if that
		// process had not exited when it was read (a pid is not reused
		// before its process is reaped).
		var l unix.Rlimit
		if unix.Prlimit(pid, unix.RLIMIT_RTTIME, nil, &l) != nil || l.Max != mark || exited(fd) {
			unix.Close(fd)
			continue
		}
		out = append(out, pinned{pid: pid, fd: fd})
	}
	return out
}

// exited reports whether the process of pidfd fd has exited.
func exited(fd int) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 0)
		if err != unix.EINTR {
			return n == 1
		}
	}
}

// signalAll sends sig to each pinned process.
func signalAll(ps []pinned, sig unix.Signal) {
	for _, p := range ps {
		unix.PidfdSendSignal(p.fd, sig, nil, 0)
	}
}

// waitGone waits up to d (monotonic) for the pinned processes to exit and
// returns those still alive; the pidfds of the others are closed.
func waitGone(ps []pinned, d time.Duration) []pinned {
	end := time.Now().Add(d)
	for len(ps) > 0 {
		fds := make([]unix.PollFd, len(ps))
		for i, p := range ps {
			fds[i] = unix.PollFd{Fd: int32(p.fd), Events: unix.POLLIN}
		}
		left := time.Until(end)
		if left < 0 {
			left = 0
		}
		n, err := unix.Poll(fds, int(left.Milliseconds()))
		if err == unix.EINTR {
			continue
		}
		alive := ps[:0]
		for i, p := range ps {
			if fds[i].Revents != 0 {
				unix.Close(p.fd)
			} else {
				alive = append(alive, p)
			}
		}
		ps = alive
		if err != nil || n == 0 {
			break
		}
	}
	return ps
}

// stopMarked stops every process carrying mark with the termination
// sequence (docs/termination.md, "Sequence"): SIGHUP and SIGCONT, up to
// grace for them to exit, SIGKILL, up to killWait; a process that forked
// meanwhile is found by the next round. It returns how many processes it
// found, and how many of them were still alive at the end.
func (c *markScanner) stopMarked(mark uint64, grace, killWait time.Duration) (found, left int) {
	var alive []pinned
	for round := 0; round < sweepRounds; round++ {
		ps := pinMarked(c.find(mark), mark)
		if len(ps) == 0 {
			break
		}
		found += len(ps)
		if round == 0 {
			signalAll(ps, unix.SIGHUP)
			signalAll(ps, unix.SIGCONT)
			ps = waitGone(ps, grace)
		}
		signalAll(ps, unix.SIGKILL)
		ps = waitGone(ps, killWait)
		for _, p := range alive {
			unix.Close(p.fd)
		}
		alive = ps
	}
	for _, p := range alive {
		if !exited(p.fd) {
			left++
		}
		unix.Close(p.fd)
	}
	return found, left
}

// sweepInstance stops what an exited instance left running, carrying its
// mark, and counts the pane as having escaped descendants when some of
// them outlived the stop; s.mu is not held. Only instances without a
// cgroup are swept (a cgroup names its processes itself).
func (s *Service) sweepInstance(p *pane, inst *instance) {
	defer s.sweeps.done()
	found, left := s.scanner.stopMarked(inst.mark, pty.DefaultGrace, pty.DefaultKillWait)
	if found > 0 {
		s.log.Info("stopped processes a pane left", "pane", p.id, "instance", inst.id, "found", found, "left", left)
	}
	if left > 0 {
		s.mu.Lock()
		s.escaped++
		s.mu.Unlock()
	}
}

// waitSweeps waits for the sweeps under way, or until ctx ends.
func (s *Service) waitSweeps(ctx context.Context) {
	select {
	case <-s.sweeps.idle():
	case <-ctx.Done():
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

// Wait waits until no sweep runs.
func (c *sweepCount) Wait() { <-c.idle() }

package procs

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// sweepRounds bounds the rounds of a sweep: a process that forks while it
// is being stopped is found by the next round's scan.
const sweepRounds = 3

// Sweeper stops the processes carrying an instance mark (docs/termination.md,
// "Descendants outside the process group"). One scan of /proc runs at a
// time, outside every lock of the caller; the requests that arrive during a
// scan are answered together by the next one, so that many panes ending at
// once cost a few scans, not one each. The zero value is ready to use.
type Sweeper struct {
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
func (c *Sweeper) find(mark uint64) []int {
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
func (c *Sweeper) run() {
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
		ScanMarks(func(pid int, hard uint64) {
			if _, ok := b.pids[hard]; ok {
				b.pids[hard] = append(b.pids[hard], pid)
			}
		})
		close(b.done)
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
		if unix.Prlimit(pid, unix.RLIMIT_RTTIME, nil, &l) != nil || l.Max != mark || Exited(fd) {
			unix.Close(fd)
			continue
		}
		out = append(out, pinned{pid: pid, fd: fd})
	}
	return out
}

// Exited reports whether the process of pidfd fd has exited.
func Exited(fd int) bool {
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

// waitGone waits up to d (monotonic), and while ctx lasts, for the
// pinned processes to exit (a pidfd becomes readable then) and returns
// those still alive, in order; the pidfds of the others are closed. It
// polls in slices of at most 100 ms so that the end of ctx is noticed.
func waitGone(ctx context.Context, ps []pinned, d time.Duration) []pinned {
	end := time.Now().Add(d)
	for len(ps) > 0 && ctx.Err() == nil {
		fds := make([]unix.PollFd, len(ps))
		for i, p := range ps {
			fds[i] = unix.PollFd{Fd: int32(p.fd), Events: unix.POLLIN}
		}
		left := max(time.Until(end), 0)
		slice := min(left, 100*time.Millisecond)
		n, err := unix.Poll(fds, int((slice+time.Millisecond-1)/time.Millisecond))
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
		if err != nil || (n == 0 && slice == left) {
			break
		}
	}
	return ps
}

// Sweep stops every process carrying mark with the termination sequence
// (docs/termination.md, "Sequence"): SIGHUP and SIGCONT, up to grace for
// them to exit, SIGKILL, up to killWait; a process that forked meanwhile is
// found by the next round, up to three rounds. It returns how many
// processes it found, and how many of them were still alive at the end.
func (c *Sweeper) Sweep(mark uint64, grace, killWait time.Duration) (found, left int) {
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
			ps = waitGone(context.Background(), ps, grace)
		}
		signalAll(ps, unix.SIGKILL)
		ps = waitGone(context.Background(), ps, killWait)
		for _, p := range alive {
			unix.Close(p.fd)
		}
		alive = ps
	}
	for _, p := range alive {
		if !Exited(p.fd) {
			left++
		}
		unix.Close(p.fd)
	}
	return found, left
}

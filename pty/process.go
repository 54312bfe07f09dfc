package pty

import (
	"bytes"
	"context"
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/signaltty/signaltty/cgroup"
	"golang.org/x/sys/unix"
)

// Sizes and times of the output path.
const (
	readBufSize    = 64 << 10              // bytes of one chunk at most: what the master holds, in as many reads as needed (one returns at most 4 KiB)
	backlogChunks  = 8                     // chunks queued for emulation: at most 8×64 KiB = 512 KiB
	coalesceMax    = 256 << 10             // bytes handed to one Output.Write at most
	inlineMax      = 4 << 10               // a chunk up to this size the reader emulates itself when nothing is queued
	drainQuiet     = 50 * time.Millisecond // after the reap, stop reading after this long without output
	drainMax       = time.Second           // after the reap, stop waiting for output after this long
	drainSweep     = 128 << 10             // bytes read without waiting when the drain ends (the kernel's tty buffers hold ~70 KiB)
	replyQueue     = 16                    // query replies queued for the child's input; more are dropped
	maxReply       = 4 << 10               // bytes of one query reply; longer ones are dropped
	replyWriteWait = time.Second           // how long a reply may wait for the child to read its input
)

// Output is where a Process's output goes (a pane's terminal emulator). It
// must be safe for concurrent use: Write comes from one of the Process's
// own goroutines at a time (the reader or the emulator, never both at
// once), Resize from Process.Resize's caller.
type Output interface {
	// Write consumes p, output bytes in order (at most 256 KiB at a time);
	// it must not keep p.
	Write(p []byte)
	// Resize sets the size in cells (1..1000 each); Process.Resize calls
	// it before it resizes the PTY.
	Resize(cols, rows int)
	// Close is called once, by Process.Close, after the last Write.
	Close()
}

// Process is one PTY and its leader process, whose output goes to an Output.
//
// Goroutines of a live process: a reader (master → backlog), an emulator
// (backlog → Output.Write), a reply writer (Replies → master) and a
// supervisor that parks in the netpoller on the leader's pidfd. All of them
// end after the leader exited; Close waits for them. A small chunk read
// while nothing is queued or being emulated the reader writes to the Output
// itself: output that comes in small pieces (a TUI's redraws, an echo) then
// costs one wake-up, not a second one of the emulator.
type Process struct {
	pid    int
	master *os.File // non-blocking PTY master
	pidf   *os.File // non-blocking pidfd of the leader
	out    Output
	onExit func(ExitStatus)
	cgroup *cgroup.Group // nil without one

	backlog  chan chunk                // reader → emulator; closed by the reader
	writeMu  sync.Mutex                // held around each Output.Write (reader or emulator)
	queued   atomic.Int64              // chunks sent to the backlog and not yet written
	emuDone  chan struct{}             // closed when the emulator emulated everything read
	drainEnd atomic.Pointer[time.Time] // set at the reap: the drain window ends then
	offset   atomic.Int64              // bytes of output emulated
	heldOpen atomic.Bool               // the drain ended with the PTY still open
	replies  *Replies                  // query replies → reply writer
	reapedCh chan struct{}             // closed when the leader was reaped
	quit     chan struct{}             // closed when the master was closed
	done     chan struct{}             // closed after OnExit returned

	sendMu   sync.Mutex // serializes writes to the master (Send and replies)
	resizeMu sync.Mutex // keeps Output and PTY sizes in the same order

	mu     sync.Mutex // guards the fields below; held while reaping and while signalling
	reaped bool
	frozen bool         // input frozen by Terminate or Close
	stop   *termination // the first Terminate's run; nil before
	exited bool         // status is set
	status ExitStatus

	wg        sync.WaitGroup
	closeOnce sync.Once
}

// chunk is a pooled read buffer holding n bytes of output.
type chunk struct {
	b *[]byte
	n int
}

func (c chunk) bytes() []byte { return (*c.b)[:c.n] }

var (
	// readPool holds read buffers; the reader takes one only once the master
	// is readable, so a process waiting for output holds none.
	readPool     = sync.Pool{New: func() any { b := make([]byte, readBufSize); return &b }}
	coalescePool = sync.Pool{New: func() any { b := make([]byte, 0, coalesceMax); return &b }}
)

// newProcess starts the goroutines of a freshly spawned child writing to out.
func newProcess(cfg Config, out Output, master *os.File, pidfd, pid int) *Process {
	replies := cfg.Replies
	if replies == nil {
		replies = NewReplies()
	}
	p := &Process{
		pid:      pid,
		master:   master,
		out:      out,
		onExit:   cfg.OnExit,
		cgroup:   cfg.Cgroup,
		backlog:  make(chan chunk, backlogChunks),
		emuDone:  make(chan struct{}),
		replies:  replies,
		reapedCh: make(chan struct{}),
		quit:     make(chan struct{}),
		done:     make(chan struct{}),
	}

	// The pidfd must be non-blocking for the netpoller; os.NewFile then
	// registers it (a pidfd becomes readable when the process exits).
	unix.SetNonblock(pidfd, true)
	p.pidf = os.NewFile(uintptr(pidfd), "pidfd")

	p.wg.Add(4)
	go p.readLoop()
	go p.emulate()
	go p.replyLoop()
	go p.supervise()
	return p
}

// Offset is how many bytes of output the process has handed to its Output so far.
func (p *Process) Offset() int64 { return p.offset.Load() }

// Pid returns the leader's process id (also its process group and session id).
// After the exit it may name another process.
func (p *Process) Pid() int { return p.pid }

// Done is closed after the leader was reaped, its output written, the PTY
// closed and OnExit returned.
func (p *Process) Done() <-chan struct{} { return p.done }

// Status returns the exit status; ok is false until the exit was published
// (just before OnExit is called).
func (p *Process) Status() (st ExitStatus, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status, p.exited
}

// Terminating reports whether Terminate was called on the live process. It stays
// true after the exit.
func (p *Process) Terminating() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stop != nil
}

// Send writes data to the child's input, in order and never interleaved with
// other Sends or query replies. It waits while the PTY's input queue is full,
// until ctx is done.
//
// It returns the number of bytes written and: nil; ctx.Err() when ctx ended
// first; ErrExited once the leader was reaped; ErrTerminating once Terminate
// (or Close) was called.
func (p *Process) Send(ctx context.Context, data []byte) (written int, err error) {
	return p.writeInput(ctx, data)
}

// inputErrLocked reports why input is refused, or nil. p.mu must be held.
func (p *Process) inputErrLocked() error {
	switch {
	case p.reaped:
		return ErrExited
	case p.frozen:
		return ErrTerminating
	}
	return nil
}

// writeInput is Send; the reply writer uses it too.
func (p *Process) writeInput(ctx context.Context, data []byte) (int, error) {
	p.sendMu.Lock()
	defer p.sendMu.Unlock()

	// The deadline is set under p.mu so that a freeze (which sets a past
	// deadline under p.mu) is never overwritten by a writer that did not see it.
	p.mu.Lock()
	if err := p.inputErrLocked(); err != nil {
		p.mu.Unlock()
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		p.mu.Unlock()
		return 0, err
	}
	deadline, _ := ctx.Deadline() // zero: none
	p.master.SetWriteDeadline(deadline)
	p.mu.Unlock()

	if ctx.Done() != nil {
		fired := make(chan struct{})
		stop := context.AfterFunc(ctx, func() {
			p.master.SetWriteDeadline(aLongTimeAgo)
			close(fired)
		})
		defer func() {
			if !stop() {
				<-fired // its deadline must not hit the next writer
			}
		}()
	}

	n, err := p.master.Write(data)
	if err == nil {
		return n, nil
	}
	p.mu.Lock()
	ierr := p.inputErrLocked()
	p.mu.Unlock()
	switch {
	case ierr != nil:
		return n, ierr
	case ctx.Err() != nil:
		return n, ctx.Err()
	case errors.Is(err, os.ErrDeadlineExceeded):
		return n, context.DeadlineExceeded // the fd's timer fired just before ctx's
	case errors.Is(err, os.ErrClosed):
		return n, ErrExited
	}
	return n, err
}

// Resize sets the Output's and the PTY's size in cells (1..1000 each); the kernel
// sends SIGWINCH to the PTY's foreground process group. ErrExited once the
// leader was reaped. A size out of range is a programming error and panics.
func (p *Process) Resize(cols, rows int) error {
	if err := checkSize(cols, rows); err != nil {
		panic(err) // the caller validated the size
	}
	p.resizeMu.Lock()
	defer p.resizeMu.Unlock()
	p.mu.Lock()
	reaped := p.reaped
	p.mu.Unlock()
	if reaped {
		return ErrExited
	}
	// The emulator first, so that output drawn after SIGWINCH meets the new size.
	p.out.Resize(cols, rows)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reaped {
		return ErrExited
	}
	return setWinsize(p.master, cols, rows)
}

// Signal sends sig to the process group. ErrExited once the leader was
// reaped (its pid may then be reused); otherwise the error of kill(2).
func (p *Process) Signal(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.signalLocked(sig)
}

// signalLocked: kill(-pgid, sig) unless reaped. p.mu must be held: the reap
// happens under it, so the group id cannot have been reused.
func (p *Process) signalLocked(sig syscall.Signal) error {
	if p.reaped {
		return ErrExited
	}
	return unix.Kill(-p.pid, sig)
}

// freezeLocked refuses further input and aborts a pending write. p.mu must be held.
func (p *Process) freezeLocked() {
	p.frozen = true
	p.master.SetWriteDeadline(aLongTimeAgo)
}

// Close releases the process: a live one's input is frozen and its process group
// SIGKILLed; then Close waits until the leader was reaped and OnExit returned
// (so it must not be called from OnExit), waits for the process's goroutines
// and closes the Output. It is idempotent; concurrent calls wait for the first.
func (p *Process) Close() {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		if !p.reaped {
			p.freezeLocked()
			p.signalLocked(unix.SIGKILL)
		}
		p.mu.Unlock()
		<-p.done
		p.killCgroup()
		p.wg.Wait()
		p.out.Close()
	})
}

// readLoop moves output from the master into the backlog until EIO (no slave
// holder left), the master is closed, or the exit drain ends. A full backlog
// blocks it, which in turn blocks the child's writes. Each chunk is what the
// master holds when it becomes readable (up to readBufSize), so a stream of
// output reaches emulation in few, large pieces: one hand-off per chunk.
func (p *Process) readLoop() {
	defer p.wg.Done()
	defer close(p.backlog)
	rc, err := p.master.SyscallConn()
	if err != nil {
		return
	}
	for {
		if !p.armDrain() {
			p.heldOpen.Store(!p.sweep(rc))
			return
		}
		c, err := readChunk(rc)
		if c.n > 0 {
			p.deliver(c)
		}
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) { // the drain ended, not (yet) the PTY
				p.heldOpen.Store(!p.sweep(rc))
			}
			return
		}
	}
}

// readChunk waits in the netpoller until the master is readable and reads
// what it holds, up to readBufSize bytes, into a pooled buffer taken only
// then. It returns the chunk (n = 0: none, its buffer back in the pool) and
// the error that ends reading: EIO, a closed file or os.ErrDeadlineExceeded.
func readChunk(rc syscall.RawConn) (chunk, error) {
	var c chunk
	var rerr error
	err := rc.Read(func(fd uintptr) bool {
		if c.b == nil {
			c.b = readPool.Get().(*[]byte)
		}
		buf := *c.b
		for c.n < len(buf) {
			k, err := unix.Read(int(fd), buf[c.n:])
			if k > 0 {
				c.n += k
				continue
			}
			switch {
			case err == unix.EINTR:
				continue
			case err == unix.EAGAIN && c.n == 0:
				readPool.Put(c.b) // nothing yet: wait for readability without it
				c.b = nil
				return false
			case err == unix.EAGAIN:
			case err != nil:
				rerr = err
			default:
				rerr = unix.EIO // end of file: the slave side is gone
			}
			break
		}
		return true
	})
	if c.n == 0 && c.b != nil {
		readPool.Put(c.b)
		c.b = nil
	}
	if err != nil {
		return c, err
	}
	return c, rerr
}

// armDrain sets the read deadline for the next read once the leader was
// reaped: drainQuiet from now, but not beyond the drain window. It returns
// false when the window is over.
func (p *Process) armDrain() bool {
	end := p.drainEnd.Load()
	if end == nil {
		return true
	}
	now := time.Now()
	if !now.Before(*end) {
		return false
	}
	deadline := now.Add(drainQuiet)
	if deadline.After(*end) {
		deadline = *end
	}
	p.master.SetReadDeadline(deadline)
	return true
}

// sweep reads, without waiting, at most drainSweep bytes the kernel still
// holds: output the leader wrote before it exited that a slow emulation kept
// the reader from fetching within the drain window is still delivered. It
// reports whether it read the end of the output (EIO: no process holds the
// slave any more). A drain deadline that passed before the reader ran
// (a busy CPU) says nothing of the slave; this read does.
func (p *Process) sweep(rc syscall.RawConn) (closed bool) {
	for total := 0; total < drainSweep; {
		c := chunk{b: readPool.Get().(*[]byte)}
		var rerr error
		if err := rc.Control(func(fd uintptr) {
			for {
				if c.n, rerr = unix.Read(int(fd), *c.b); rerr != unix.EINTR {
					return
				}
			}
		}); err != nil || rerr != nil || c.n <= 0 {
			readPool.Put(c.b)
			return err == nil && (rerr == unix.EIO || rerr == nil && c.n == 0)
		}
		total += c.n
		p.deliver(c)
	}
	return false
}

// writeLocked writes data to the Output, counts its bytes and takes the
// chunks of it that came from the backlog off queued; p.writeMu is held.
func (p *Process) writeLocked(data []byte, chunks int64) {
	p.out.Write(data)
	p.offset.Add(int64(len(data)))
	p.queued.Add(-chunks)
}

// emulateHold, set only by tests, runs in the emulator between taking
// chunks from the backlog and writing them.
var emulateHold func()

// deliver hands a chunk read to emulation in order. A small chunk, when no
// chunk is queued or being written (queued is 0 and writeMu free), the
// reader writes itself; any other goes to the backlog, counted in queued
// before it is sent, so that a chunk the emulator took from the backlog but
// has not written yet keeps later ones behind it.
func (p *Process) deliver(c chunk) {
	if c.n <= inlineMax && p.queued.Load() == 0 && p.writeMu.TryLock() {
		if p.queued.Load() == 0 {
			p.writeLocked(c.bytes(), 0)
			p.writeMu.Unlock()
			readPool.Put(c.b)
			return
		}
		p.writeMu.Unlock()
	}
	p.queued.Add(1)
	p.backlog <- c
}

// emulate feeds the backlog to the Output, joining queued chunks into
// writes of at most coalesceMax bytes, until the reader closes the backlog.
func (p *Process) emulate() {
	defer p.wg.Done()
	defer close(p.emuDone)
	var next chunk
	have := false
	for {
		if !have {
			c, ok := <-p.backlog
			if !ok {
				return
			}
			next = c
		}
		have = false
		first, data := next, next.bytes()
		n := int64(1) // chunks in data
		var joined *[]byte
	join:
		for len(data) < coalesceMax {
			select {
			case c, ok := <-p.backlog:
				if !ok {
					break join
				}
				if len(data)+c.n > coalesceMax {
					next, have = c, true
					break join
				}
				if joined == nil {
					joined = coalescePool.Get().(*[]byte)
					*joined = append((*joined)[:0], data...)
				}
				*joined = append(*joined, c.bytes()...)
				data = *joined
				readPool.Put(c.b)
				n++
			default:
				break join
			}
		}
		if emulateHold != nil {
			emulateHold()
		}
		p.writeMu.Lock()
		p.writeLocked(data, n)
		p.writeMu.Unlock()
		readPool.Put(first.b)
		if joined != nil {
			coalescePool.Put(joined)
		}
	}
}

// Replies queues what the Output answers to queries (cursor position,
// device attributes, ...) for the child's input of the Process started with
// it (Config.Replies), without ever blocking the writer: a reply longer than
// 4 KiB, or one that finds 16 queued, is dropped. Replies written before the
// Process started wait in the queue.
type Replies struct{ ch chan []byte }

// NewReplies returns an empty reply queue for one Process.
func NewReplies() *Replies { return &Replies{ch: make(chan []byte, replyQueue)} }

// Write queues a copy of b; it always returns len(b), nil.
func (r *Replies) Write(b []byte) (int, error) {
	if len(b) > 0 && len(b) <= maxReply {
		select {
		case r.ch <- bytes.Clone(b):
		default:
		}
	}
	return len(b), nil
}

// replyLoop writes queued replies to the master until the master is closed.
// A reply the child does not read within replyWriteWait is dropped; replies
// to a frozen process are dropped.
func (p *Process) replyLoop() {
	defer p.wg.Done()
	for {
		select {
		case b := <-p.replies.ch:
			ctx, cancel := context.WithTimeout(context.Background(), replyWriteWait)
			p.writeInput(ctx, b)
			cancel()
		case <-p.quit:
			return
		}
	}
}

// ForegroundGroup is the foreground process group of the process's PTY
// (TIOCGPGRP on the master: one ioctl, no /proc read); 0 once the leader
// was reaped or when the kernel does not say.
func (p *Process) ForegroundGroup() int {
	p.mu.Lock()
	reaped := p.reaped
	p.mu.Unlock()
	if reaped {
		return 0
	}
	rc, err := p.master.SyscallConn()
	if err != nil {
		return 0
	}
	pgrp := 0
	rc.Control(func(fd uintptr) {
		if v, err := unix.IoctlGetInt(int(fd), unix.TIOCGPGRP); err == nil {
			pgrp = v
		}
	})
	return pgrp
}

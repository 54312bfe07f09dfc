package pty

import (
	"context"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"github.com/signaltty/signaltty/cgroup"
	"golang.org/x/sys/unix"
)

// Codes of a SIGCHLD siginfo (x/sys/unix does not define them for Linux).
const (
	cldExited = 1 // si_status is the exit code
	cldKilled = 2 // si_status is the signal
	cldDumped = 3 // si_status is the signal; core dumped
)

// siStatusOffset is the offset of si_status in struct siginfo: the union
// follows si_signo, si_errno and si_code (12 bytes) aligned to the pointer
// size, and si_status follows si_pid and si_uid in it: 24 on 64-bit Linux,
// 20 on 32-bit.
const siStatusOffset = (12+ptrSize-1)&^(ptrSize-1) + 8

const ptrSize = unsafe.Sizeof(uintptr(0))

// supervise waits for the leader's exit, reaps it, lets the output drain,
// publishes the status, calls OnExit, closes the PTY and closes Done.
// reapHold, set only by test builds (testhooks.go), delays the reap of an
// exited leader until the returned channel is closed.
var reapHold func(pid int) <-chan struct{}

func (p *Process) supervise() {
	defer p.wg.Done()
	st := p.waitAndReap()

	// Drain: read on until EIO, or drainQuiet without output (a background
	// process may hold the PTY open), or the drain window ends.
	end := time.Now().Add(drainMax)
	p.drainEnd.Store(&end)
	p.master.SetReadDeadline(time.Now().Add(drainQuiet)) // wakes a read armed before the reap
	<-p.emuDone
	st.HeldOpen = p.heldOpen.Load()

	p.mu.Lock()
	p.status, p.exited = st, true
	p.mu.Unlock()
	// The exit is recorded first, then the PTY closed (docs/termination.md,
	// "Descendants outside the process group"): closing the master is the
	// slowest step here (the kernel hangs the terminal up) and need not
	// delay whoever waits for the exit.
	if p.onExit != nil {
		p.onExit(st)
	}
	p.master.Close() // hangs up whatever still holds the slave
	p.pidf.Close()
	close(p.quit)
	close(p.done)
}

// waitAndReap parks in the netpoller until the pidfd is readable and
// waitid(WNOWAIT) sees the leader exited, then reaps it under p.mu and marks
// it reaped in the same critical section.
func (p *Process) waitAndReap() ExitStatus {
	rc, err := p.pidf.SyscallConn()
	if err == nil {
		err = rc.Read(func(fd uintptr) bool {
			var si unix.Siginfo
			switch err := unix.Waitid(unix.P_PIDFD, int(fd), &si, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil); err {
			case nil:
				return si.Signo != 0 // zero: still running
			case unix.EAGAIN, unix.EINTR:
				return false
			default:
				return true // ECHILD and such: the reap below reports it
			}
		})
	}
	if err != nil { // not pollable (should not happen): wait on a thread
		rc.Control(func(fd uintptr) {
			unix.SetNonblock(int(fd), false)
			var si unix.Siginfo
			for unix.Waitid(unix.P_PIDFD, int(fd), &si, unix.WEXITED|unix.WNOWAIT, nil) == unix.EINTR {
			}
		})
	}
	if reapHold != nil { // test builds only: a stand-in for a leader stuck in uninterruptible sleep
		<-reapHold(p.pid)
	}

	var si unix.Siginfo
	var werr error
	p.mu.Lock()
	rc.Control(func(fd uintptr) {
		for {
			if werr = unix.Waitid(unix.P_PIDFD, int(fd), &si, unix.WEXITED, nil); werr != unix.EINTR {
				break
			}
		}
	})
	at := time.Now()
	p.reaped = true
	p.master.SetWriteDeadline(aLongTimeAgo) // a pending Send returns ErrExited
	close(p.reapedCh)
	p.mu.Unlock()

	if werr != nil { // someone else reaped it: the status is unknown
		return ExitStatus{At: at}
	}
	return decodeStatus(&si, at)
}

// decodeStatus turns a waitid siginfo into an ExitStatus.
func decodeStatus(si *unix.Siginfo, at time.Time) ExitStatus {
	status := int(*(*int32)(unsafe.Add(unsafe.Pointer(si), siStatusOffset)))
	st := ExitStatus{At: at}
	switch si.Code {
	case cldExited:
		st.Code = &status
	case cldKilled, cldDumped:
		st.Signal = signalName(syscall.Signal(status))
		st.CoreDumped = si.Code == cldDumped
	}
	return st
}

// signalName returns "SIGKILL" and such; "SIG<n>" for signals without a name.
func signalName(sig syscall.Signal) string {
	if name := unix.SignalName(sig); name != "" {
		return name
	}
	return "SIG" + strconv.Itoa(int(sig))
}

// termination is the one run of the termination sequence of a pane.
type termination struct {
	done chan struct{} // closed when err is set
	err  error         // nil (reaped) or ErrTerminateTimeout
}

// Terminate stops the pane with the sequence docs/termination.md describes:
// it freezes input, sends sig (SIGHUP when 0) and SIGCONT to the process
// group, waits up to grace (DefaultGrace when < 0; 0 sends SIGKILL at once)
// for the leader's reap, then SIGKILLs the group and waits up to killWait
// (DefaultKillWait when ≤ 0). It returns nil once the leader was reaped
// (wait on Done for the status) and ErrTerminateTimeout when it was not
// reaped within killWait; the pane then stays terminating and Done still
// closes if the reap happens later.
//
// Only the first call signals; later and concurrent calls join it and return
// its result. On a pane whose leader was already reaped it returns nil at
// once. When ctx ends first it returns ctx.Err(); the termination goes on.
func (p *Process) Terminate(ctx context.Context, sig syscall.Signal, grace, killWait time.Duration) error {
	if sig == 0 {
		sig = syscall.SIGHUP
	}
	if grace < 0 {
		grace = DefaultGrace
	}
	if killWait <= 0 {
		killWait = DefaultKillWait
	}
	p.mu.Lock()
	if p.reaped {
		p.mu.Unlock()
		return nil
	}
	t := p.stop
	if t == nil {
		t = &termination{done: make(chan struct{})}
		p.stop = t
		p.freezeLocked()
		p.signalLocked(sig)
		p.signalLocked(syscall.SIGCONT)
		p.wg.Add(1)
		go p.terminate(t, grace, killWait)
	}
	p.mu.Unlock()

	select {
	case <-t.done:
		return t.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// terminate runs the waits of the termination sequence after the first signal.
func (p *Process) terminate(t *termination, grace, killWait time.Duration) {
	defer p.wg.Done()
	defer close(t.done)
	// Last, the pane's cgroup: what left the process group (setsid, double
	// forks) ends with the pane.
	defer p.killCgroup()
	if p.waitReaped(grace) {
		return
	}
	p.mu.Lock()
	p.signalLocked(syscall.SIGKILL)
	p.mu.Unlock()
	if !p.waitReaped(killWait) {
		t.err = ErrTerminateTimeout
	}
}

// killCgroup SIGKILLs everything left in the pane's cgroup, if it has one.
func (p *Process) killCgroup() {
	if p.cgroup != nil && p.cgroup.Populated() {
		p.cgroup.Kill()
	}
}

// Cgroup is the pane's cgroup, nil without one.
func (p *Process) Cgroup() *cgroup.Group { return p.cgroup }

// waitReaped waits up to d (monotonic) for the reap; it reports whether it happened.
func (p *Process) waitReaped(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-p.reapedCh:
		return true
	case <-timer.C:
		return false
	}
}

package pty

import (
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// Codes of a SIGCHLD siginfo for a stopped child.
const (
	cldTrapped = 4 // a traced child stopped
	cldStopped = 5
)

// traceDenied is set once the system refused PTRACE_TRACEME to a child
// (Yama ptrace_scope 2 or 3, a seccomp filter): marks are then set just
// after the exec.
var traceDenied atomic.Bool

// forkExecMarked is syscall.ForkExec of path that gives the child the hard
// RLIMIT_RTTIME mark (Config.Mark; 0: none). With a mark the child asks to
// be traced, so that it stops at its exec, before the program runs; the
// limit is set and the child let go (PTRACE_DETACH) before this returns.
// Where tracing is refused, the exec is retried untraced and the limit set
// right after it. *pidfd is set as syscall.ForkExec sets it.
func forkExecMarked(path string, argv []string, attr *syscall.ProcAttr, pidfd *int, mark uint64) (int, error) {
	if mark == 0 {
		return forkExec(path, argv, attr)
	}
	if !traceDenied.Load() {
		// The tracer is the thread that forked, which must also detach:
		// markStopped runs on the forking thread (spawner.go).
		attr.Sys.Ptrace = true
		pid, err := forkExecThen(path, argv, attr, func(pid int) { markStopped(pid, *pidfd, mark) })
		if err == nil {
			return pid, nil
		}
		attr.Sys.Ptrace = false
		if err != syscall.EPERM {
			return 0, err
		}
		// PTRACE_TRACEME refused, or the exec's own EPERM: the untraced
		// retry tells which.
		pid, err = forkExec(path, argv, attr)
		if err == nil {
			traceDenied.Store(true)
			setMark(pid, mark)
		}
		return pid, err
	}
	pid, err := forkExec(path, argv, attr)
	if err == nil {
		setMark(pid, mark)
	}
	return pid, err
}

// markStopped waits for the traced child to stop (at its exec), sets its
// mark and detaches from it. A child that exited instead is left to the
// supervisor's reap.
func markStopped(pid, pidfd int, mark uint64) {
	var si unix.Siginfo
	for {
		var err error
		if pidfd >= 0 {
			err = unix.Waitid(unix.P_PIDFD, pidfd, &si, unix.WSTOPPED|unix.WEXITED|unix.WNOWAIT, nil)
		} else {
			err = unix.Waitid(unix.P_PID, pid, &si, unix.WSTOPPED|unix.WEXITED|unix.WNOWAIT, nil)
		}
		if err != unix.EINTR {
			if err != nil {
				return
			}
			break
		}
	}
	if si.Code != cldTrapped && si.Code != cldStopped {
		return // exited (killed before its exec)
	}
	setMark(pid, mark)
	unix.PtraceDetach(pid)
}

// setMark lowers pid's hard RLIMIT_RTTIME to mark (its soft limit to at
// most that). It never raises a limit.
func setMark(pid int, mark uint64) {
	var l unix.Rlimit
	if unix.Prlimit(pid, unix.RLIMIT_RTTIME, nil, &l) != nil || l.Max <= mark {
		return
	}
	n := unix.Rlimit{Max: mark, Cur: min(l.Cur, mark)}
	unix.Prlimit(pid, unix.RLIMIT_RTTIME, &n, nil)
}

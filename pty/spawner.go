package pty

import (
	"runtime"
	"sync"
	"syscall"
)

// The parent-death signal (docs/termination.md, "When the daemon dies").
// Every pane leader is started with PR_SET_PDEATHSIG set to SIGKILL, so
// that the kernel kills it when the daemon dies, however it dies (kill -9,
// a crash). The kernel sends that signal when the *thread* that forked the
// child exits, not the process (prctl(2)), and the Go runtime ends a thread
// whose goroutine exits while locked to it. So every fork runs on one
// thread that exists only for that and never exits: a goroutine locked to
// its thread for the daemon's lifetime, which takes fork requests one at a
// time.

// parentDeathSignal is the signal a pane leader gets when the daemon dies.
const parentDeathSignal = syscall.SIGKILL

// forkRequest is one syscall.ForkExec to run on the forking thread.
type forkRequest struct {
	path string
	argv []string
	attr *syscall.ProcAttr
	// after, when set, runs on the forking thread once the child started
	// (a traced child's tracer is that thread: mark.go).
	after func(pid int)
	done  chan forkResult
}

type forkResult struct {
	pid int
	err error
}

var (
	forkOnce     sync.Once
	forkRequests chan forkRequest
)

// forkExec is syscall.ForkExec(path, argv, attr) run on the forking thread,
// with attr.Sys.Pdeathsig set to parentDeathSignal. It blocks until the
// child was started (or failed to start).
func forkExec(path string, argv []string, attr *syscall.ProcAttr) (int, error) {
	return forkExecThen(path, argv, attr, nil)
}

// forkExecThen is forkExec followed, on the forking thread and only when the
// child started, by after(pid).
func forkExecThen(path string, argv []string, attr *syscall.ProcAttr, after func(pid int)) (int, error) {
	forkOnce.Do(func() {
		forkRequests = make(chan forkRequest)
		started := make(chan struct{})
		go forkThread(started)
		<-started
	})
	attr.Sys.Pdeathsig = parentDeathSignal
	req := forkRequest{path: path, argv: argv, attr: attr, after: after, done: make(chan forkResult, 1)}
	forkRequests <- req
	res := <-req.done
	return res.pid, res.err
}

// forkThread runs every fork on the thread it locks and never unlocks nor
// returns, so that thread lives as long as the process.
func forkThread(started chan<- struct{}) {
	runtime.LockOSThread()
	close(started)
	for req := range forkRequests {
		pid, err := syscall.ForkExec(req.path, req.argv, req.attr)
		if err == nil && req.after != nil {
			req.after(pid)
		}
		req.done <- forkResult{pid: pid, err: err}
	}
}

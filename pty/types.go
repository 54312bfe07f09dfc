package pty

import (
	"errors"
	"time"

	"github.com/signaltty/signaltty/cgroup"
	"github.com/signaltty/signaltty/term"
)

// Defaults of the termination sequence (docs/termination.md): the grace
// between the first signal and SIGKILL, and the kill-wait for the reap after
// SIGKILL, on the monotonic clock.
const (
	DefaultGrace    = 2000 * time.Millisecond
	DefaultKillWait = 1000 * time.Millisecond
)

// Config describes a pane to start.
type Config struct {
	Argv []string // program and arguments; Argv[0] is looked up in PATH of Env when it has no '/'
	Dir  string   // working directory of the child; must exist
	Env  []string // the child's complete environment, "NAME=value"
	Cols int      // PTY width in cells, 1..1000
	Rows int      // PTY height in cells, 1..1000

	HistoryRows  int // rows kept in the row store once scrolled off; 0 = term.DefaultHistoryRows
	HistoryBytes int // byte budget of the row store (text + style runs); 0 = term.DefaultHistoryBytes
	// HistoryBudget, when not nil, bounds the row store together with
	// other panes' (term.RowBudget).
	HistoryBudget *term.RowBudget
	// History is plain-text rows shown above the first output, numbered
	// from 0 (a relaunched pane's earlier rows) in numbering epoch Epoch;
	// see term.Config.
	History []string
	Epoch   int64

	// OnEvent receives observations made in the output (titles, cwd, bell,
	// OSC 133, OSC 7501, alternate screen). It is called from the pane's
	// emulation goroutine, in output order; it must not block and must not
	// call back into the Pane.
	OnEvent func(term.Event)
	// Parker, when set, releases the terminal's emulator while its output
	// is idle (term.Config.Parker).
	Parker *term.Parker
	// Memory is the emulator pool and idle watch the terminal uses; nil is
	// term.SharedMemory() (term.Config.Memory).
	Memory *term.Memory
	// OnExit is called once, after the leader was reaped and the output it
	// wrote before exiting was emulated. It runs on its own goroutine.
	OnExit func(ExitStatus)
	// Cgroup, when set, is the pane's own cgroup: the child starts in it
	// (clone3 with CLONE_INTO_CGROUP) and the termination sequence ends
	// with its cgroup.kill (docs/termination.md, "Cgroup"). The caller
	// creates and removes it.
	Cgroup *cgroup.Group
	// Mark, when not zero, is the hard RLIMIT_RTTIME (µs) the child gets
	// (its soft limit at most that), from before the program's first
	// instruction where the system lets the daemon trace its own child
	// (PTRACE_TRACEME; else just after the exec). Children inherit it and
	// cannot raise it: it names the processes that came from this pane
	// (docs/security.md, "The pane mark"). It must not be above the
	// daemon's own hard limit.
	Mark uint64
}

// ExitStatus is the leader's wait status.
type ExitStatus struct {
	Code       *int   // exit code when the leader exited normally
	Signal     string // signal name ("SIGKILL") when a signal ended it, else ""
	CoreDumped bool
	At         time.Time
	// HeldOpen: when the leader was reaped another process still held the
	// PTY open (a descendant that left its process group and outlived it);
	// the pane did not wait for it.
	HeldOpen bool
}

// Errors.
var (
	// ErrExited: the pane's leader has exited; the request needs a live pane.
	ErrExited = errors.New("pane has exited")
	// ErrTerminating: the pane is being terminated; its input is frozen.
	ErrTerminating = errors.New("pane is terminating")
	// ErrTerminateTimeout: the leader was not reaped within the kill-wait after SIGKILL.
	ErrTerminateTimeout = errors.New("process not reaped after SIGKILL")
)

// SpawnError: the program could not be started; nothing was left behind.
type SpawnError struct {
	Reason string // "not_found", "permission", "exec_format", "cwd", "pty", "other"
	Err    error
}

func (e *SpawnError) Error() string { return "spawn: " + e.Reason + ": " + e.Err.Error() }
func (e *SpawnError) Unwrap() error { return e.Err }

package runs

import (
	"time"

	"github.com/signaltty/signaltty/pty"
	"github.com/signaltty/signaltty/service/events"
	"golang.org/x/sys/unix"
)

// Record is a run record. Its fields are the Table's, read and written
// under the caller's lock; only Done may be used without it.
type Record struct {
	n                  int64
	id, key, principal string
	digest             []byte
	paneID, tab, ws    string
	pid                int
	shell              bool
	state              string
	outcome, cause     string
	signal             string
	exitCode           *int
	status             int
	outputRows         int
	outputBytes        int
	startedAt          time.Time
	completedAt        time.Time
	duration           time.Duration
	output             *Output
	done               chan struct{} // closed at completion (Table.Wake)
	deadlineAfter      time.Duration // 0: none
	deadline           *time.Timer
	expiry             *time.Timer
}

// NewRecord is the record of a start about to take an id: key and
// principal bind it, digest is Table.Digest of its parameters; shell says
// the command is a shell line, deadline 0 is none; outputRows and
// outputBytes bound its output tail.
func NewRecord(key, principal string, digest []byte, shell bool, deadline time.Duration, outputRows, outputBytes int) *Record {
	return &Record{key: key, principal: principal, digest: digest, shell: shell, state: StateRunning,
		outputRows: outputRows, outputBytes: outputBytes, deadlineAfter: deadline, done: make(chan struct{})}
}

// ID is the run id, "r<n>" ("" before Table.TakeID).
func (r *Record) ID() string { return r.id }

// PaneID is the id of the run's pane ("" before Table.Commit).
func (r *Record) PaneID() string { return r.paneID }

// Completed reports whether the run has completed.
func (r *Record) Completed() bool { return r.state == StateCompleted }

// TailBounds are the rows and bytes of output the run's pane keeps for the
// output tail (docs/run-wait.md, "Output tail").
func (r *Record) TailBounds() (rows, bytes int) { return r.outputRows, r.outputBytes }

// Done is closed when the run has completed; it may be read without the lock.
func (r *Record) Done() <-chan struct{} { return r.done }

// Snapshot copies the record; output only when withOutput.
func (r *Record) Snapshot(source string, withOutput bool) Run {
	out := Run{ID: r.id, Source: source, Key: r.key, Pane: r.paneID, Tab: r.tab, Workspace: r.ws,
		Principal: r.principal, Pid: r.pid, Shell: r.shell, State: r.state, Outcome: r.outcome,
		ExitCode: r.exitCode, Signal: r.signal, Cause: r.cause, StartedAt: r.startedAt,
		CompletedAt: r.completedAt, Duration: r.duration}
	if r.state == StateCompleted {
		st := r.status
		out.Status = &st
		if withOutput {
			out.Output = r.output
		}
	}
	return out
}

// Result is what is known of the run's result.
func (r *Record) Result() events.RunResult {
	return events.RunResult{Outcome: r.outcome, ExitCode: r.exitCode, Signal: r.signal, Cause: r.cause}
}

// finish records the result from the leader's wait status
// (docs/run-wait.md, "Outcomes and status"): a terminating run is
// terminated (124 for a deadline, else 125), exit 0 succeeded, another
// code failed, a signal signaled (128+n).
func (r *Record) finish(st pty.ExitStatus, out *Output) {
	if r.deadline != nil {
		r.deadline.Stop()
	}
	r.exitCode, r.signal = st.Code, st.Signal
	switch {
	case r.state == StateTerminating:
		r.outcome = OutcomeTerminated
		r.status = 125
		if r.cause == CauseDeadline {
			r.status = 124
		}
	case st.Code != nil && *st.Code == 0:
		r.outcome, r.status = OutcomeSucceeded, 0
	case st.Code != nil:
		r.outcome, r.status = OutcomeFailed, *st.Code
	default:
		r.outcome, r.status = OutcomeSignaled, min(128+signalNumber(st.Signal), 255)
	}
	r.state = StateCompleted
	r.completedAt = time.Now()
	r.duration = r.completedAt.Sub(r.startedAt) // monotonic readings
	r.output = out
}

// keptBytes is the size of a completed record's kept output.
func (r *Record) keptBytes() int64 {
	if r.output == nil {
		return 0
	}
	return int64(r.output.bytes)
}

// signalNumber maps "SIGSEGV" to 11.
func signalNumber(name string) int {
	if sig := unix.SignalNum(name); sig != 0 {
		return int(sig)
	}
	return 0
}

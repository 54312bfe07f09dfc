package runs

import (
	"time"

	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/request"
	"github.com/signaltty/signaltty/term"
)

// Run states and outcomes (docs/run-wait.md, "States" and "Outcomes and status").
const (
	StateRunning     = "running"
	StateTerminating = "terminating"
	StateCompleted   = "completed"

	OutcomeSucceeded  = "succeeded"
	OutcomeFailed     = "failed"
	OutcomeSignaled   = "signaled"
	OutcomeTerminated = "terminated"
)

// Termination causes (docs/run-wait.md, "Causes"); the first one wins.
const (
	CauseCancel   = "cancel"
	CauseDeadline = "deadline"
	CausePaneKill = "pane_kill"
	CauseRemoval  = "removal"
	CauseShutdown = "shutdown"
)

// Start is the result of a run start.
type Start struct {
	Run, Source, Key, Pane, Tab, Workspace, Principal string
	Pid                                               int
	Reused                                            bool
}

// Output is the output tail of a completed run (docs/run-wait.md, "Output tail").
type Output struct {
	Screen             string
	Epoch, Offset      int64
	Cols, Rows         int
	Oldest, Start, End int64
	Complete           bool
	Lines              []string
	bytes              int // line bytes, for retain_bytes
}

// NewOutput is a run's output tail from its pane's final rows; offset is
// the bytes of output the pane produced.
func NewOutput(t term.Tail, offset int64) *Output {
	if t.Lines == nil {
		t.Lines = []string{}
	}
	return &Output{Screen: t.Screen, Epoch: t.Epoch, Offset: offset, Cols: t.Cols, Rows: t.Rows,
		Oldest: t.Oldest, Start: t.Start, End: t.End, Lines: t.Lines, bytes: t.Bytes,
		Complete: t.Epoch == 0 && t.Oldest == 0 && t.Start == 0}
}

// Run is a snapshot of a run record.
type Run struct {
	ID, Source, Key, Pane, Tab, Workspace, Principal string
	Pid                                              int
	Shell                                            bool
	State                                            string
	Outcome                                          string // "" until completed
	ExitCode                                         *int
	Signal                                           string
	Cause                                            string
	Status                                           *int
	StartedAt, CompletedAt                           time.Time
	Duration                                         time.Duration
	Output                                           *Output // nil unless completed
}

// Config holds the run limits (docs/run-wait.md, "Retention").
type Config struct {
	MaxActive   int   // 1..4096: runs not yet completed
	RetainCount int   // 0..65536: completed records kept
	RetainMs    int64 // 0..604800000: how long a completed record is kept
	RetainBytes int64 // 0..1073741824: total retained output line bytes
	// RemovePanes: a run's pane is removed when its record is evicted,
	// if it has exited by then (docs/workspaces.md, "Run tabs").
	RemovePanes bool
}

// DefaultConfig is the default limits.
var DefaultConfig = Config{MaxActive: 64, RetainCount: 256, RetainMs: 3600000, RetainBytes: 16 << 20}

// CheckConfig checks the run limits SetConfig would set (nil: not set).
// Errors: invalid_params.<field> (range).
func CheckConfig(maxActive, retainCount *int, retainMs, retainBytes *int64) *errcode.Error {
	switch {
	case maxActive != nil && (*maxActive < request.MinRunMaxActive || *maxActive > request.MaxRunMaxActive):
		return errcode.Invalid("max_active", "range", "max_active must be %d..%d", request.MinRunMaxActive, request.MaxRunMaxActive)
	case retainCount != nil && (*retainCount < 0 || *retainCount > request.MaxRunRetainCount):
		return errcode.Invalid("retain_count", "range", "retain_count must be 0..%d", request.MaxRunRetainCount)
	case retainMs != nil && (*retainMs < 0 || *retainMs > request.MaxRunRetainMs):
		return errcode.Invalid("retain_ms", "range", "retain_ms must be 0..%d", request.MaxRunRetainMs)
	case retainBytes != nil && (*retainBytes < 0 || *retainBytes > request.MaxRunRetainBytes):
		return errcode.Invalid("retain_bytes", "range", "retain_bytes must be 0..%d", request.MaxRunRetainBytes)
	}
	return nil
}

package pty

import (
	"errors"
	"time"
)

// Defaults of the termination sequence (RFC-0012 as translated in the specs README).
const (
	DefaultGrace    = 2000 * time.Millisecond
	DefaultKillWait = 1000 * time.Millisecond
)

// Defaults of the row store.
const (
	DefaultHistoryRows  = 10000
	DefaultHistoryBytes = 16 << 20
)

// Config describes a pane to start.
type Config struct {
	Argv []string // program and arguments; Argv[0] is looked up in PATH of Env when it has no '/'
	Dir  string   // working directory of the child; must exist
	Env  []string // the child's complete environment, "NAME=value"
	Cols int      // PTY width in cells, 1..1000
	Rows int      // PTY height in cells, 1..1000

	HistoryRows  int // rows kept in the row store once scrolled off; 0 = DefaultHistoryRows
	HistoryBytes int // byte budget of the row store (text + style runs); 0 = DefaultHistoryBytes
	// History is plain-text rows shown above the first output, numbered
	// from 0 (a relaunched pane's earlier rows) in numbering epoch Epoch.
	History []string
	Epoch   int64

	// OnEvent receives observations made in the output (titles, cwd, bell,
	// OSC 133, OSC 7501, alternate screen). It is called from the pane's
	// emulation goroutine, in output order; it must not block and must not
	// call back into the Pane.
	OnEvent func(Event)
	// OnExit is called once, after the leader was reaped and the output it
	// wrote before exiting was emulated. It runs on its own goroutine.
	OnExit func(ExitStatus)
}

// EventKind names an observation made in a pane's output.
type EventKind string

// Observations. None of them is trusted: they are what the program printed.
const (
	EventTitle         EventKind = "title"                  // OSC 0 or 2; Text is the title (may contain ';')
	EventCwd           EventKind = "cwd"                    // OSC 7; Text is the decoded path, URL is the raw URL
	EventBell          EventKind = "bell"                   // BEL outside an OSC
	EventCommandStart  EventKind = "command.started"        // OSC 133;C
	EventCommandFinish EventKind = "command.finished"       // OSC 133;D[;code]; Code is set when given
	EventPromptStart   EventKind = "prompt.started"         // OSC 133;A
	EventProgramStatus EventKind = "program.status_changed" // OSC 7501; Text is the payload after "7501;"
	EventAltScreen     EventKind = "alt_screen"             // Bool: entered (true) or left (false) the alternate screen
)

// Event is one observation.
type Event struct {
	Kind EventKind
	Text string
	URL  string
	Code *int
	Bool bool
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

// Capture selects rows. Nil Start/End capture the visible screen.
// Start is inclusive, End exclusive; both are absolute row numbers.
// A non-nil Epoch must equal the pane's current epoch.
type CaptureRequest struct {
	Start *int64
	End   *int64
	Epoch *int64
}

// Screen names the screen a capture shows.
const (
	ScreenPrimary   = "primary"
	ScreenAlternate = "alternate"
)

// Capture is the result of capturing rows.
type Capture struct {
	Epoch  int64    // numbering epoch; changes when numbering restarts (history cleared)
	Oldest int64    // first row still kept
	End    int64    // one past the last row (the last screen row)
	First  int64    // number of Lines[0]
	Cols   int      // width of every line, in cells
	Rows   int      // screen height
	Screen string   // ScreenPrimary or ScreenAlternate (alternate: lines are that screen's)
	Lines  []string // one physical row each, padded with spaces to Cols cells; a wide character occupies two cells; no control characters
}

// Errors.
var (
	// ErrExited: the pane's leader has exited; the request needs a live pane.
	ErrExited = errors.New("pane has exited")
	// ErrTerminating: the pane is being terminated; its input is frozen.
	ErrTerminating = errors.New("pane is terminating")
	// ErrStaleEpoch: the request named an epoch that is no longer current.
	ErrStaleEpoch = errors.New("stale epoch")
	// ErrTerminateTimeout: the leader was not reaped within the kill-wait after SIGKILL.
	ErrTerminateTimeout = errors.New("process not reaped after SIGKILL")
)

// RangeError: a capture range outside [Oldest, End] or with Start > End.
type RangeError struct {
	Oldest, End int64
	Reason      string // "before_oldest", "after_end" or "inverted"
}

func (e *RangeError) Error() string { return "row range " + e.Reason }

// SpawnError: the program could not be started; nothing was left behind.
type SpawnError struct {
	Reason string // "not_found", "permission", "exec_format", "cwd", "pty", "other"
	Err    error
}

func (e *SpawnError) Error() string { return "spawn: " + e.Reason + ": " + e.Err.Error() }
func (e *SpawnError) Unwrap() error { return e.Err }

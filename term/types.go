package term

import (
	"errors"
	"io"
)

// Defaults of the row store.
const (
	DefaultHistoryRows  = 10000    // rows kept once scrolled off the screen
	DefaultHistoryBytes = 16 << 20 // bytes of row text plus style runs
)

// Config describes a terminal to make.
type Config struct {
	// Cols and Rows are the screen size in cells; each is clamped to
	// 1..65535.
	Cols, Rows int
	// HistoryRows bounds the rows the row store keeps once they scrolled
	// off the screen, HistoryBytes its byte budget (row text plus style
	// runs); the oldest rows go first. 0 or less: DefaultHistoryRows,
	// DefaultHistoryBytes.
	HistoryRows, HistoryBytes int
	// Budget, when not nil, also bounds the row store together with the
	// other terminals of the budget (RowBudget); Close leaves it.
	Budget *RowBudget
	// History is rows in the saved form (TailStyled: plain text, or text
	// with the SGR and OSC 8 sequences of its colours), oldest first, kept
	// above the first output (a relaunched pane's earlier rows). They are
	// rows 0 to len(History)-1 of the numbering, so the first output row
	// is row len(History); they keep their colours, other control
	// characters show as spaces and the row store's bounds apply to them as
	// to any row.
	History []string
	// Epoch is the numbering epoch the terminal starts in (see
	// docs/rows.md): the rows of History and the first output belong to it.
	Epoch int64
	// Replies receives what the terminal answers to queries (DA, DSR/CPR,
	// OSC 10/11 ...), from a goroutine of its own, so a blocked Replies
	// never blocks Write; replies beyond a 64 KiB backlog are dropped and
	// its errors are ignored. Nil drops every reply.
	Replies io.Writer
	// Parker, when not nil, releases the terminal's emulator once its
	// output has been idle for the parker's delay, keeping what rebuilds
	// it on the next output, resize, capture or frame (park.go,
	// docs/emulator-release.md).
	Parker *Parker
	// Memory is where the terminal takes its emulator from and gives it
	// back to, and the idle watch its output arms; nil is SharedMemory().
	Memory *Memory
	// OnEvent, when not nil, receives observations synchronously from inside
	// Write, in output order; it must not block and must not call back into
	// the Terminal.
	OnEvent func(Event)
}

// EventKind names an observation made in a terminal's output.
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
	EventNotify        EventKind = "notify"                 // OSC 9, 99 or 777 (Code: which); Text is the title, Body the body (term/notify.go)
)

// Event is one observation; which fields are set depends on Kind.
type Event struct {
	Kind EventKind
	Text string // title, cwd path or program status (valid UTF-8)
	URL  string // EventCwd: the file:// URL as the program sent it
	Code *int   // EventCommandFinish: the exit code, when given; EventNotify: the OSC number
	Bool bool   // EventAltScreen: true on entering the alternate screen
	Body string // EventNotify: the notification's body
}

// CaptureRequest selects rows [Start, End), absolute row numbers
// (docs/rows.md). Nil Start and End capture the visible screen; a nil End
// alone means up to the end, a nil Start alone the screen height's worth of
// rows before End (fewer when fewer are kept). A non-nil Epoch must equal
// the terminal's current epoch.
type CaptureRequest struct {
	Start *int64 // first row, inclusive
	End   *int64 // one past the last row
	Epoch *int64 // the epoch the row numbers belong to
	// MaxBytes, when > 0, bounds the lines' total size as a reply sends
	// them (each padded to Cols cells, as a JSON string with a comma; see
	// lineCost): a larger capture fails with a RangeError "too_large"
	// whose FitEnd says how far from the same start fits.
	MaxBytes int
	// Last, when non-nil, selects the last *Last rows ending at the
	// screen's bottom: [End - *Last, End) (Start and End must be nil).
	Last *int64
	// History starts the range at Oldest (Start and Last must be nil).
	History bool
	// Clamp lowers an end after End to End and raises a start before
	// Oldest to Oldest instead of failing; Capture.Clamped says so.
	Clamp bool
	// Cut returns the rows that fit in MaxBytes (at least one) instead of
	// failing "too_large"; Capture.Cut says so and Next is where to go on.
	Cut bool
	// Trim ends each line at its last non-space cell (with Escapes: at its
	// last non-space or styled cell) instead of padding it to Cols.
	Trim bool
	// Escapes renders each line's colours and attributes as SGR sequences
	// (and hyperlinks as OSC 8), each styled run reset after it (docs/rows.md,
	// "Escapes").
	Escapes bool
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
	Rows   int      // screen height, in cells
	Screen string   // ScreenPrimary or ScreenAlternate (alternate: lines are that screen's)
	Lines  []string // one physical row each, padded with spaces to Cols cells; a wide character occupies two cells; no control characters
	// Next is First + len(Lines): the row a following page starts at.
	Next int64
	// Clamped: the request's start or end was moved into [Oldest, End].
	Clamped bool
	// Cut: the range was cut at MaxBytes; rows from Next on were left out.
	Cut bool
}

// Tail is a pane's last rows, as a run's output tail and a snapshot's saved
// rows use them; see Terminal.Tail.
type Tail struct {
	Screen     string   // ScreenPrimary or ScreenAlternate
	Epoch      int64    // numbering epoch of the row numbers
	Cols, Rows int      // screen size in cells
	Oldest     int64    // first row still kept
	Start, End int64    // Lines are rows [Start, End)
	Lines      []string // padded to Cols cells like Capture's lines; never nil
	Bytes      int      // sum of len(Lines[i])
}

// ErrStaleEpoch: a capture request named an epoch that is no longer current.
var ErrStaleEpoch = errors.New("stale epoch")

// RangeError: a capture range outside [Oldest, End] or with Start > End.
type RangeError struct {
	Oldest, End int64
	Reason      string // "before_oldest", "after_end", "inverted" or "too_large"
	// For "too_large": the bound and the end of the longest prefix of the
	// range within it (rows [start, FitEnd) fit).
	MaxBytes int
	FitEnd   int64
}

func (e *RangeError) Error() string { return "row range " + e.Reason }

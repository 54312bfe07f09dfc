package service

import (
	"sync"
	"time"

	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/term"
	"golang.org/x/time/rate"
)

// Limits bound what clients can make the daemon hold (docs/limits.md,
// "Panes, input, events, captures and rows"). A zero field is its default.
type Limits struct {
	// MaxPanes bounds the panes holding a PTY (starting, live or
	// terminating) at once; past it a start fails unavailable.panes.
	MaxPanes int
	// InputMaxBytes bounds one SendInput (1..MaxInput); past it
	// invalid_params.size.
	InputMaxBytes int
	// InputBytesPerSecond is each pane's input rate: a token bucket of
	// that many bytes per second holding at most one second's worth (and
	// at least InputMaxBytes); a SendInput the bucket cannot cover fails
	// unavailable.input_rate without writing anything.
	InputBytesPerSecond int
	// EventQueue is how many undelivered events a subscriber may have
	// before it is ended unavailable.lagged.
	EventQueue int
	// CaptureMaxBytes bounds the lines of a CaptureRows reply, as sent
	// (JSON strings with their quotes, escapes and commas); past it
	// invalid_params.range (reason too_large).
	CaptureMaxBytes int
	// HistoryTotalBytes bounds the row stores of all panes together
	// (term.RowBudget).
	HistoryTotalBytes int64
}

// Defaults of Limits.
const (
	DefaultMaxPanes            = 16384
	DefaultInputBytesPerSecond = 4 << 20
	DefaultEventQueue          = SubscriberQueue
	DefaultCaptureMaxBytes     = 4 << 20
	MaxCaptureMaxBytes         = 6 << 20 // a capture reply stays under the 16 MiB message limit
	DefaultHistoryTotalBytes   = 1 << 30
)

// withDefaults fills the zero fields of l.
func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.MaxPanes, DefaultMaxPanes)
	def(&l.InputMaxBytes, MaxInput)
	l.InputMaxBytes = min(l.InputMaxBytes, MaxInput)
	def(&l.InputBytesPerSecond, DefaultInputBytesPerSecond)
	def(&l.EventQueue, DefaultEventQueue)
	def(&l.CaptureMaxBytes, DefaultCaptureMaxBytes)
	l.CaptureMaxBytes = min(l.CaptureMaxBytes, MaxCaptureMaxBytes)
	if l.HistoryTotalBytes <= 0 {
		l.HistoryTotalBytes = DefaultHistoryTotalBytes
	}
	return l
}

// Limits returns the limits in force (defaults filled in).
func (st *Settings) Limits() Limits { return st.limits.cfg }

// HistoryBytes is the row store budget of one pane in force, in bytes
// (Config.HistoryBytes, or term.DefaultHistoryBytes when that is 0).
func (st *Settings) HistoryBytes() int { return st.limits.paneHistory }

// limitState holds what the limits keep and checks them: the limits in
// force, the count of panes holding a PTY (guarded by the service's lock,
// mu), the row budget of all panes (its own lock) and the per-pane cgroups
// (cgroups.go).
type limitState struct {
	mu          *sync.Mutex // the service's lock
	cfg         Limits      // defaults filled in
	paneHistory int         // bytes of one pane's row store
	ptys        int         // panes in a state that holds a PTY (lifecycle.go counts); under mu
	history     *term.RowBudget
	cgroups     cgroupPolicy
}

// newLimitState fills in the defaults of cfg.Limits and returns the
// limits' state over cfg; mu is the service's lock.
func newLimitState(mu *sync.Mutex, cfg *Config) limitState {
	cfg.Limits = cfg.Limits.withDefaults()
	l := limitState{mu: mu, cfg: cfg.Limits, paneHistory: term.DefaultHistoryBytes,
		history: term.NewRowBudget(cfg.Limits.HistoryTotalBytes), cgroups: cgroupPolicy{tree: cfg.Cgroups, off: cfg.CgroupsOff}}
	if cfg.HistoryBytes > 0 {
		l.paneHistory = cfg.HistoryBytes
	}
	return l
}

// countPTYLocked follows a transition for the pane limit; mu is held.
func (l *limitState) countPTYLocked(from, to paneState) {
	switch {
	case !from.holdsPTY() && to.holdsPTY():
		l.ptys++
	case from.holdsPTY() && !to.holdsPTY():
		l.ptys--
	}
}

// checkPaneLimitLocked refuses a new start when MaxPanes panes hold a PTY,
// counting starts under way; mu is held. Errors: unavailable.panes
// (data.max, data.panes).
func (l *limitState) checkPaneLimitLocked() *Error {
	max := l.cfg.MaxPanes
	if l.ptys >= max {
		return newError(errcode.UnavailablePanes, map[string]any{"max": max, "panes": l.ptys},
			"the limit of %d panes with a process, running or starting, is reached (SIGNALTTY_MAX_PANES); stop or remove one first", max)
	}
	return nil
}

// checkPaneLimit is checkPaneLimitLocked for a caller without mu.
func (l *limitState) checkPaneLimit() *Error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.checkPaneLimitLocked()
}

// checkInputSize refuses a SendInput larger than InputMaxBytes.
// Errors: invalid_params.size (data.max).
func (l *limitState) checkInputSize(n int) *Error {
	if max := l.cfg.InputMaxBytes; n > max {
		return newError(errcode.InvalidParams("size"), map[string]any{"param": "input", "reason": "size", "max": max},
			"input is %d bytes, more than %d", n, max)
	}
	return nil
}

// takeInput draws n bytes from p's input bucket (made on first use, under
// mu), or refuses the call; mu is not held. Nothing is written when it is
// refused. Errors: unavailable.input_rate (data.bytes_per_second,
// data.retry_after_ms).
func (l *limitState) takeInput(p *pane, n int) *Error {
	l.mu.Lock()
	lim := p.input
	if lim == nil {
		r := l.cfg.InputBytesPerSecond
		lim = rate.NewLimiter(rate.Limit(r), max(r, l.cfg.InputMaxBytes))
		p.input = lim
	}
	l.mu.Unlock()
	now := time.Now()
	res := lim.ReserveN(now, n)
	if !res.OK() { // larger than the bucket: checkInputSize prevents it
		return newError(errcode.InvalidParams("size"), map[string]any{"param": "input", "reason": "size", "max": lim.Burst()},
			"input is %d bytes, more than %d", n, lim.Burst())
	}
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		bps := l.cfg.InputBytesPerSecond
		return newError(errcode.UnavailableInputRate, map[string]any{"pane": p.id, "bytes_per_second": bps,
			"retry_after_ms": d.Milliseconds() + 1},
			"pane %s takes at most %d input bytes per second (SIGNALTTY_INPUT_BYTES_PER_SECOND); retry in %v", p.id, bps, d.Round(time.Millisecond))
	}
	return nil
}

// captureTooLarge is the error of a capture past CaptureMaxBytes:
// invalid_params.range, reason too_large, with data.max_bytes and
// data.fit_end (rows from the requested start up to fit_end fit; capture
// them, then continue from there).
func captureTooLarge(re *term.RangeError) *Error {
	return newError(errcode.InvalidParams("range"), map[string]any{"param": "range", "reason": re.Reason,
		"oldest": re.Oldest, "end": re.End, "max_bytes": re.MaxBytes, "fit_end": re.FitEnd},
		"the rows asked for are more than %d bytes (SIGNALTTY_CAPTURE_MAX_BYTES); rows up to %d fit, ask for fewer", re.MaxBytes, re.FitEnd)
}

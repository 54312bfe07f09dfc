package service

import (
	"context"
	"encoding/hex"
	"errors"
	"hash/fnv"
	"regexp"
	"strings"
	"time"

	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/term"
)

// Waiting on what a pane prints (Mux.WaitOutput, Mux.SendWait; docs/rows.md,
// "Output waits"). A wait follows the pane's terminal (term.Terminal.Watch:
// told after each write of output and when the process's screen is
// released), never polls and holds no lock while it blocks. What it
// reports is the rows that changed since a baseline: the screen as it was
// then, as row numbers of one epoch and a digest of each row's text.

// OutputBaseline is the screen an output wait compares against: rows of
// epoch Epoch before Row (the screen's top row then) count as unchanged;
// row Row+i as changed when its text (without trailing spaces) no longer
// has the i-th digest of Digest (8 hex digits each, one per row to the
// last non-blank one), a row past those as changed when it is not blank.
type OutputBaseline struct {
	Epoch  int64
	Row    int64
	Digest string
}

// OutputWait is what an output wait waits for. It ends at the first of: a
// changed row matching Match (when set), no output for Quiet (when > 0),
// the pane's process gone, Timeout (< 0: DefaultPaneWait).
type OutputWait struct {
	Match   string
	QuietMs *int64          // nil: no quiet condition; else 1..MaxPaneWait in ms
	After   *OutputBaseline // nil: the screen when the wait begins (before Input)
	Timeout time.Duration
	// Input, when not nil, is written first (SendWait), after the
	// baseline was taken; the quiet time counts from the write's end.
	Input []byte
}

// OutputWaitResult is how an output wait ended. Lines are rows
// [First, First+len(Lines)) without trailing spaces: the span from the
// first to the last changed non-blank row, of which at most
// MaxOutputWaitRows (the last ones); Omitted rows of the span before First
// were left out (read them with CaptureRows). Baseline is the screen at the
// end, to start the next wait from.
type OutputWaitResult struct {
	Outcome    string // OutputMatched, OutputQuiet, OutputExited, OutputTimeout
	MatchedRow *int64 // the row that matched (OutputMatched)
	Epoch      int64
	First      int64
	Lines      []string
	Omitted    int64
	Status     *WaitStatus // the process's wait status (OutputExited), nil when it had none
	Written    int         // bytes of Input written
	Baseline   OutputBaseline
}

// How an output wait ended.
const (
	OutputMatched = "matched"
	OutputQuiet   = "quiet"
	OutputExited  = "exited"
	OutputTimeout = "timeout"
)

// Output wait bounds.
const (
	MaxOutputWaitRows = 100  // rows of a result
	MaxMatchBytes     = 4096 // of a regular expression
	// outputScanInterval spaces the scans of a terminal with a flood of
	// output, as minFrameInterval spaces an attached client's frames.
	outputScanInterval = 10 * time.Millisecond
)

// checkOutputWait validates w (before anything is written). Errors:
// invalid_params.match (reason "syntax", "size"), invalid_params.quiet_ms,
// invalid_params.timeout_ms, invalid_params.after (reason "digest").
func checkOutputWait(w OutputWait) (*regexp.Regexp, *Error) {
	var re *regexp.Regexp
	if w.Match != "" {
		if len(w.Match) > MaxMatchBytes {
			return nil, invalid("match", "size", "match is longer than %d bytes", MaxMatchBytes)
		}
		var err error
		if re, err = regexp.Compile(w.Match); err != nil {
			return nil, invalid("match", "syntax", "match is not a regular expression (RE2 syntax): %v", err)
		}
	}
	if q := w.QuietMs; q != nil && (*q < 1 || *q > MaxPaneWait.Milliseconds()) {
		return nil, invalid("quiet_ms", "range", "quiet_ms must be 1..%d", MaxPaneWait.Milliseconds())
	}
	if w.Timeout > MaxPaneWait {
		return nil, invalid("timeout_ms", "range", "timeout_ms must be 0..%d", MaxPaneWait.Milliseconds())
	}
	if w.After != nil {
		if _, err := parseDigest(w.After.Digest); err != nil {
			return nil, invalid("after", "digest", "after.digest is not a baseline's digest: take baselines from a reply, unchanged")
		}
	}
	return re, nil
}

// WaitOutput waits on what pane id prints (Mux.WaitOutput and, with
// w.Input, Mux.SendWait): see OutputWait and OutputWaitResult. A baseline
// of another epoch (the history was cleared, the pane relaunched) counts
// every row kept as changed. Errors: those of checkOutputWait,
// not_found.pane, cancelled, and with Input those of SendInput (then
// nothing was waited for).
func (s *Service) WaitOutput(ctx context.Context, id string, w OutputWait) (OutputWaitResult, error) {
	re, verr := checkOutputWait(w)
	if verr != nil {
		return OutputWaitResult{}, verr
	}
	if w.Input != nil {
		if err := s.limits.checkInputSize(len(w.Input)); err != nil {
			return OutputWaitResult{}, err
		}
	}
	if w.Timeout < 0 {
		w.Timeout = DefaultPaneWait
	}
	var quietFor time.Duration
	if w.QuietMs != nil {
		quietFor = time.Duration(*w.QuietMs) * time.Millisecond
	}
	p, t, err := s.paneTerm(id)
	if err != nil {
		return OutputWaitResult{}, err
	}
	changed, stop := t.Watch()
	defer stop()
	ow := &outputWait{t: t, re: re}
	if w.After != nil {
		ow.base.Epoch, ow.base.Row = w.After.Epoch, w.After.Row
		ow.base.digest, _ = parseDigest(w.After.Digest)
	} else {
		ow.base = screenBaseline(t)
	}
	var res OutputWaitResult
	quietFrom := time.Now() // for a pane that never printed
	if w.Input != nil {
		n, err := s.SendInput(ctx, id, w.Input)
		if err != nil {
			return OutputWaitResult{}, err
		}
		res.Written, quietFrom = n, time.Now()
	}
	timeout := time.NewTimer(w.Timeout)
	defer timeout.Stop()
	var quiet <-chan time.Time
	var quietTimer *time.Timer
	defer func() {
		if quietTimer != nil {
			quietTimer.Stop()
		}
	}()
	finish := func(outcome string, status *WaitStatus) (OutputWaitResult, error) {
		res.Outcome, res.Status = outcome, status
		ow.fill(&res)
		return res, nil
	}
	for {
		gone, status := s.outputEnded(p, id, t) // before the scan: output before an exit is all emulated by then
		row, ok := ow.scan()
		scanned := time.Now()
		switch {
		case ok:
			res.MatchedRow = &row
			return finish(OutputMatched, nil)
		case gone:
			return finish(OutputExited, status)
		}
		if quietFor > 0 {
			last := t.LastOutput()
			if last.Before(quietFrom) {
				last = quietFrom
			}
			left := quietFor - time.Since(last)
			if left <= 0 {
				return finish(OutputQuiet, nil)
			}
			if quietTimer == nil {
				quietTimer = time.NewTimer(left)
			} else {
				quietTimer.Reset(left)
			}
			quiet = quietTimer.C
		}
		select {
		case <-changed:
			if wait := outputScanInterval - time.Since(scanned); wait > 0 {
				select { // let a flood of output settle into one scan
				case <-time.After(wait):
				case <-ctx.Done():
				}
			}
		case <-quiet:
		case <-timeout.C:
			return finish(OutputTimeout, nil)
		case <-ctx.Done():
			return OutputWaitResult{}, newError(errcode.CodeCancelled, map[string]any{"pane": id}, "wait cancelled; the pane is untouched")
		}
	}
}

// outputEnded reports whether the process whose terminal t is is gone: it
// exited (with its status), the pane was relaunched or removed.
func (s *Service) outputEnded(p *pane, id string, t *term.Terminal) (bool, *WaitStatus) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, err := s.lookupPane(id)
	if err != nil || cur != p || p.term != t {
		return true, nil
	}
	if p.state.hasProcess() {
		return false, nil
	}
	return true, p.status
}

// outputWait is one wait's view of a terminal.
type outputWait struct {
	t    *term.Terminal
	re   *regexp.Regexp
	base baseline
	// scanned: rows before it were matched once already and are history,
	// which no longer changes.
	scanned int64
}

// baseline is an OutputBaseline with its digest parsed.
type baseline struct {
	Epoch, Row int64
	digest     []uint32
}

// changed reports whether row r, now line (trimmed), differs from the baseline.
func (b *baseline) changed(r int64, line string) bool {
	if r < b.Row {
		return false
	}
	if i := r - b.Row; i < int64(len(b.digest)) {
		return rowDigest(line) != b.digest[i]
	}
	return line != ""
}

// rows captures at most limit rows from from (clamped to what is kept and
// to the baseline) of the baseline's epoch; a baseline of another epoch is
// replaced by "everything kept changed".
func (ow *outputWait) rows(from, limit int64) term.Capture {
	for range 8 { // each retry follows a change made meanwhile
		f := max(from, ow.base.Row, ow.scanned)
		e := f + limit
		c, err := ow.t.Capture(term.CaptureRequest{Start: &f, End: &e, Epoch: &ow.base.Epoch})
		var re *term.RangeError
		switch {
		case err == nil:
			return c
		case errors.As(err, &re) && re.Reason == "before_oldest":
			from = re.Oldest
		case errors.As(err, &re) && re.Reason == "after_end" && f <= re.End:
			limit = re.End - f // fewer rows are left
		case errors.As(err, &re) && re.Reason == "after_end": // the screen got shorter
			from, ow.base.Row, ow.scanned = re.End, min(ow.base.Row, re.End), min(ow.scanned, re.End)
		case errors.Is(err, term.ErrStaleEpoch):
			ow.base = baseline{Epoch: ow.t.Epoch()}
			ow.scanned, from = 0, 0
		default:
			return term.Capture{}
		}
	}
	return term.Capture{}
}

// scanChunk bounds the rows one capture of a scan or a result copies.
const scanChunk = 5000

// scan tests the changed rows not yet tested against the expression: the
// first matching row, and true.
func (ow *outputWait) scan() (int64, bool) {
	if ow.re == nil {
		return 0, false
	}
	for from := int64(0); ; {
		c := ow.rows(from, scanChunk)
		for i, l := range c.Lines {
			r := c.First + int64(i)
			l = strings.TrimRight(l, " ")
			if ow.base.changed(r, l) && ow.re.MatchString(l) {
				return r, true
			}
		}
		next := c.First + int64(len(c.Lines))
		ow.scanned = max(ow.scanned, min(next, c.End-int64(c.Rows))) // history is final
		if len(c.Lines) == 0 || next >= c.End {
			return 0, false
		}
		from = next
	}
}

// fill sets res's rows, epoch and next baseline from the terminal now:
// from the last scanChunk rows at most (with a baseline further back, the
// rows before them count as omitted).
func (ow *outputWait) fill(res *OutputWaitResult) {
	ow.scanned = 0
	screen, _ := ow.t.Capture(term.CaptureRequest{})
	c := ow.rows(screen.End-scanChunk, scanChunk)
	lo, hi := int64(-1), int64(-1)
	lines := make([]string, len(c.Lines))
	for i, l := range c.Lines {
		r := c.First + int64(i)
		lines[i] = strings.TrimRight(l, " ")
		if lines[i] != "" && ow.base.changed(r, lines[i]) {
			if lo < 0 {
				lo = r
			}
			hi = r + 1
		}
	}
	if lo >= 0 && lo == c.First {
		lo = max(ow.base.Row, c.Oldest) // the window may have cut the span
	}
	res.Epoch, res.First, res.Lines = c.Epoch, c.End, []string{}
	if lo >= 0 {
		first := max(lo, hi-MaxOutputWaitRows, c.First)
		res.First, res.Omitted = first, first-lo
		res.Lines = lines[first-c.First : hi-c.First]
	}
	b := screenBaseline(ow.t)
	res.Baseline = OutputBaseline{Epoch: b.Epoch, Row: b.Row, Digest: formatDigest(b.digest)}
}

// screenBaseline is the baseline of t's screen now.
func screenBaseline(t *term.Terminal) baseline {
	c, _ := t.Capture(term.CaptureRequest{}) // the screen: never a range error
	b := baseline{Epoch: c.Epoch, Row: c.First}
	last := -1
	for i, l := range c.Lines {
		if strings.TrimRight(l, " ") != "" {
			last = i
		}
	}
	for _, l := range c.Lines[:last+1] {
		b.digest = append(b.digest, rowDigest(strings.TrimRight(l, " ")))
	}
	return b
}

// OutputBaselineOf is pane id's screen now as an output wait's baseline
// (what SendInput returns, taken before the write). Errors: not_found.pane.
func (s *Service) OutputBaselineOf(id string) (OutputBaseline, error) {
	_, t, err := s.paneTerm(id)
	if err != nil {
		return OutputBaseline{}, err
	}
	b := screenBaseline(t)
	return OutputBaseline{Epoch: b.Epoch, Row: b.Row, Digest: formatDigest(b.digest)}, nil
}

// paneTerm is pane id with its terminal. Errors: not_found.pane (also for
// a new pane whose first start is not committed: nothing shown yet).
func (s *Service) paneTerm(id string) (*pane, *term.Terminal, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.lookupPane(id)
	if err != nil {
		return nil, nil, err
	}
	if p.term == nil {
		return nil, nil, notFound("pane", id)
	}
	return p, p.term, nil
}

// rowDigest is the digest of a row's text (FNV-1a, 32 bits).
func rowDigest(line string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(line))
	return h.Sum32()
}

func formatDigest(d []uint32) string {
	b := make([]byte, 0, 4*len(d))
	for _, v := range d {
		b = append(b, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
	}
	return hex.EncodeToString(b)
}

func parseDigest(s string) ([]uint32, error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b)%4 != 0 || len(b) > 4*1000 {
		return nil, errors.New("bad digest")
	}
	d := make([]uint32, 0, len(b)/4)
	for i := 0; i < len(b); i += 4 {
		d = append(d, uint32(b[i])<<24|uint32(b[i+1])<<16|uint32(b[i+2])<<8|uint32(b[i+3]))
	}
	return d, nil
}

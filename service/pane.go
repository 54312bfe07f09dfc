package service

import (
	"context"
	"errors"
	"time"

	"github.com/signaltty/signaltty/pty"
	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/events"
	"github.com/signaltty/signaltty/service/request"
	"github.com/signaltty/signaltty/term"
)

// ListPanes returns panes in workspace, tab and layout order, optionally only
// those of one workspace or tab (Mux.ListPanes).
func (s *Service) ListPanes(wsRef, tabID string) ([]Pane, error) {
	s.scanAgents("")
	s.mu.Lock()
	defer s.mu.Unlock()
	tabs, err := s.listedTabsLocked(wsRef, tabID)
	if err != nil {
		return nil, err
	}
	out := []Pane{}
	for _, t := range tabs {
		out = append(out, snapshots(s.tabPanes(t))...)
	}
	return out, nil
}

// listedTabsLocked returns the tabs whose panes a listing of workspace wsRef and
// tab tabID (either may be "") gives, in order; s.mu is held. A tab outside
// the workspace gives none. Errors: not_found.workspace, not_found.tab.
func (s *Service) listedTabsLocked(wsRef, tabID string) ([]*tab, error) {
	var ws *workspace
	if wsRef != "" {
		w, err := s.lookupWorkspace(wsRef)
		if err != nil {
			return nil, err
		}
		ws = w
	}
	if tabID != "" {
		t, err := s.lookupTab(tabID)
		if err != nil {
			return nil, err
		}
		if ws != nil && t.workspace != ws.id {
			return nil, nil
		}
		return []*tab{t}, nil
	}
	var out []*tab
	for _, wid := range s.wsOrder {
		if ws != nil && wid != ws.id {
			continue
		}
		for _, tid := range s.workspaces[wid].tabs {
			out = append(out, s.tabs[tid])
		}
	}
	return out, nil
}

func snapshots(ps []*pane) []Pane {
	out := make([]Pane, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.snapshot())
	}
	return out
}

// GetPane returns one pane (Mux.GetPane).
func (s *Service) GetPane(id string) (Pane, error) {
	s.scanAgents(id)
	s.mu.Lock()
	p, err := s.lookupPane(id)
	if err != nil {
		s.mu.Unlock()
		return Pane{}, err
	}
	snap := p.snapshot()
	b := s.baselineLocked(p)
	snap.WaitBaseline = &b
	ref := cgroupRefOfLocked(p, snap)
	s.mu.Unlock()
	ref.fill(&snap)
	return snap, nil
}

// livePane finds a pane that must be live (not terminating), with its
// process handle read under s.mu. A terminating pane is returned with its
// process and conflict.pane_terminating.
func (s *Service) livePane(id string) (*pane, *pty.Process, *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.lookupPane(id)
	if err != nil {
		return nil, nil, err
	}
	switch p.state {
	case stateLive:
		return p, p.inst.proc, nil
	case stateTerminating:
		return p, p.inst.proc, newError(errcode.ConflictPaneTerminating, map[string]any{"pane": id}, "pane %s is terminating", id)
	}
	return nil, nil, newError(errcode.ConflictPaneExited, map[string]any{"pane": id}, "pane %s has exited", id)
}

// Input limits.
const (
	MaxInput     = 1 << 20         // bytes per SendInput
	InputTimeout = 5 * time.Second // budget of one SendInput, from entry
)

// SendInput writes data to a pane's PTY (Mux.SendInput); the bytes of
// concurrent calls are never interleaved. It returns the bytes written.
func (s *Service) SendInput(ctx context.Context, id string, data []byte) (int, error) {
	if err := s.limits.checkInputSize(len(data)); err != nil {
		return 0, err
	}
	p, proc, err := s.livePane(id)
	if err != nil {
		return 0, err
	}
	if err := s.limits.takeInput(p, len(data)); err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, InputTimeout)
	defer cancel()
	n, werr := proc.Send(ctx, data)
	switch {
	case werr == nil:
		return n, nil
	case errors.Is(werr, pty.ErrExited):
		return n, newError(errcode.ConflictPaneExited, map[string]any{"pane": id, "written": n}, "pane %s has exited", id)
	case errors.Is(werr, pty.ErrTerminating):
		return n, newError(errcode.ConflictPaneTerminating, map[string]any{"pane": id, "written": n}, "pane %s is terminating", id)
	case errors.Is(werr, context.DeadlineExceeded):
		return n, newError(errcode.TimeoutInput, map[string]any{"pane": id, "written": n},
			"pane %s did not read its input within %v (%d of %d bytes written)", id, InputTimeout, n, len(data))
	case errors.Is(werr, context.Canceled):
		return n, newError(errcode.CodeCancelled, map[string]any{"written": n}, "request cancelled")
	}
	return n, newError(errcode.CodeInternal, map[string]any{"written": n}, "write to pane %s: %v", id, werr)
}

// ResizePane sets a live pane's PTY size (Mux.ResizePane).
func (s *Service) ResizePane(id string, cols, rows int) (Pane, error) {
	if err := request.CheckSize(cols, rows); err != nil {
		return Pane{}, err
	}
	p, proc, err := s.livePane(id)
	if err != nil {
		return Pane{}, err
	}
	if rerr := proc.Resize(cols, rows); rerr != nil {
		return Pane{}, newError(errcode.ConflictPaneExited, map[string]any{"pane": id}, "pane %s has exited", id)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.cols != cols || p.rows != rows {
		p.cols, p.rows = cols, rows
		s.emitLocked(events.PaneResized{Pane: p.id, Cols: cols, Rows: rows})
	}
	return p.snapshot(), nil
}

// SignalPane sends a signal to a live pane's process group (Mux.SignalPane).
func (s *Service) SignalPane(id, name string) error {
	sig, err := request.ParseSignal(name, 0)
	if err != nil {
		return err
	}
	if name == "" {
		return invalid("signal", "missing", "signal is required")
	}
	_, proc, err := s.livePane(id)
	if err != nil && err.Code != errcode.ConflictPaneTerminating { // a terminating pane may still be signalled
		return err
	}
	if serr := proc.Signal(sig); serr != nil {
		return newError(errcode.ConflictPaneExited, map[string]any{"pane": id}, "pane %s has exited", id)
	}
	return nil
}

// CaptureRequest selects a pane's rows (docs/rows.md): nil Start and End
// select the screen; Start is inclusive, End exclusive, both absolute row
// numbers; a non-nil Epoch must be the pane's current epoch. Last selects
// the last *Last rows ending at the screen's bottom (not with Start or
// End); History starts at the oldest kept row (not with Start or Last);
// Clamp moves an out-of-range bound into the kept rows; a non-nil MaxBytes
// (1 … the capture limit; a larger one is lowered to it) cuts the lines
// at a row boundary instead of refusing them; Trim and Escapes shape each
// line (docs/rows.md, "Row text", "Escapes").
type CaptureRequest struct {
	Start, End, Epoch *int64
	Last              *int64
	MaxBytes          *int64
	History           bool
	Clamp             bool
	Trim              bool
	Escapes           bool
}

// Capture is the result of CaptureRows (docs/rows.md): Lines are rows
// [First, Next), each padded to Cols cells unless trimmed; rows
// [0, RestoredRows) are history saved before a restart or relaunch;
// Clamped says Clamp moved a bound, Cut that MaxBytes cut the rows.
type Capture struct {
	Epoch, Oldest, End, First, Next int64
	Cols, Rows                      int
	Screen                          string // term.ScreenPrimary or term.ScreenAlternate
	Lines                           []string
	RestoredRows                    int64
	Clamped, Cut                    bool
}

// checkCapture validates a request's selectors (docs/rows.md, "Capture
// ranges"). Errors: invalid_params.last, invalid_params.history,
// invalid_params.max_bytes.
func checkCapture(req CaptureRequest) *Error {
	switch {
	case req.Last != nil && *req.Last < 0:
		return invalid("last", "negative", "last must be 0 or more rows, not %d", *req.Last)
	case req.Last != nil && (req.Start != nil || req.End != nil):
		return invalid("last", "with_range", "last selects rows ending at the screen's bottom: give it without start and end")
	case req.Last != nil && req.History:
		return invalid("history", "with_last", "history and last select different starts: give one")
	case req.History && req.Start != nil:
		return invalid("history", "with_start", "history starts at the oldest row: give it without start")
	case req.MaxBytes != nil && *req.MaxBytes < 1:
		return invalid("max_bytes", "range", "max_bytes must be at least 1, not %d", *req.MaxBytes)
	}
	return nil
}

// CaptureRows returns a pane's rows (Mux.CaptureRows; docs/rows.md).
// Errors: not_found.pane, conflict.epoch, invalid_params.range.
func (s *Service) CaptureRows(id string, req CaptureRequest) (Capture, error) {
	s.mu.Lock()
	p, err := s.lookupPane(id)
	var t *term.Terminal
	var restored int64
	if err == nil {
		t, restored = p.term, p.restoredRows
	}
	s.mu.Unlock()
	if err != nil {
		return Capture{}, err
	}
	if t == nil { // a new pane whose first start is not committed: nothing shown yet
		return Capture{}, notFound("pane", id)
	}
	if verr := checkCapture(req); verr != nil {
		return Capture{}, verr
	}
	tr := term.CaptureRequest{Start: req.Start, End: req.End, Epoch: req.Epoch, MaxBytes: s.cfg.Limits.CaptureMaxBytes,
		Last: req.Last, History: req.History, Clamp: req.Clamp, Trim: req.Trim, Escapes: req.Escapes}
	if req.MaxBytes != nil {
		tr.Cut = true
		if tr.MaxBytes <= 0 || *req.MaxBytes < int64(tr.MaxBytes) {
			tr.MaxBytes = int(*req.MaxBytes)
		}
	}
	pc, cerr := t.Capture(tr)
	c := Capture{Epoch: pc.Epoch, Oldest: pc.Oldest, End: pc.End, First: pc.First, Next: pc.Next, Cols: pc.Cols, Rows: pc.Rows,
		Screen: pc.Screen, Lines: pc.Lines, RestoredRows: restored, Clamped: pc.Clamped, Cut: pc.Cut}
	var re *term.RangeError
	switch {
	case cerr == nil:
		return c, nil
	case errors.Is(cerr, term.ErrStaleEpoch):
		cur := t.Epoch()
		return Capture{}, newError(errcode.ConflictEpoch, map[string]any{"epoch": cur},
			"epoch %d is no longer current (it is %d)", *req.Epoch, cur)
	case errors.As(cerr, &re) && re.Reason == "too_large":
		return Capture{}, captureTooLarge(re)
	case errors.As(cerr, &re):
		return Capture{}, newError(errcode.InvalidParams("range"), map[string]any{"param": "range", "reason": re.Reason,
			"oldest": re.Oldest, "end": re.End}, "row range is invalid (%s); rows %d..%d are kept (last N selects the last rows, clamp serves what exists)", re.Reason, re.Oldest, re.End)
	}
	return Capture{}, newError(errcode.CodeInternal, nil, "capture: %v", cerr)
}

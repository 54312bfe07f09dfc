package service

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"time"

	"github.com/signaltty/signaltty/pty"
	"github.com/signaltty/signaltty/term"
	"golang.org/x/sys/unix"
)

// ListPanes returns panes in workspace, tab and layout order, optionally only
// those of one workspace or tab (Mux.ListPanes).
func (s *Service) ListPanes(wsRef, tabID string) ([]Pane, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
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
			return []Pane{}, nil
		}
		return snapshots(s.tabPanes(t)), nil
	}
	out := []Pane{}
	for _, wid := range s.wsOrder {
		if ws != nil && wid != ws.id {
			continue
		}
		for _, tid := range s.workspaces[wid].tabs {
			out = append(out, snapshots(s.tabPanes(s.tabs[tid]))...)
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
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.lookupPane(id)
	if err != nil {
		return Pane{}, err
	}
	return p.snapshot(), nil
}

// livePane finds a pane that must be live and not terminating, with its
// process handle read under s.mu.
func (s *Service) livePane(id string) (*pane, *pty.Pane, *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.lookupPane(id)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case p.exited || p.proc == nil:
		return nil, nil, newError("conflict.pane_exited", map[string]any{"pane": id}, "pane %s has exited", id)
	case p.terminating:
		return nil, nil, newError("conflict.pane_terminating", map[string]any{"pane": id}, "pane %s is terminating", id)
	}
	return p, p.proc, nil
}

// Input limits.
const (
	MaxInput     = 1 << 20         // bytes per SendInput
	InputTimeout = 5 * time.Second // budget of one SendInput, from entry
)

// SendInput writes data to a pane's PTY (Mux.SendInput); the bytes of
// concurrent calls are never interleaved. It returns the bytes written.
func (s *Service) SendInput(ctx context.Context, id string, data []byte) (int, error) {
	if len(data) > MaxInput {
		return 0, newError("invalid_params.size", map[string]any{"param": "input", "reason": "size", "max": MaxInput},
			"input is %d bytes, more than %d", len(data), MaxInput)
	}
	_, proc, err := s.livePane(id)
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, InputTimeout)
	defer cancel()
	n, werr := proc.Send(ctx, data)
	switch {
	case werr == nil:
		return n, nil
	case errors.Is(werr, pty.ErrExited):
		return n, newError("conflict.pane_exited", map[string]any{"pane": id, "written": n}, "pane %s has exited", id)
	case errors.Is(werr, pty.ErrTerminating):
		return n, newError("conflict.pane_terminating", map[string]any{"pane": id, "written": n}, "pane %s is terminating", id)
	case errors.Is(werr, context.DeadlineExceeded):
		return n, newError("timeout.input", map[string]any{"pane": id, "written": n},
			"pane %s did not read its input within %v (%d of %d bytes written)", id, InputTimeout, n, len(data))
	case errors.Is(werr, context.Canceled):
		return n, newError("cancelled", map[string]any{"written": n}, "request cancelled")
	}
	return n, newError("internal", map[string]any{"written": n}, "write to pane %s: %v", id, werr)
}

// ResizePane sets a live pane's PTY size (Mux.ResizePane).
func (s *Service) ResizePane(id string, cols, rows int) (Pane, error) {
	if err := checkSize(cols, rows); err != nil {
		return Pane{}, err
	}
	p, proc, err := s.livePane(id)
	if err != nil {
		return Pane{}, err
	}
	if rerr := proc.Resize(cols, rows); rerr != nil {
		return Pane{}, newError("conflict.pane_exited", map[string]any{"pane": id}, "pane %s has exited", id)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.cols != cols || p.rows != rows {
		p.cols, p.rows = cols, rows
		s.emit("pane.resized", p.id, map[string]any{"cols": cols, "rows": rows})
	}
	return p.snapshot(), nil
}

// signals maps the names SignalPane and KillPane accept.
var signals = map[string]syscall.Signal{
	"HUP": unix.SIGHUP, "INT": unix.SIGINT, "QUIT": unix.SIGQUIT, "KILL": unix.SIGKILL,
	"TERM": unix.SIGTERM, "USR1": unix.SIGUSR1, "USR2": unix.SIGUSR2, "CONT": unix.SIGCONT,
	"STOP": unix.SIGSTOP, "TSTP": unix.SIGTSTP, "WINCH": unix.SIGWINCH, "ALRM": unix.SIGALRM,
}

// parseSignal accepts "TERM", "term", "SIGTERM"; "" gives def.
func parseSignal(name string, def syscall.Signal) (syscall.Signal, *Error) {
	if name == "" {
		return def, nil
	}
	n := strings.TrimPrefix(strings.ToUpper(name), "SIG")
	if sig, ok := signals[n]; ok {
		return sig, nil
	}
	return 0, invalid("signal", "unknown", "unknown signal %q (one of HUP INT QUIT KILL TERM USR1 USR2 CONT STOP TSTP WINCH ALRM)", name)
}

// SignalPane sends a signal to a live pane's process group (Mux.SignalPane).
func (s *Service) SignalPane(id, name string) error {
	sig, err := parseSignal(name, 0)
	if err != nil {
		return err
	}
	if name == "" {
		return invalid("signal", "missing", "signal is required")
	}
	_, proc, err := s.livePane(id)
	if err != nil && err.Code != "conflict.pane_terminating" {
		return err
	}
	if err != nil { // signals may still be sent to a terminating pane
		s.mu.Lock()
		proc = s.panes[id].proc
		s.mu.Unlock()
	}
	if serr := proc.Signal(sig); serr != nil {
		return newError("conflict.pane_exited", map[string]any{"pane": id}, "pane %s has exited", id)
	}
	return nil
}

// Capture is the result of CaptureRows: see term.Capture; rows
// [0, RestoredRows) are history saved before a restart.
type Capture struct {
	term.Capture
	RestoredRows int64
}

// CaptureRows returns a pane's rows (Mux.CaptureRows, RFC-0014 as in the specs README).
func (s *Service) CaptureRows(id string, req term.CaptureRequest) (Capture, error) {
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
	pc, cerr := t.Capture(req)
	c := Capture{Capture: pc, RestoredRows: restored}
	var re *term.RangeError
	switch {
	case cerr == nil:
		return c, nil
	case errors.Is(cerr, term.ErrStaleEpoch):
		return Capture{}, newError("conflict.epoch", map[string]any{"epoch": c.Epoch},
			"epoch %d is no longer current", *req.Epoch)
	case errors.As(cerr, &re):
		return Capture{}, newError("invalid_params.range", map[string]any{"param": "range", "reason": re.Reason,
			"oldest": re.Oldest, "end": re.End}, "row range is invalid (%s); rows %d..%d are kept", re.Reason, re.Oldest, re.End)
	}
	return Capture{}, newError("internal", nil, "capture: %v", cerr)
}

// Termination limits.
const MaxGrace = 60 * time.Second

// parseStop checks a termination request (KillPane, Run.Cancel): the signal
// (default SIGHUP) and a grace of at most MaxGrace.
func parseStop(signal string, grace time.Duration) (syscall.Signal, *Error) {
	sig, err := parseSignal(signal, unix.SIGHUP)
	if err == nil && grace > MaxGrace {
		err = invalid("grace_ms", "range", "grace_ms must be 0..%d", MaxGrace.Milliseconds())
	}
	return sig, err
}

// KillPane terminates a pane's processes (Mux.KillPane, RFC-0012 as in the
// specs README) and returns the exited pane. grace < 0 means the default.
func (s *Service) KillPane(ctx context.Context, id, signal string, grace time.Duration) (Pane, error) {
	sig, err := parseStop(signal, grace)
	if err != nil {
		return Pane{}, err
	}
	s.mu.Lock()
	p, err := s.lookupPane(id)
	s.mu.Unlock()
	if err != nil {
		return Pane{}, err
	}
	if err := s.terminate(ctx, []*pane{p}, sig, grace, CausePaneKill); err != nil {
		return Pane{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return p.snapshot(), nil
}

// terminate terminates the live panes among ps concurrently and waits
// until each has exited and been recorded. sig 0 means SIGHUP; grace < 0
// means pty.DefaultGrace; cause is recorded on a run in a pane (first cause
// wins). It fails with timeout.terminate when a leader was not reaped within
// the kill-wait, or with cancelled when ctx ended.
func (s *Service) terminate(ctx context.Context, ps []*pane, sig syscall.Signal, grace time.Duration, cause string) *Error {
	if sig == 0 {
		sig = unix.SIGHUP
	}
	if grace < 0 {
		grace = pty.DefaultGrace
	}
	var started []*pane
	var procs []*pty.Pane
	s.mu.Lock()
	for _, p := range ps {
		if !p.exited && p.proc != nil {
			if !p.terminating {
				p.terminating = true
				if _, ok := s.panes[p.id]; ok {
					s.emit("pane.terminating", p.id, map[string]any{"signal": unix.SignalName(sig)})
				}
				s.beginRunTermination(p, cause)
			}
			started = append(started, p)
			procs = append(procs, p.proc)
		}
	}
	s.mu.Unlock()
	errs := make(chan error, len(started))
	for _, proc := range procs {
		go func(proc *pty.Pane) {
			err := proc.Terminate(ctx, sig, grace, pty.DefaultKillWait)
			if err == nil {
				select { // the service records the exit right after the reap
				case <-proc.Done():
				case <-ctx.Done():
					err = ctx.Err()
				}
			}
			errs <- err
		}(proc)
	}
	var first error
	for range started {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	switch {
	case first == nil:
		return nil
	case errors.Is(first, pty.ErrTerminateTimeout):
		return newError("timeout.terminate", nil, "a process was not reaped %v after SIGKILL", pty.DefaultKillWait)
	case errors.Is(first, context.Canceled), errors.Is(first, context.DeadlineExceeded):
		return newError("cancelled", nil, "request cancelled while terminating")
	}
	return newError("internal", nil, "terminate: %v", first)
}

// RemovePane removes a pane from its tab; a tab left empty is removed too
// (Mux.RemovePane). A live pane fails with conflict.pane_live unless kill.
func (s *Service) RemovePane(ctx context.Context, id string, kill bool) error {
	s.mu.Lock()
	p, err := s.lookupPane(id)
	if err != nil {
		s.mu.Unlock()
		return err
	}
	if err := s.beginRemoval([]*pane{p}, kill, func() bool { return false }); err != nil {
		s.mu.Unlock()
		return err
	}
	s.mu.Unlock()
	if err := s.terminate(ctx, []*pane{p}, 0, -1, CausePaneKill); err != nil {
		return err
	}
	s.mu.Lock()
	if _, ok := s.panes[id]; !ok { // a concurrent removal won
		s.mu.Unlock()
		return notFound("pane", id)
	}
	t := s.tabs[p.tab]
	cols, rows := t.layout.area(s.paneSize) // the tab's area, before p leaves it
	delete(s.panes, id)
	s.emit("pane.removed", id, map[string]any{"workspace": p.workspace, "tab": p.tab})
	t.layout = t.layout.without(id)
	var resize []func()
	if t.layout == nil {
		s.deleteTab(t)
	} else {
		if t.activePane == id {
			t.activePane = t.layout.leaves()[0]
		}
		s.emit("tab.layout_changed", t.id, map[string]any{"workspace": t.workspace})
		// The layout closes around the gap: the remaining panes share the area.
		t.layout.fit(min(cols, MaxSize), min(rows, MaxSize), func(pid string, c, r int) {
			c, r = min(c, MaxSize), min(r, MaxSize)
			q := s.panes[pid]
			if q.cols == c && q.rows == r {
				return
			}
			q.cols, q.rows = c, r
			s.emit("pane.resized", q.id, map[string]any{"cols": c, "rows": r})
			if proc := q.proc; proc != nil && !q.exited {
				resize = append(resize, func() { _ = proc.Resize(c, r) })
			}
		})
	}
	s.mu.Unlock()
	for _, f := range resize { // outside s.mu: pty locks
		f()
	}
	closeAll([]*pane{p})
	return nil
}

// paneSize is a pane's recorded size; s.mu is held.
func (s *Service) paneSize(id string) (int, int) {
	p := s.panes[id]
	return p.cols, p.rows
}

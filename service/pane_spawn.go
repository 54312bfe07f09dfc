package service

import (
	"errors"
	"strings"
	"time"

	"github.com/signaltty/signaltty/pty"
	"github.com/signaltty/signaltty/snapshot"
	"github.com/signaltty/signaltty/term"
)

// Size limits of a pane, in cells.
const (
	MinSize     = 1
	MaxSize     = 1000
	DefaultCols = 80
	DefaultRows = 24
)

// SpawnRequest is the input of SpawnPane. Exactly one of Workspace (a new
// tab), Tab (an empty tab) and Split (a live pane, with Axis) is set.
type SpawnRequest struct {
	Workspace  string
	Tab        string
	Split      string
	Axis       string // AxisCols or AxisRows; only with Split
	Argv       []string
	Cwd        string            // "" = the workspace's
	Env        map[string]string // added to the child's environment
	Cols, Rows *int              // only with Workspace or Tab; default 80×24
}

func checkSize(cols, rows int) *Error {
	if cols < MinSize || cols > MaxSize || rows < MinSize || rows > MaxSize {
		return newError("invalid_params.size", map[string]any{"param": "size", "reason": "range", "min": MinSize, "max": MaxSize},
			"size %dx%d is outside %d..%d", cols, rows, MinSize, MaxSize)
	}
	return nil
}

// checkSizeOpt checks a requested size; absent parts are the defaults.
func checkSizeOpt(cols, rows *int) *Error {
	c, r := DefaultCols, DefaultRows
	if cols != nil {
		c = *cols
	}
	if rows != nil {
		r = *rows
	}
	return checkSize(c, r)
}

// checkArgv checks a command: a program named, no NUL byte.
func checkArgv(argv []string) *Error {
	if len(argv) == 0 || argv[0] == "" {
		return invalid("argv", "missing", "argv must name a program")
	}
	for _, a := range argv {
		if strings.IndexByte(a, 0) >= 0 {
			return invalid("argv", "nul", "argv contains a NUL byte")
		}
	}
	return nil
}

// checkSpawn validates a request before any state is looked at.
func checkSpawn(r *SpawnRequest) *Error {
	if err := checkArgv(r.Argv); err != nil {
		return err
	}
	n := 0
	for _, t := range []string{r.Workspace, r.Tab, r.Split} {
		if t != "" {
			n++
		}
	}
	switch {
	case n == 0:
		return invalid("target", "missing", "one of workspace, tab and split is required")
	case n > 1:
		return invalid("target", "exclusive", "only one of workspace, tab and split may be given")
	case r.Split != "" && r.Axis != AxisCols && r.Axis != AxisRows:
		return invalid("target", "missing", "split needs axis \"cols\" or \"rows\"")
	case r.Split == "" && r.Axis != "":
		return invalid("target", "misplaced", "axis goes only with split")
	case r.Split != "" && (r.Cols != nil || r.Rows != nil):
		return invalid("size", "misplaced", "a split pane's size comes from the pane it splits")
	}
	if err := checkSizeOpt(r.Cols, r.Rows); err != nil {
		return err
	}
	if strings.IndexByte(r.Cwd, 0) >= 0 {
		return invalid("cwd", "nul", "cwd contains a NUL byte")
	}
	return checkEnv(r.Env)
}

// SpawnPane starts a program in a new pane (Mux.SpawnPane). A failed spawn
// leaves nothing behind: no tab, pane, process or descriptor.
func (s *Service) SpawnPane(r SpawnRequest) (Pane, error) {
	if err := checkSpawn(&r); err != nil {
		return Pane{}, err
	}
	return s.spawn(r, spawnHooks{})
}

// spawnHooks let a verb built on spawning (a run) act inside the spawn's
// critical sections.
type spawnHooks struct {
	tabTitle string            // title of a new tab ("" = "tab")
	env      map[string]string // variables the daemon adds (SIGNALTTY_RUN)
	precheck func() *Error     // after the target was resolved, before exec
	commit   func(p *pane)     // after the pane's events, in the same critical section
}

// spawn starts r (already checked) in a new pane.
func (s *Service) spawn(r SpawnRequest, h spawnHooks) (Pane, error) {
	s.mu.Lock()
	if s.stopping {
		s.mu.Unlock()
		return Pane{}, newError("unavailable.shutdown", nil, "the daemon is shutting down")
	}
	w, t, target, err := s.spawnTarget(&r)
	if err == nil && h.precheck != nil {
		err = h.precheck()
	}
	if err != nil {
		s.mu.Unlock()
		return Pane{}, err
	}
	cols, rows := DefaultCols, DefaultRows
	var targetCols, targetRows int
	if target != nil {
		cols, rows = target.cols, target.rows
		targetCols, targetRows = cols, rows
		size, other := &cols, &targetCols
		if r.Axis == AxisRows {
			size, other = &rows, &targetRows
		}
		first, second, ok := splitSize(*size, 0.5)
		if !ok {
			s.mu.Unlock()
			return Pane{}, newError("invalid_params.size", map[string]any{"param": "size", "reason": "too_small"},
				"pane %s is too small to split along %s", target.id, r.Axis)
		}
		*other, *size = first, second
	} else {
		if r.Cols != nil {
			cols = *r.Cols
		}
		if r.Rows != nil {
			rows = *r.Rows
		}
	}
	cwd := w.cwd
	if r.Cwd != "" {
		var err *Error
		if cwd, err = checkDir("cwd", r.Cwd); err != nil {
			s.mu.Unlock()
			return Pane{}, err
		}
	}

	p := &pane{id: newID("pane"), workspace: w.id, title: argv0(r.Argv), argv: append([]string{}, r.Argv...),
		cwd: cwd, env: map[string]string{}, cols: cols, rows: rows, createdAt: time.Now()}
	for k, v := range r.Env {
		p.env[k] = v
	}
	env := r.Env
	if len(h.env) > 0 {
		env = map[string]string{}
		for k, v := range r.Env {
			env[k] = v
		}
		for k, v := range h.env {
			env[k] = v
		}
	}
	proc, perr := pty.Start(pty.Config{
		Argv: r.Argv, Dir: cwd, Env: childEnv(s.cfg.Environ, env, p.id, s.cfg.Address),
		Cols: cols, Rows: rows, HistoryRows: s.cfg.HistoryRows, HistoryBytes: s.cfg.HistoryBytes,
		OnEvent: func(e term.Event) { s.observe(p, e) },
		OnExit:  func(st pty.ExitStatus) { s.exited(p, st) },
	})
	if perr != nil {
		s.mu.Unlock()
		return Pane{}, spawnError(perr, r.Argv)
	}
	p.proc, p.term, p.pid, p.restoreState = proc, proc.Terminal(), proc.Pid(), snapshot.RestoreLive

	if target == nil && t == nil {
		title := h.tabTitle
		if title == "" {
			title = "tab"
		}
		t = s.addTab(w, title)
	}
	p.tab = t.id
	if target != nil {
		t.layout.split(target.id, p.id, r.Axis)
		target.cols, target.rows = targetCols, targetRows
	} else {
		t.layout = &node{pane: p.id}
	}
	t.activePane = p.id
	s.panes[p.id] = p
	s.emit("pane.created", p.id, map[string]any{"workspace": w.id, "tab": t.id, "argv0": argv0(p.argv),
		"cols": cols, "rows": rows})
	if target != nil {
		s.emit("pane.resized", target.id, map[string]any{"cols": targetCols, "rows": targetRows})
	}
	s.emit("tab.layout_changed", t.id, map[string]any{"workspace": w.id})
	if h.commit != nil {
		h.commit(p)
	}
	snap := p.snapshot()
	s.mu.Unlock()

	if target != nil {
		// Outside s.mu (pty locks). An exited target keeps its recorded size.
		_ = target.proc.Resize(targetCols, targetRows)
	}
	// No argv, not even argv0, in logs (run-wait RFC §9, row 28).
	s.log.Info("pane spawned", "pane", p.id, "workspace", w.id, "tab", t.id, "pid", snap.Pid)
	return snap, nil
}

// spawnTarget resolves where a pane goes; s.mu is held.
func (s *Service) spawnTarget(r *SpawnRequest) (*workspace, *tab, *pane, *Error) {
	switch {
	case r.Workspace != "":
		w, err := s.lookupWorkspace(r.Workspace)
		if err != nil {
			return nil, nil, nil, err
		}
		if w.removing {
			return nil, nil, nil, newError("conflict.removing", map[string]any{"workspace": w.id}, "workspace %s is being removed", w.id)
		}
		return w, nil, nil, nil
	case r.Tab != "":
		t, err := s.lookupTab(r.Tab)
		if err != nil {
			return nil, nil, nil, err
		}
		w := s.workspaces[t.workspace]
		if t.removing || w.removing {
			return nil, nil, nil, newError("conflict.removing", map[string]any{"tab": t.id}, "tab %s is being removed", t.id)
		}
		if t.layout != nil {
			return nil, nil, nil, newError("conflict.tab_not_empty", map[string]any{"tab": t.id},
				"tab %s already has panes; split one of them", t.id)
		}
		return w, t, nil, nil
	default:
		target, err := s.lookupPane(r.Split)
		if err != nil {
			return nil, nil, nil, err
		}
		t := s.tabs[target.tab]
		w := s.workspaces[target.workspace]
		switch {
		case target.exited:
			return nil, nil, nil, newError("conflict.pane_exited", map[string]any{"pane": target.id}, "pane %s has exited", target.id)
		case target.terminating:
			return nil, nil, nil, newError("conflict.pane_terminating", map[string]any{"pane": target.id}, "pane %s is terminating", target.id)
		case t.removing || w.removing:
			return nil, nil, nil, newError("conflict.removing", map[string]any{"tab": t.id}, "tab %s is being removed", t.id)
		}
		return w, t, target, nil
	}
}

// spawnError maps a pty start failure to unavailable.spawn (or invalid_params).
func spawnError(err error, argv []string) *Error {
	var se *pty.SpawnError
	if errors.As(err, &se) {
		if se.Reason == "cwd" {
			return invalid("cwd", "not_a_directory", "%v", se.Err)
		}
		return newError("unavailable.spawn", map[string]any{"reason": se.Reason, "argv0": argv0(argv)},
			"cannot start %q: %v", argv[0], se.Err)
	}
	return newError("unavailable.spawn", map[string]any{"reason": "other", "argv0": argv0(argv)},
		"cannot start %q: %v", argv[0], err)
}

// observe records an observation from a pane's output and publishes it.
// Called by the pane's emulation goroutine.
func (s *Service) observe(p *pane, e term.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.panes[p.id]; !ok {
		return
	}
	switch e.Kind {
	case term.EventTitle:
		if p.title != e.Text {
			p.title = e.Text
			s.emit("pane.title", p.id, map[string]any{"title": e.Text})
		}
	case term.EventCwd:
		p.reportedCwd = e.Text
		s.emit("pane.cwd", p.id, map[string]any{"cwd": e.Text})
	case term.EventBell:
		s.emit("pane.bell", p.id, nil)
	case term.EventCommandStart:
		p.commandOpen = true
		s.emit("command.started", p.id, nil)
	case term.EventCommandFinish:
		p.commandOpen = false
		data := map[string]any{}
		if e.Code != nil {
			data["code"] = *e.Code
		}
		s.emit("command.finished", p.id, data)
	case term.EventProgramStatus:
		st := e.Text
		if len(st) > 1024 {
			st = st[:1024]
		}
		p.programStatus = true
		s.emit("program.status_changed", p.id, map[string]any{"status": st})
	case term.EventAltScreen:
		if p.altScreen != e.Bool {
			p.altScreen = e.Bool
			screen := term.ScreenPrimary
			if e.Bool {
				screen = term.ScreenAlternate
			}
			s.emit("pane.updated", p.id, map[string]any{"screen": screen})
		}
	}
}

// exited records a pane's exit and publishes pane.exited, then completes the
// pane's run, in one critical section. Called once by the pane after the
// leader was reaped and its output emulated.
func (s *Service) exited(p *pane, st pty.ExitStatus) {
	s.mu.Lock()
	rec := p.run
	s.mu.Unlock()
	var out *RunOutput
	if rec != nil { // the terminal is final now: nothing more is emulated
		out = runOutput(p.term, p.proc.Offset(), rec.outputRows, rec.outputBytes)
	}
	s.mu.Lock()
	p.exited, p.pid, p.exitedAt, p.restoreState = true, 0, st.At, snapshot.RestoreExited
	p.status = &WaitStatus{Code: st.Code, Signal: st.Signal, CoreDumped: st.CoreDumped}
	if st.HeldOpen {
		s.escaped++
	}
	if _, ok := s.panes[p.id]; ok { // the pane-exit sequence (RFC §9)
		if p.commandOpen {
			p.commandOpen = false
			s.emit("command.finished", p.id, map[string]any{"reason": "pane_exit"})
		}
		if p.programStatus {
			p.programStatus = false
			s.emit("program.status_changed", p.id, map[string]any{"status": "", "reason": "pane_exit"})
		}
		s.emit("pane.exited", p.id, map[string]any{"status": statusData(p.status)})
	}
	if rec != nil {
		s.completeRun(rec, st, out)
	}
	s.mu.Unlock()
	if st.Code != nil {
		s.log.Info("pane exited", "pane", p.id, "code", *st.Code)
	} else {
		s.log.Info("pane exited", "pane", p.id, "signal", st.Signal)
	}
	p.term.Release()
}

func statusData(w *WaitStatus) map[string]any {
	m := map[string]any{"core_dumped": w.CoreDumped}
	if w.Code != nil {
		m["code"] = *w.Code
	}
	if w.Signal != "" {
		m["signal"] = w.Signal
	}
	return m
}

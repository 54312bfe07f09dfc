package service

import (
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/signaltty/signaltty/cgroup"
	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/events"

	"github.com/signaltty/signaltty/pty"
	"github.com/signaltty/signaltty/term"
)

// Starting a process for a pane is one path for every verb that does it
// (SpawnPane, RelaunchPane, Run.Start; docs/pane-lifecycle.md, "Starting"):
//
//  1. reserve, under s.mu: validate against the model and move the pane to
//     starting (a new pane is in the model but not yet announced or placed);
//  2. launch, without s.mu: PATH search, fork and exec (pty.Start);
//  3. commit, under s.mu: only if the pane is still starting under this
//     reservation and the world is as it was reserved (target, tab,
//     workspace, no shutdown) does it become live, with its events; else it
//     falls back (a new pane is dropped, a relaunched one goes back to the
//     state it started from) and the verb fails with what won;
//  4. settle, without s.mu: the instance's callbacks are let through, a
//     process of a failed start is killed and reaped, sizes applied.
//
// startPane runs the four steps; a verb's differences are its startSteps.

// startSteps are what a verb adds to the start sequence. reserveLocked
// makes the reservation (a reservation it returns with an error is
// settled with that error); prepare runs before the launch without s.mu;
// after the launch, in one critical section, beforeCommitLocked runs, then
// the commit, then committedLocked or failedLocked, so the verb's events
// follow the pane's. Every step but reserveLocked may be nil.
type startSteps struct {
	reserveLocked      func() (*start, *Error)
	prepare            func(st *start)
	beforeCommitLocked func(st *start)
	committedLocked    func(st *start)
	failedLocked       func(st *start)
}

// startPane runs the start sequence with a verb's steps and returns why
// it failed (nil: the start committed); s.mu is not held.
func (s *Service) startPane(steps startSteps) *Error {
	s.mu.Lock()
	st, err := steps.reserveLocked()
	s.mu.Unlock()
	if err != nil {
		if st != nil {
			s.settle(st, err)
		}
		return err
	}
	if steps.prepare != nil {
		steps.prepare(st)
	}
	s.launch(st)
	s.mu.Lock()
	if steps.beforeCommitLocked != nil {
		steps.beforeCommitLocked(st)
	}
	err = s.commitLocked(st)
	switch {
	case err == nil && steps.committedLocked != nil:
		steps.committedLocked(st)
	case err != nil && steps.failedLocked != nil:
		steps.failedLocked(st)
	}
	s.mu.Unlock()
	s.settle(st, err)
	return err
}

// start is one reservation: a pane in state starting and what its process needs.
type start struct {
	p       *pane
	from    paneState     // the state the pane started from (set by transitionLocked)
	settled chan struct{} // closed when the pane leaves starting
	lost    *Error        // set when a removal took the pane while it was starting

	spec spawnSpec // a new pane: where it goes (resolved again at commit)
	// placeLocked puts a new pane into its tab at commit (nil for a pane
	// that is in one already).
	placeLocked func(st *start) (target *pane, _ *Error)
	cfg         pty.Config
	// termCfg is the settings of the pane's terminal for this process (its
	// size and replies are cfg's, set at launch).
	termCfg term.Config
	// The pane's cgroup for this process, named here and made at launch
	// (cgroups.go), with its limits.
	cgroupName string
	limits     cgroup.Limits
	inst       *instance
	err        error          // the launch failed (or a check before it did)
	proc       *pty.Process   // the launched process
	term       *term.Terminal // its terminal (its Output)

	// After a commit: a split target to resize, and the previous instance
	// of a relaunched pane to release (outside s.mu).
	resizeTarget *pty.Process
	targetCols   int
	targetRows   int
	resizeSelf   bool
	oldInst      *instance
	oldTerm      *term.Terminal
}

// reserveLocked makes the reservation for p (already in the model, or new) and
// moves it to starting; s.mu is held. env is what the daemon adds to the
// pane's own environment for this process (a run's SIGNALTTY_RUN).
func (s *Service) reserveLocked(p *pane, env map[string]string, spec spawnSpec) *start {
	st := &start{p: p, spec: spec, settled: make(chan struct{}), inst: newInstance()}
	s.instances++
	st.inst.id = "i" + strconv.FormatInt(s.instances, 10)
	s.transitionLocked(p, change{to: stateStarting, start: st})
	p.watchAgentLocked()
	merged := map[string]string{}
	for k, v := range p.env {
		merged[k] = v
	}
	for k, v := range env {
		merged[k] = v
	}
	inst := st.inst
	st.cfg = pty.Config{
		Argv: append([]string{}, p.argv...), Dir: p.cwd, Env: childEnvFrom(s.childBase, merged, p.envUnset, p.id, s.cfg.Address),
		Cols: p.cols, Rows: p.rows,
		OnExit: func(es pty.ExitStatus) { s.processExited(p, inst, es) },
	}
	st.termCfg = term.Config{
		HistoryRows: s.settings.paneHistoryRowsLocked(p), HistoryBytes: s.cfg.HistoryBytes,
		Parker:  s.parker,
		Memory:  s.memory,
		OnEvent: func(e term.Event) { s.observe(p, inst, e) },
	}
	st.termCfg.Budget = s.limits.history // every pane's rows together (limits.go)
	inst.mark = s.cfg.Mark.NewInstance()
	st.cfg.Mark = inst.mark
	st.cgroupName, st.limits = cgroupName(p.id), p.limits
	s.starts.Add(1)
	return st
}

// launch makes the pane's terminal for the reserved process and starts the
// process writing to it; s.mu is not held. A terminal whose process did not
// start is closed.
func (s *Service) launch(st *start) {
	if st.err == nil {
		if err := s.limits.cgroups.create(st); err != nil {
			st.err = err
			return
		}
		replies := pty.NewReplies() // the terminal's answers to queries, to the child's input
		st.cfg.Replies = replies
		tc := st.termCfg
		tc.Cols, tc.Rows, tc.Replies = st.cfg.Cols, st.cfg.Rows, replies
		t := term.NewTerminal(tc)
		st.proc, st.err = s.startProcess(st.cfg, t)
		if st.err != nil {
			t.Close()
			if st.cfg.Cgroup != nil {
				st.cfg.Cgroup.Remove(removeWait)
			}
			return
		}
		st.term = t
	}
}

// commitLocked makes a launched start live, or falls back; s.mu is held. On
// success the pane's events are published; the caller may add its own
// (a run's) in the same critical section before unlocking, then calls settle.
func (s *Service) commitLocked(st *start) *Error {
	p := st.p
	fail := func(err *Error) *Error {
		s.abandonLocked(st)
		return err
	}
	switch {
	case p.state != stateStarting || p.start != st: // a removal won
		return st.lost
	case st.err != nil:
		var se *Error
		if errors.As(st.err, &se) {
			return fail(se)
		}
		return fail(spawnError(st.err, p.argv))
	case s.stopping:
		return fail(errcode.Shutdown())
	}
	isNew := st.placeLocked != nil
	var target *pane
	if isNew {
		var err *Error
		if target, err = st.placeLocked(st); err != nil {
			return fail(err)
		}
	}
	st.inst.proc, st.inst.term, st.inst.committed = st.proc, st.term, true
	st.oldInst, st.oldTerm = p.inst, p.term
	p.inst, p.term = st.inst, st.term
	s.transitionLocked(p, change{to: stateLive})
	if target != nil {
		s.emitLocked(events.PaneResized{Pane: target.id, Cols: target.cols, Rows: target.rows})
	}
	if isNew {
		s.emitLocked(events.TabLayoutChanged{Tab: p.tab, Workspace: p.workspace})
	}
	return nil
}

// abandonLocked undoes a reservation that did not commit: a new pane is dropped
// unannounced, a relaunched one goes back to the state it started from;
// s.mu is held. A reservation a removal took is left as the removal left it.
func (s *Service) abandonLocked(st *start) {
	p := st.p
	if p.state != stateStarting || p.start != st {
		return
	}
	back := st.from
	if back == stateNone {
		back = stateRemoved // a new pane that never was
	}
	s.transitionLocked(p, change{to: back})
}

// settle finishes a start after commit; s.mu is not held.
func (s *Service) settle(st *start, err *Error) {
	close(st.inst.decided)
	defer s.starts.Done()
	if err != nil {
		if st.proc != nil { // a process nobody will ever see: kill and reap it
			st.proc.Close()
			dropCgroup(st.proc)
		}
		return
	}
	if st.resizeTarget != nil { // an exited target keeps its recorded size
		_ = st.resizeTarget.Resize(st.targetCols, st.targetRows)
	}
	if st.resizeSelf { // the target was resized while this pane was starting
		_ = st.proc.Resize(st.p.cols, st.p.rows)
	}
	if st.oldInst != nil {
		st.oldInst.proc.Close()
		dropCgroup(st.oldInst.proc)
	}
	if st.oldTerm != nil {
		st.oldTerm.Close()
	}
}

// placeLocked puts a new pane into its tab (a new one for a workspace target);
// s.mu is held. The target is resolved again: the reservation did not
// hold it, so a target or tab removed, or a split target that stopped
// being live, fails the start.
func (s *Service) placeLocked(st *start) (target *pane, _ *Error) {
	p := st.p
	w, t, target, err := s.spawnTargetLocked(&st.spec.SpawnRequest, p)
	if err != nil {
		return nil, err
	}
	if target != nil { // live: spawnTargetLocked checked
		cols, rows, tcols, trows, err := splitSizes(target, st.spec.Axis)
		if err != nil {
			return nil, err
		}
		st.resizeSelf = cols != st.cfg.Cols || rows != st.cfg.Rows
		p.cols, p.rows = cols, rows
		target.cols, target.rows = tcols, trows
		st.resizeTarget, st.targetCols, st.targetRows = target.inst.proc, tcols, trows
		t.layout.split(target.id, p.id, st.spec.Axis)
	} else {
		if t == nil {
			title := st.spec.tabTitle
			if title == "" {
				title = "tab"
			}
			t = s.addTabLocked(w, title, st.spec.run)
		}
		t.layout = &node{pane: p.id}
	}
	p.tab = t.id
	t.activePane = p.id
	return target, nil
}

// spawnTargetLocked resolves where a new pane goes; s.mu is held. self is the
// pane being placed (nil at its reservation).
func (s *Service) spawnTargetLocked(r *SpawnRequest, self *pane) (*workspace, *tab, *pane, *Error) {
	switch {
	case r.Workspace != "":
		w, err := s.lookupWorkspace(r.Workspace)
		if err != nil {
			return nil, nil, nil, err
		}
		if w.removing {
			return nil, nil, nil, newError(errcode.ConflictRemoving, map[string]any{"workspace": w.id}, "workspace %s is being removed", w.id)
		}
		return w, nil, nil, nil
	case r.Tab != "":
		t, err := s.lookupTab(r.Tab)
		if err != nil {
			return nil, nil, nil, err
		}
		w := s.workspaces[t.workspace]
		if t.removing || w.removing {
			return nil, nil, nil, newError(errcode.ConflictRemoving, map[string]any{"tab": t.id}, "tab %s is being removed", t.id)
		}
		if t.layout != nil {
			return nil, nil, nil, newError(errcode.ConflictTabNotEmpty, map[string]any{"tab": t.id},
				"tab %s already has panes; split one of them", t.id)
		}
		for _, q := range s.panes { // another start already reserved this empty tab
			if q.tab == t.id && !q.announced() && q != self {
				return nil, nil, nil, newError(errcode.ConflictTabNotEmpty, map[string]any{"tab": t.id},
					"a pane is being started in tab %s; split it once it is there", t.id)
			}
		}
		return w, t, nil, nil
	default:
		target, err := s.lookupPane(r.Split)
		if err != nil {
			return nil, nil, nil, err
		}
		t := s.tabs[target.tab]
		w := s.workspaces[target.workspace]
		switch target.state {
		case stateExited, stateRestored:
			return nil, nil, nil, newError(errcode.ConflictPaneExited, map[string]any{"pane": target.id}, "pane %s has exited", target.id)
		case stateTerminating:
			return nil, nil, nil, newError(errcode.ConflictPaneTerminating, map[string]any{"pane": target.id}, "pane %s is terminating", target.id)
		case stateStarting:
			return nil, nil, nil, newError(errcode.ConflictPaneStarting, map[string]any{"pane": target.id}, "pane %s is starting", target.id)
		}
		if t.removing || w.removing {
			return nil, nil, nil, newError(errcode.ConflictRemoving, map[string]any{"tab": t.id}, "tab %s is being removed", t.id)
		}
		return w, t, target, nil
	}
}

// splitSizes divides target along axis: the new pane's size and the
// target's new size, or invalid_params.size when it is too small.
func splitSizes(target *pane, axis string) (cols, rows, tcols, trows int, err *Error) {
	cols, rows = target.cols, target.rows
	tcols, trows = cols, rows
	size, other := &cols, &tcols
	if axis == AxisRows {
		size, other = &rows, &trows
	}
	first, second, ok := splitSize(*size, 0.5)
	if !ok {
		return 0, 0, 0, 0, newError(errcode.InvalidParams("size"), map[string]any{"param": "size", "reason": "too_small"},
			"pane %s is too small to split along %s", target.id, axis)
	}
	*other, *size = first, second
	return cols, rows, tcols, trows, nil
}

// reserveNewLocked reserves a new pane for spec (validated); s.mu is held.
func (s *Service) reserveNewLocked(spec spawnSpec) (*start, *Error) {
	if s.stopping {
		return nil, errcode.Shutdown()
	}
	if err := s.limits.checkPaneLimitLocked(); err != nil {
		return nil, err
	}
	w, t, target, err := s.spawnTargetLocked(&spec.SpawnRequest, nil)
	if err != nil {
		return nil, err
	}
	cols, rows := DefaultCols, DefaultRows
	if target != nil {
		if cols, rows, _, _, err = splitSizes(target, spec.Axis); err != nil {
			return nil, err
		}
	} else {
		if spec.Cols != nil {
			cols = *spec.Cols
		}
		if spec.Rows != nil {
			rows = *spec.Rows
		}
	}
	cwd := spec.Cwd
	if cwd == "" {
		cwd = w.cwd
	}
	p := &pane{id: newID("pane"), workspace: w.id, title: argv0(spec.Argv), argv: append([]string{}, spec.Argv...),
		cwd: cwd, env: map[string]string{}, cols: cols, rows: rows, createdAt: time.Now(), historyRows: s.settings.historyRowsLocked(),
		limits: spec.Limits}
	if spec.HistoryRows != nil {
		p.historyRows = *spec.HistoryRows
	}
	for k, v := range spec.Env {
		p.env[k] = v
	}
	p.envUnset = slices.Clone(spec.EnvUnset)
	initAgent(p, spec.Agent, spec.Env)
	if spec.assignedSession != "" {
		p.agent.AssignSession(spec.assignedSession, p.launch())
	}
	switch {
	case t != nil:
		p.tab = t.id
	case target != nil:
		p.tab = target.tab
	}
	s.panes[p.id] = p
	s.access.adoptLocked(p, spec.Creator, spec.Grants)
	st := s.reserveLocked(p, spec.extraEnv, spec)
	st.placeLocked = s.placeLocked
	return st, nil
}

// SpawnPane starts a program in a new pane (Mux.SpawnPane). A failed spawn
// leaves nothing behind: no tab, pane, process or descriptor.
func (s *Service) SpawnPane(r SpawnRequest) (Pane, error) {
	spec, err := checkSpawn(r)
	if err != nil {
		return Pane{}, err
	}
	if err := s.limits.cgroups.check(r.Limits); err != nil {
		return Pane{}, err
	}
	var snap Pane
	if err := s.startPane(startSteps{
		reserveLocked:   func() (*start, *Error) { return s.reserveNewLocked(spec) },
		committedLocked: func(st *start) { snap = st.p.snapshot() },
	}); err != nil {
		return Pane{}, err
	}
	// No argv, not even argv0, in logs (docs/run-wait.md, "What stays out of events and logs").
	s.log.Info("pane spawned", "pane", snap.ID, "workspace", snap.Workspace, "tab", snap.Tab, "pid", snap.Pid)
	return snap, nil
}

// spawnError maps a pty start failure to unavailable.spawn (or invalid_params).
func spawnError(err error, argv []string) *Error {
	var se *pty.SpawnError
	if errors.As(err, &se) {
		var pe *os.PathError
		if se.Reason == "cwd" && errors.As(se.Err, &pe) { // worded as checkDir's: one error for every verb
			return invalid("cwd", "not_a_directory", "cwd %q is not an existing directory", pe.Path)
		}
		if se.Reason == "cwd" {
			return invalid("cwd", "not_a_directory", "%v", se.Err)
		}
		hint := ""
		if se.Reason == "not_found" && !strings.Contains(argv[0], "/") {
			hint = " (the PATH searched is the pane's: the daemon's environment, which is the user manager's or that of the CLI call that started it, plus the request's env: set PATH in the env parameter (CLI --env PATH=…) or give an absolute path)"
		}
		return newError(errcode.UnavailableSpawn, map[string]any{"reason": se.Reason, "argv0": argv0(argv)},
			"cannot start %q: %v%s", argv[0], se.Err, hint)
	}
	return newError(errcode.UnavailableSpawn, map[string]any{"reason": "other", "argv0": argv0(argv)},
		"cannot start %q: %v", argv[0], err)
}

package service

import (
	"context"
	"time"

	"github.com/signaltty/signaltty/pty"
	"github.com/signaltty/signaltty/service/authz"
	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/request"
	"github.com/signaltty/signaltty/service/runs"
	"github.com/signaltty/signaltty/snapshot"
	"golang.org/x/sys/unix"
)

// Runs follow the run/wait contract, docs/run-wait.md: a run is a command
// the daemon starts as the leader of a new pane; its result comes only from
// the daemon's wait on that leader. The run's rules (record, key, ids,
// retention) are service/runs; here are its pane's: starting it through
// the one start path, following it, stopping it.

// Run states, outcomes and causes (docs/run-wait.md, "States", "Outcomes
// and status" and "Causes").
const (
	RunStateRunning     = runs.StateRunning
	RunStateTerminating = runs.StateTerminating
	RunStateCompleted   = runs.StateCompleted

	OutcomeSucceeded  = runs.OutcomeSucceeded
	OutcomeFailed     = runs.OutcomeFailed
	OutcomeSignaled   = runs.OutcomeSignaled
	OutcomeTerminated = runs.OutcomeTerminated

	CauseCancel   = runs.CauseCancel
	CauseDeadline = runs.CauseDeadline
	CausePaneKill = runs.CausePaneKill
	CauseRemoval  = runs.CauseRemoval
	CauseShutdown = runs.CauseShutdown
)

// RunIDFile is the file of the state directory that holds the bound of the
// run ids reserved so far (docs/run-wait.md, "Run ids and source").
const RunIDFile = runs.IDFile

// Principal is who a connection acts as. Until grants exist every peer
// with the daemon's uid is the owner.
const Owner = authz.Owner

// RunRequest is the input of Runs.Start (docs/run-wait.md, "Start").
type RunRequest struct {
	Key       string
	Workspace string
	Pane      string
	Axis      string
	Argv      []string // exactly one of Argv and Shell
	Shell     *string
	// Cwd, Env and EnvUnset are as on SpawnRequest (the same checks);
	// the run record keeps none of them, only the key's digest covers them.
	Cwd         string
	Env         map[string]string
	EnvUnset    []string
	Name        *string // tab title; only with Workspace
	Cols, Rows  *int
	DeadlineMs  *int64
	OutputRows  *int
	OutputBytes *int
	Source      string
	Grants      []Grant // of the run pane's principal; nil: DefaultPaneGrants (checked before, grants.go)
	Principal   string
}

type (
	// RunStart is the result of Runs.Start.
	RunStart = runs.Start
	// RunOutput is the output tail of a completed run (docs/run-wait.md, "Output tail").
	RunOutput = runs.Output
	// Run is a snapshot of a run record.
	Run = runs.Run
	// RunConfig holds the run limits (docs/run-wait.md, "Retention").
	RunConfig = runs.Config
)

// Runs is the Run interface's verbs over the service's model and lock:
// start, get, wait, list and cancel runs, and their limits. The zero value
// is not usable; Service.Runs returns one.
type Runs struct{ s *Service }

// Runs returns the run verbs.
func (s *Service) Runs() Runs { return Runs{s} }

// DefaultRunConfig is the default limits.
var DefaultRunConfig = runs.DefaultConfig

// CheckSource fails with conflict.source unless src is "" or this daemon's
// event source (docs/run-wait.md, "Run ids and source").
func (rs Runs) CheckSource(src string) *Error { return rs.s.runs.CheckSource(src) }

// StartIDs makes run ids unique for the state directory of store
// (runs.Table.StartIDs). Call it before serving.
func (rs Runs) StartIDs(store *snapshot.Store) error { return rs.s.runs.StartIDs(&rs.s.mu, store) }

// runParams is r as the key's digest covers it: every parameter after
// defaults, except source (docs/run-wait.md, "Keys"). A split of an
// existing pane has no default size.
func runParams(r *RunRequest) runs.Params {
	grants := r.Grants
	if grants == nil { // leaving grants out equals giving the default
		grants = DefaultPaneGrants
	}
	p := runs.Params{Key: r.Key, Axis: r.Axis, Workspace: r.Workspace, Pane: r.Pane, Argv: r.Argv, Shell: r.Shell,
		Name: r.Name, Cwd: r.Cwd, Env: r.Env, EnvUnset: r.EnvUnset, Grants: make([]string, 0, len(grants)),
		Cols: r.Cols, Rows: r.Rows, DeadlineMs: r.DeadlineMs, OutputRows: defOutputRows, OutputBytes: defOutputBytes}
	for _, g := range grants {
		p.Grants = append(p.Grants, g.Right+":"+g.Scope)
	}
	if r.Pane == "" {
		cols, rows := DefaultCols, DefaultRows
		if p.Cols == nil {
			p.Cols = &cols
		}
		if p.Rows == nil {
			p.Rows = &rows
		}
	}
	if r.OutputRows != nil {
		p.OutputRows = *r.OutputRows
	}
	if r.OutputBytes != nil {
		p.OutputBytes = *r.OutputBytes
	}
	return p
}

// Start starts a run, or returns the run its key is bound to (Run.Start).
// ctx ending before the start barrier rolls the start back (cancelled);
// after it, the start completes and only the reply is lost.
func (rs Runs) Start(ctx context.Context, r RunRequest) (RunStart, error) {
	s := rs.s
	if r.Principal == "" {
		r.Principal = Owner
	}
	spec, err := s.checkRun(&r)
	if err != nil {
		return RunStart{}, err
	}
	s.mu.Lock() // a workspace named by handle or id is the same parameter
	if w, err := s.lookupWorkspace(r.Workspace); err == nil && r.Workspace != "" {
		r.Workspace, spec.Workspace = w.id, w.id
	}
	s.mu.Unlock()
	dig := s.runs.Digest(runParams(&r))
	claim, res, cerr := s.runs.Claim(ctx, &s.mu, r.Principal, r.Key, dig)
	if claim == nil {
		return res, cerr
	}
	res, serr := rs.start(ctx, &r, spec, dig)
	s.mu.Lock()
	s.runs.Release(claim, res, serr)
	s.mu.Unlock()
	return res, serr
}

// start makes the run's pane through the one start path (start.go) and
// commits the run record in the pane's commit: run.started follows the
// pane's events in the same critical section.
func (rs Runs) start(ctx context.Context, r *RunRequest, spec spawnSpec, dig []byte) (RunStart, error) {
	s := rs.s
	s.mu.Lock()
	barrier := s.runs.Barrier
	s.mu.Unlock()
	if barrier != nil {
		barrier(r.Key, "before")
	}
	if ctx.Err() != nil { // before the barrier was released: roll back
		return RunStart{}, newError(errcode.CodeCancelled, nil, "request cancelled before the command started")
	}
	if barrier != nil {
		barrier(r.Key, "after")
	}
	var deadline time.Duration
	if r.DeadlineMs != nil {
		deadline = time.Duration(*r.DeadlineMs) * time.Millisecond
	}
	p := runParams(r)
	rec := runs.NewRecord(r.Key, r.Principal, dig, r.Shell != nil, deadline, p.OutputRows, p.OutputBytes)
	if err := s.runs.TakeID(&s.mu, rec); err != nil {
		return RunStart{}, err
	}
	spec.run = rec.ID()
	spec.extraEnv = map[string]string{"SIGNALTTY_RUN": rec.ID()}
	var res RunStart
	err := s.startPane(startSteps{
		reserveLocked: func() (*start, *Error) {
			st, err := s.reserveNewLocked(spec)
			if err == nil {
				if err = s.runs.Admit(); err != nil {
					s.abandonLocked(st)
				}
			}
			return st, err
		},
		beforeCommitLocked: func(*start) { s.runs.Launched() },
		committedLocked: func(st *start) {
			pn := st.p
			onDeadline := func() {
				s.terminate(context.Background(), []*pane{pn}, unix.SIGHUP, pty.DefaultGrace, CauseDeadline)
			}
			rs.applyLocked(s.runs.Commit(rec, pn.id, pn.tab, pn.workspace, st.proc.Pid(), onDeadline))
			res = s.runs.Start(rec, false)
			s.access.ownRunLocked(res) // authz.go
			pn.observers = append(pn.observers, runObserver{rec})
			st.inst.wantTail = true
			st.inst.tailRows, st.inst.tailBytes = rec.TailBounds()
		},
	})
	if err != nil {
		return RunStart{}, err
	}
	s.log.Info("run started", "run", res.Run, "pane", res.Pane)
	return res, nil
}

// runObserver makes a run follow its pane: the pane terminating is the run
// terminating (first cause wins), the pane exiting completes it from the
// leader's wait status.
type runObserver struct{ rec *runs.Record }

func (o runObserver) paneChanged(s *Service, p *pane, from paneState, c change) {
	rs := s.Runs()
	switch c.to {
	case stateTerminating:
		rs.applyLocked(s.runs.Terminating(o.rec, c.cause))
	case stateExited:
		rs.applyLocked(s.runs.Complete(o.rec, c.exit.status, c.exit.output))
		s.runs.Wake(o.rec)
	}
}

// applyLocked publishes what the run table did and removes the panes
// of evicted records (run.remove_panes) after this critical section: the
// pane may be exiting in it.
func (rs Runs) applyLocked(c runs.Changes) {
	s := rs.s
	for _, e := range c.Events {
		s.emitLocked(e)
	}
	for _, id := range c.RemovePanes {
		if p := s.panes[id]; p != nil {
			go s.removeRunPane(p)
		}
	}
}

// expire evicts the records whose retain_ms passed; s.mu is not held
// (a timer calls it).
func (rs Runs) expire() {
	s := rs.s
	s.mu.Lock()
	defer s.mu.Unlock()
	rs.applyLocked(s.runs.Evict())
}

// Get returns a run's record (Run.Get).
func (rs Runs) Get(id string, withOutput bool) (Run, error) {
	s := rs.s
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.runs.Lookup(id)
	if err != nil {
		return Run{}, err
	}
	return rec.Snapshot(s.source, withOutput), nil
}

// Wait waits until a run completes (Run.Wait). timeout < 0 waits without
// limit, 0 only checks. A wait never acts on the run.
func (rs Runs) Wait(ctx context.Context, id string, timeout time.Duration, withOutput bool) (Run, error) {
	s := rs.s
	s.mu.Lock()
	rec, err := s.runs.Lookup(id)
	s.mu.Unlock()
	if err != nil {
		return Run{}, err
	}
	var expire <-chan time.Time
	if timeout >= 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expire = t.C
	}
	select {
	case <-rec.Done():
	default:
		select {
		case <-rec.Done():
		case <-expire:
		case <-ctx.Done():
			return Run{}, newError(errcode.CodeCancelled, map[string]any{"run": id}, "wait cancelled; run %s keeps running", id)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := rec.Snapshot(s.source, withOutput)
	if snap.State != RunStateCompleted {
		return Run{}, newError(errcode.TimeoutWait, map[string]any{"run": id, "state": snap.State}, "run %s is still %s", id, snap.State)
	}
	return snap, nil
}

// List lists retained runs in id order without output (Run.List).
func (rs Runs) List(paneID, key, after string, limit int) ([]Run, string, error) {
	return rs.ListFor(OwnerPrincipal, paneID, key, after, limit)
}

// ListFor is List as caller sees it: only runs it may read, and
// with key only its own key's run (docs/security.md).
func (rs Runs) ListFor(caller Principal, paneID, key, after string, limit int) ([]Run, string, error) {
	s := rs.s
	s.mu.Lock()
	defer s.mu.Unlock()
	out, next, err := s.runs.List(paneID, key, caller.ID, after, limit, func(id string) bool {
		return s.access.allowedLocked(caller, RightRead, "run:"+id)
	})
	if err != nil {
		return nil, "", err
	}
	return out, next, nil
}

// Cancel stops a run (Run.Cancel) and returns its completed record; a
// completed run's record is returned unchanged.
func (rs Runs) Cancel(ctx context.Context, id, signal string, grace time.Duration) (Run, error) {
	s := rs.s
	sig, err := request.ParseStop(signal, grace)
	if err != nil {
		return Run{}, err
	}
	s.mu.Lock()
	rec, err := s.runs.Lookup(id)
	if err != nil {
		s.mu.Unlock()
		return Run{}, err
	}
	if rec.Completed() {
		defer s.mu.Unlock()
		return rec.Snapshot(s.source, true), nil
	}
	p := s.panes[rec.PaneID()] // a run not completed has its pane
	s.mu.Unlock()
	if err := s.terminate(ctx, []*pane{p}, sig, grace, CauseCancel); err != nil {
		if err.Code == errcode.TimeoutTerminate {
			err.Data["panes"] = []string{p.id}
		}
		return Run{}, err
	}
	select {
	case <-rec.Done():
	case <-ctx.Done():
		return Run{}, newError(errcode.CodeCancelled, nil, "request cancelled")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return rec.Snapshot(s.source, true), nil
}

// Config returns the run limits.
func (rs Runs) Config() RunConfig {
	s := rs.s
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runs.Config()
}

// SetConfig changes run limits (nil fields stay) and applies them at
// once. Errors: invalid_params.<field> (range; runs.CheckConfig).
func (rs Runs) SetConfig(maxActive, retainCount *int, retainMs, retainBytes *int64) (RunConfig, error) {
	s := rs.s
	if err := runs.CheckConfig(maxActive, retainCount, retainMs, retainBytes); err != nil {
		return RunConfig{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cfg, c := s.runs.SetConfig(maxActive, retainCount, retainMs, retainBytes)
	rs.applyLocked(c)
	return cfg, nil
}

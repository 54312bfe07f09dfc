package service

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/signaltty/signaltty/pty"
	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/events"
	"github.com/signaltty/signaltty/service/request"
	"golang.org/x/sys/unix"
)

// Runs follow the run/wait contract, docs/run-wait.md: a run is a command
// the daemon starts as the leader of a new pane; its result comes only from
// the daemon's wait on that leader.

// Run states and outcomes (docs/run-wait.md, "States" and "Outcomes and status").
const (
	RunStateRunning     = "running"
	RunStateTerminating = "terminating"
	RunStateCompleted   = "completed"

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

// Principal is who a connection acts as. Until grants exist every peer
// with the daemon's uid is the owner.
const Owner = "owner"

// RunRequest is the input of StartRun (docs/run-wait.md, "Start").
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

// RunStart is the result of StartRun.
type RunStart struct {
	Run, Source, Key, Pane, Tab, Workspace, Principal string
	Pid                                               int
	Reused                                            bool
}

// RunOutput is the output tail of a completed run (docs/run-wait.md, "Output tail").
type RunOutput struct {
	Screen             string
	Epoch, Offset      int64
	Cols, Rows         int
	Oldest, Start, End int64
	Complete           bool
	Lines              []string
	bytes              int // line bytes, for retain_bytes
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
	Output                                           *RunOutput // nil unless completed
}

// RunConfig holds the run limits (docs/run-wait.md, "Retention").
type RunConfig struct {
	MaxActive   int   // 1..4096: runs not yet completed
	RetainCount int   // 0..65536: completed records kept
	RetainMs    int64 // 0..604800000: how long a completed record is kept
	RetainBytes int64 // 0..1073741824: total retained output line bytes
	// RemovePanes: a run's pane is removed when its record is evicted,
	// if it has exited by then (docs/workspaces.md, "Run tabs").
	RemovePanes bool
}

// DefaultRunConfig is the default limits.
var DefaultRunConfig = RunConfig{MaxActive: 64, RetainCount: 256, RetainMs: 3600000, RetainBytes: 16 << 20}

type keyRef struct{ principal, key string }

// run is a run record; s.mu guards it.
type run struct {
	n                  int64
	id, key, principal string
	digest             []byte
	pane               *pane
	paneID, tab, ws    string
	pid                int
	shell              bool
	state              string
	outcome, cause     string
	signal             string
	exitCode           *int
	status             int
	outputRows         int
	outputBytes        int
	startedAt          time.Time
	completedAt        time.Time
	duration           time.Duration
	output             *RunOutput
	done               chan struct{} // closed at completion
	deadlineAfter      time.Duration // 0: none
	deadline           *time.Timer
	expiry             *time.Timer
}

// preparing is a start in progress for a key; others with the key join it.
type preparing struct {
	digest []byte
	done   chan struct{}
	result RunStart
	err    error
}

// runState is the run bookkeeping of a Service; s.mu guards it.
type runState struct {
	cfg       RunConfig
	hmacKey   []byte
	next      int64
	runs      map[string]*run
	order     []*run // by id
	keys      map[keyRef]*run
	preparing map[keyRef]*preparing
	reserved  int // starts that hold a reservation (counted against max_active)
	// testBarrier, when set (test builds only, testhooks.go), is called at
	// the start barrier: phase "before" and "after".
	testBarrier func(key, phase string)
	// completed are the completed records in the order they completed
	// (so oldest completedAt first: completion reads the clock under
	// s.mu), holding completedBytes of output: evictRuns drops from the
	// front without sorting.
	completed      []*run
	completedBytes int64

	// notRuns are the ids taken from next that are not runs: starts in
	// progress and starts that failed (run_ids.go); lookupRun calls them
	// unknown, never expired.
	notRuns runIDs
	// ids reserves run ids durably in the state directory (run_ids.go).
	ids idLease
	// started counts the runs that started (committed) since start.
	started int64
}

func newRunState() runState {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic(err)
	}
	return runState{cfg: DefaultRunConfig, hmacKey: k, runs: map[string]*run{}, keys: map[keyRef]*run{},
		preparing: map[keyRef]*preparing{}, ids: newIDLease()}
}

// CheckSource fails with conflict.source unless src is "" or this daemon's
// event source: run ids and keys die with a daemon, so a client that kept
// them across a restart learns so instead of reaching another run.
func (s *Service) CheckSource(src string) *Error {
	if src == "" || src == s.source {
		return nil
	}
	return newError(errcode.ConflictSource, map[string]any{"source": s.source},
		"this daemon's source is %s, not %s: it restarted, and the earlier run's fate is unknown", s.source, src)
}

// grantSet is grants as the digest compares them: "right:scope" sorted
// without repeats; nil is DefaultPaneGrants (leaving grants out equals
// giving the default), an empty list no grants.
func grantSet(grants []Grant) []string {
	if grants == nil {
		grants = DefaultPaneGrants
	}
	set := make([]string, 0, len(grants))
	for _, g := range grants {
		set = append(set, g.Right+":"+g.Scope)
	}
	slices.Sort(set)
	return slices.Compact(set)
}

// digest is HMAC-SHA-256 under the daemon's secret key of the canonical JSON
// of every parameter after defaults, except source (docs/run-wait.md, "Keys").
func (s *Service) digest(r *RunRequest) []byte {
	canon := map[string]any{"key": r.Key, "axis": r.Axis, "workspace": r.Workspace, "pane": r.Pane,
		"cols": DefaultCols, "rows": DefaultRows, "output_rows": defOutputRows, "output_bytes": defOutputBytes}
	if r.Argv != nil {
		canon["argv"] = r.Argv
	}
	if r.Shell != nil {
		canon["shell"] = *r.Shell
	}
	if r.Name != nil {
		canon["name"] = *r.Name
	}
	// cwd as cleaned, env as a map, env_unset as a set; empty ones equal
	// absent ones (docs/run-wait.md, "Keys").
	if r.Cwd != "" {
		canon["cwd"] = filepath.Clean(r.Cwd)
	}
	if len(r.Env) > 0 {
		canon["env"] = r.Env
	}
	if u := unsetNames(r.EnvUnset); u != nil {
		canon["env_unset"] = u
	}
	canon["grants"] = grantSet(r.Grants)
	if r.Pane != "" {
		delete(canon, "cols")
		delete(canon, "rows")
	}
	if r.Cols != nil {
		canon["cols"] = *r.Cols
	}
	if r.Rows != nil {
		canon["rows"] = *r.Rows
	}
	if r.DeadlineMs != nil {
		canon["deadline_ms"] = *r.DeadlineMs
	}
	if r.OutputRows != nil {
		canon["output_rows"] = *r.OutputRows
	}
	if r.OutputBytes != nil {
		canon["output_bytes"] = *r.OutputBytes
	}
	b, _ := json.Marshal(canon) // map keys are sorted: canonical
	m := hmac.New(sha256.New, s.runs.hmacKey)
	m.Write(b)
	return m.Sum(nil)
}

// StartRun starts a run, or returns the run its key is bound to (Run.Start).
// ctx ending before the start barrier rolls the start back (cancelled);
// after it, the start completes and only the reply is lost.
func (s *Service) StartRun(ctx context.Context, r RunRequest) (RunStart, error) {
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
	dig := s.digest(&r)
	ref := keyRef{r.Principal, r.Key}

	s.mu.Lock()
	for {
		if rec, ok := s.runs.keys[ref]; ok {
			s.mu.Unlock()
			if !hmac.Equal(rec.digest, dig) {
				return RunStart{}, newError(errcode.ConflictRunKey, map[string]any{"run": rec.id},
					"key %s is bound to run %s with different parameters", r.Key, rec.id)
			}
			return s.runStart(rec, true), nil
		}
		prep, ok := s.runs.preparing[ref]
		if !ok {
			break
		}
		s.mu.Unlock()
		select { // join the start in progress
		case <-prep.done:
		case <-ctx.Done():
			return RunStart{}, newError(errcode.CodeCancelled, nil, "request cancelled")
		}
		if hmac.Equal(prep.digest, dig) {
			if prep.err != nil {
				return RunStart{}, prep.err
			}
			res := prep.result
			res.Reused = true
			return res, nil
		}
		s.mu.Lock()
	}
	prep := &preparing{digest: dig, done: make(chan struct{})}
	s.runs.preparing[ref] = prep
	s.mu.Unlock()

	res, serr := s.startRun(ctx, &r, spec, dig)
	s.mu.Lock()
	delete(s.runs.preparing, ref)
	prep.result, prep.err = res, serr
	close(prep.done)
	s.mu.Unlock()
	return res, serr
}

// startRun makes the run's pane through the one start path (start.go) and
// commits the run record in the pane's commit: run.started follows the
// pane's events in the same critical section.
func (s *Service) startRun(ctx context.Context, r *RunRequest, spec spawnSpec, dig []byte) (RunStart, error) {
	s.mu.Lock()
	barrier := s.runs.testBarrier
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
	rec := &run{key: r.Key, principal: r.Principal, digest: dig, shell: r.Shell != nil, state: RunStateRunning,
		outputRows: defOutputRows, outputBytes: defOutputBytes, done: make(chan struct{})}
	if r.OutputRows != nil {
		rec.outputRows = *r.OutputRows
	}
	if r.OutputBytes != nil {
		rec.outputBytes = *r.OutputBytes
	}
	if r.DeadlineMs != nil {
		rec.deadlineAfter = time.Duration(*r.DeadlineMs) * time.Millisecond
	}

	n, err := s.takeRunID()
	if err != nil {
		return RunStart{}, err
	}
	rec.n, rec.id = n, "r"+strconv.FormatInt(n, 10)
	spec.run = rec.id
	s.mu.Lock()
	spec.extraEnv = map[string]string{"SIGNALTTY_RUN": rec.id}
	st, err := s.reserveNew(spec)
	if err == nil {
		if err = s.admitRun(); err != nil {
			s.abandon(st)
		}
	}
	s.mu.Unlock()
	if err != nil {
		if st != nil {
			s.settle(st, err)
		}
		return RunStart{}, err
	}

	s.launch(st)
	s.mu.Lock()
	s.runs.reserved--
	err = s.commit(st)
	if err == nil {
		s.commitRun(rec, st)
	}
	s.mu.Unlock()
	s.settle(st, err)
	if err != nil {
		return RunStart{}, err
	}
	s.log.Info("run started", "run", rec.id, "pane", rec.paneID)
	return s.runStart(rec, false), nil
}

// admitRun counts a reservation against max_active (docs/run-wait.md,
// "Limits"): runs not completed plus starts reserved; s.mu is held.
func (s *Service) admitRun() *Error {
	active := s.runs.reserved
	for _, o := range s.runs.order {
		if o.state != RunStateCompleted {
			active++
		}
	}
	if active >= s.runs.cfg.MaxActive {
		return newError(errcode.UnavailableRunLimit, map[string]any{"max_active": s.runs.cfg.MaxActive},
			"%d runs are not completed yet (max_active)", s.runs.cfg.MaxActive)
	}
	s.runs.reserved++
	return nil
}

// commitRun binds rec to the pane of a committed start and publishes
// run.started; s.mu is held. From here on the run follows its pane's
// transitions (paneChanged).
func (s *Service) commitRun(rec *run, st *start) {
	p := st.p
	rec.pane, rec.paneID, rec.tab, rec.ws, rec.pid = p, p.id, p.tab, p.workspace, st.proc.Pid()
	rec.startedAt = time.Now()
	s.runs.notRuns.remove(rec.n)
	s.runs.started++
	s.runs.runs[rec.id] = rec
	s.runs.order = append(s.runs.order, rec)
	s.runs.keys[keyRef{rec.principal, rec.key}] = rec
	s.authz.ownRun(rec) // authz.go
	p.observers = append(p.observers, rec)
	st.inst.wantTail, st.inst.tailRows, st.inst.tailBytes = true, rec.outputRows, rec.outputBytes
	s.emit(events.RunStarted{Run: rec.id, Pane: p.id})
	if rec.deadlineAfter > 0 {
		rec.deadline = time.AfterFunc(rec.deadlineAfter, func() {
			s.terminate(context.Background(), []*pane{p}, unix.SIGHUP, pty.DefaultGrace, CauseDeadline)
		})
	}
}

// paneChanged makes a run follow its pane: the pane terminating is the
// run terminating (first cause wins), the pane exiting completes it from
// the leader's wait status; s.mu is held.
func (rec *run) paneChanged(s *Service, p *pane, from paneState, c change) {
	switch c.to {
	case stateTerminating:
		if rec.state != RunStateRunning {
			return
		}
		rec.state, rec.cause = RunStateTerminating, c.cause
		if rec.deadline != nil {
			rec.deadline.Stop()
		}
		s.emit(events.RunTerminating{Run: rec.id, Cause: c.cause})
	case stateExited:
		s.completeRun(rec, c.exit.status, c.exit.output)
	}
}

func (s *Service) runStart(rec *run, reused bool) RunStart {
	s.mu.Lock()
	defer s.mu.Unlock()
	return RunStart{Run: rec.id, Source: s.source, Key: rec.key, Pane: rec.paneID, Tab: rec.tab, Workspace: rec.ws,
		Principal: rec.principal, Pid: rec.pid, Reused: reused}
}

// lookupRun finds a retained run; s.mu is held.
func (s *Service) lookupRun(id string) (*run, *Error) {
	if rec, ok := s.runs.runs[id]; ok {
		return rec, nil
	}
	reason := "unknown" // never a run, or one of an earlier daemon (below base)
	if n, err := strconv.ParseInt(strings.TrimPrefix(id, "r"), 10, 64); err == nil && strings.HasPrefix(id, "r") &&
		n >= s.runs.ids.base && n < s.runs.next && "r"+strconv.FormatInt(n, 10) == id && !s.runs.notRuns.has(n) {
		reason = "expired" // a run whose record was evicted
	}
	return nil, newError(errcode.NotFoundRun, map[string]any{"run": id, "reason": reason}, "no run %s (%s)", id, reason)
}

// snapshot copies a run record; output only when withOutput. s.mu is held.
func (rec *run) snapshot(source string, withOutput bool) Run {
	out := Run{ID: rec.id, Source: source, Key: rec.key, Pane: rec.paneID, Tab: rec.tab, Workspace: rec.ws,
		Principal: rec.principal, Pid: rec.pid, Shell: rec.shell, State: rec.state, Outcome: rec.outcome,
		ExitCode: rec.exitCode, Signal: rec.signal, Cause: rec.cause, StartedAt: rec.startedAt,
		CompletedAt: rec.completedAt, Duration: rec.duration}
	if rec.state == RunStateCompleted {
		st := rec.status
		out.Status = &st
		if withOutput {
			out.Output = rec.output
		}
	}
	return out
}

// GetRun returns a run's record (Run.Get).
func (s *Service) GetRun(id string, withOutput bool) (Run, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.lookupRun(id)
	if err != nil {
		return Run{}, err
	}
	return rec.snapshot(s.source, withOutput), nil
}

// WaitRun waits until a run completes (Run.Wait). timeout < 0 waits without
// limit, 0 only checks. A wait never acts on the run.
func (s *Service) WaitRun(ctx context.Context, id string, timeout time.Duration, withOutput bool) (Run, error) {
	s.mu.Lock()
	rec, err := s.lookupRun(id)
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
	case <-rec.done:
	default:
		select {
		case <-rec.done:
		case <-expire:
		case <-ctx.Done():
			return Run{}, newError(errcode.CodeCancelled, map[string]any{"run": id}, "wait cancelled; run %s keeps running", id)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if rec.state != RunStateCompleted {
		return Run{}, newError(errcode.TimeoutWait, map[string]any{"run": id, "state": rec.state}, "run %s is still %s", id, rec.state)
	}
	return rec.snapshot(s.source, withOutput), nil
}

// RunDone returns a channel closed when the run completes.
func (s *Service) RunDone(id string) (<-chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.lookupRun(id)
	if err != nil {
		return nil, err
	}
	return rec.done, nil
}

// ListRuns lists retained runs in id order without output (Run.List).
func (s *Service) ListRuns(paneID, key, after string, limit int) ([]Run, string, error) {
	return s.ListRunsFor(OwnerPrincipal, paneID, key, after, limit)
}

// ListRunsFor is ListRuns as caller sees it: only runs it may read, and
// with key only its own key's run (docs/security.md).
func (s *Service) ListRunsFor(caller Principal, paneID, key, after string, limit int) ([]Run, string, error) {
	if caller.ID == "" {
		caller = OwnerPrincipal
	}
	if limit == 0 {
		limit = 256
	}
	if limit < 1 || limit > 1024 {
		return nil, "", invalid("limit", "range", "limit must be 1..1024")
	}
	afterN := int64(-1)
	if after != "" {
		n, err := strconv.ParseInt(strings.TrimPrefix(after, "r"), 10, 64)
		if err != nil || !strings.HasPrefix(after, "r") {
			return nil, "", invalid("after", "syntax", "after must be a run id such as r7")
		}
		afterN = n
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []Run{} // a removed pane's runs are still listed: no pane lookup
	next := ""
	for _, rec := range s.runs.order {
		if rec.n <= afterN || (paneID != "" && rec.paneID != paneID) || (key != "" && (rec.key != key || rec.principal != caller.ID)) ||
			!s.allowedLocked(caller, RightRead, "run:"+rec.id) {
			continue
		}
		if len(out) == limit {
			next = out[len(out)-1].ID
			break
		}
		out = append(out, rec.snapshot(s.source, false))
	}
	return out, next, nil
}

// CancelRun stops a run (Run.Cancel) and returns its completed record; a
// completed run's record is returned unchanged.
func (s *Service) CancelRun(ctx context.Context, id, signal string, grace time.Duration) (Run, error) {
	sig, err := request.ParseStop(signal, grace)
	if err != nil {
		return Run{}, err
	}
	s.mu.Lock()
	rec, err := s.lookupRun(id)
	if err != nil {
		s.mu.Unlock()
		return Run{}, err
	}
	if rec.state == RunStateCompleted {
		defer s.mu.Unlock()
		return rec.snapshot(s.source, true), nil
	}
	p := rec.pane
	s.mu.Unlock()
	if err := s.terminate(ctx, []*pane{p}, sig, grace, CauseCancel); err != nil {
		if err.Code == errcode.TimeoutTerminate {
			err.Data["panes"] = []string{p.id}
		}
		return Run{}, err
	}
	select {
	case <-rec.done:
	case <-ctx.Done():
		return Run{}, newError(errcode.CodeCancelled, nil, "request cancelled")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return rec.snapshot(s.source, true), nil
}

// completeRun records a run's result from its leader's wait status; s.mu is
// held; out is the output tail captured after the exit.
func (s *Service) completeRun(rec *run, st pty.ExitStatus, out *RunOutput) {
	if rec.state == RunStateCompleted {
		return
	}
	if rec.deadline != nil {
		rec.deadline.Stop()
	}
	rec.exitCode, rec.signal = st.Code, st.Signal
	switch {
	case rec.state == RunStateTerminating:
		rec.outcome = OutcomeTerminated
		rec.status = 125
		if rec.cause == CauseDeadline {
			rec.status = 124
		}
	case st.Code != nil && *st.Code == 0:
		rec.outcome, rec.status = OutcomeSucceeded, 0
	case st.Code != nil:
		rec.outcome, rec.status = OutcomeFailed, *st.Code
	default:
		rec.outcome, rec.status = OutcomeSignaled, min(128+signalNumber(st.Signal), 255)
	}
	rec.state = RunStateCompleted
	rec.completedAt = time.Now()
	rec.duration = rec.completedAt.Sub(rec.startedAt) // monotonic readings
	rec.output = out
	s.runs.completed = append(s.runs.completed, rec)
	s.runs.completedBytes += rec.keptBytes()
	s.emit(events.RunCompleted{Run: rec.id, Pane: rec.paneID, RunResult: rec.result()})
	s.log.Info("run completed", "run", rec.id, "outcome", rec.outcome, "status", rec.status)
	rec.expiry = time.AfterFunc(time.Duration(s.runs.cfg.RetainMs)*time.Millisecond, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.evictRuns()
	})
	s.evictRuns()
	// Last: a waiter woken earlier would only queue for s.mu behind the
	// work above.
	close(rec.done)
}

// result is what is known of a run's result; s.mu is held.
func (rec *run) result() events.RunResult {
	return events.RunResult{Outcome: rec.outcome, ExitCode: rec.exitCode, Signal: rec.signal, Cause: rec.cause}
}

// evictRuns drops completed records, oldest-completed first, while a
// retention limit is exceeded (docs/run-wait.md, "Retention"); s.mu is held.
func (s *Service) evictRuns() {
	cfg := s.runs.cfg
	now := time.Now()
	for len(s.runs.completed) > 0 {
		r := s.runs.completed[0]
		expired := now.Sub(r.completedAt) >= time.Duration(cfg.RetainMs)*time.Millisecond
		if len(s.runs.completed) <= cfg.RetainCount && s.runs.completedBytes <= cfg.RetainBytes && !expired {
			break
		}
		s.dropRun(r)
	}
}

// keptBytes is the size of a completed record's kept output.
func (rec *run) keptBytes() int64 {
	if rec.output == nil {
		return 0
	}
	return int64(rec.output.bytes)
}

// dropRun evicts a completed record and frees its key; s.mu is held.
func (s *Service) dropRun(r *run) {
	if r.expiry != nil {
		r.expiry.Stop()
	}
	delete(s.runs.runs, r.id)
	if s.runs.keys[keyRef{r.principal, r.key}] == r {
		delete(s.runs.keys, keyRef{r.principal, r.key})
	}
	s.runs.completed = without(s.runs.completed, r)
	s.runs.completedBytes -= r.keptBytes()
	s.runs.order = without(s.runs.order, r)
	s.emit(events.RunExpired{Run: r.id})
	if s.runs.cfg.RemovePanes && r.pane != nil {
		go s.removeRunPane(r.pane) // after this critical section: the pane may be exiting in it
	}
}

// without removes r from rs, in order. The oldest record, the one eviction
// drops, is usually first: then the slice only moves its start.
func without(rs []*run, r *run) []*run {
	if len(rs) > 0 && rs[0] == r {
		rs[0] = nil
		return rs[1:]
	}
	if i := slices.Index(rs, r); i >= 0 {
		return slices.Delete(rs, i, i+1)
	}
	return rs
}

// RunConfig returns the run limits.
func (s *Service) RunConfig() RunConfig {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runs.cfg
}

// SetRunConfig changes run limits (nil fields stay) and applies them at once.
func (s *Service) SetRunConfig(maxActive, retainCount *int, retainMs, retainBytes *int64) (RunConfig, error) {
	if err := checkRunConfig(maxActive, retainCount, retainMs, retainBytes); err != nil {
		return RunConfig{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &s.runs.cfg
	if maxActive != nil {
		c.MaxActive = *maxActive
	}
	if retainCount != nil {
		c.RetainCount = *retainCount
	}
	if retainMs != nil {
		c.RetainMs = *retainMs
		for _, r := range s.runs.order {
			if r.state == RunStateCompleted {
				if r.expiry != nil {
					r.expiry.Stop()
				}
				left := time.Duration(c.RetainMs)*time.Millisecond - time.Since(r.completedAt)
				r.expiry = time.AfterFunc(max(left, 0), func() {
					s.mu.Lock()
					defer s.mu.Unlock()
					s.evictRuns()
				})
			}
		}
	}
	if retainBytes != nil {
		c.RetainBytes = *retainBytes
	}
	s.evictRuns()
	return *c, nil
}

// setRunRemovePanes turns run.remove_panes on or off; records evicted
// from then on follow it.
func (s *Service) setRunRemovePanes(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs.cfg.RemovePanes = on
}

// checkRunConfig checks the run limits SetRunConfig would set (nil: not
// set). Errors: invalid_params.<field> (range).
func checkRunConfig(maxActive, retainCount *int, retainMs, retainBytes *int64) *Error {
	switch {
	case maxActive != nil && (*maxActive < 1 || *maxActive > 4096):
		return invalid("max_active", "range", "max_active must be 1..4096")
	case retainCount != nil && (*retainCount < 0 || *retainCount > 65536):
		return invalid("retain_count", "range", "retain_count must be 0..65536")
	case retainMs != nil && (*retainMs < 0 || *retainMs > 604800000):
		return invalid("retain_ms", "range", "retain_ms must be 0..604800000")
	case retainBytes != nil && (*retainBytes < 0 || *retainBytes > 1<<30):
		return invalid("retain_bytes", "range", "retain_bytes must be 0..1073741824")
	}
	return nil
}

// signalNumber maps "SIGSEGV" to 11.
func signalNumber(name string) int {
	if sig := unix.SignalNum(name); sig != 0 {
		return int(sig)
	}
	return 0
}

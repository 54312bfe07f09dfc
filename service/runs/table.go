package runs

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/signaltty/signaltty/pty"
	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/events"
)

type keyRef struct{ principal, key string }

// Claim is a start in progress for a key; other starts with the key join
// it (Table.Claim) until the Table releases it (Table.Release).
type Claim struct {
	ref    keyRef
	digest []byte
	done   chan struct{}
	result Start
	err    error
}

// Changes is what a Table method did that the caller acts on, under the
// same lock: Events to publish, in order, and RemovePanes, the panes of
// evicted records to remove afterwards when run.remove_panes is on
// (docs/workspaces.md, "Run tabs").
type Changes struct {
	Events      []events.EventData
	RemovePanes []string
}

func (c *Changes) add(o Changes) {
	c.Events = append(c.Events, o.Events...)
	c.RemovePanes = append(c.RemovePanes, o.RemovePanes...)
}

// Table is the run records of one daemon and their bookkeeping. Its
// methods run under the caller's lock unless they say otherwise.
type Table struct {
	source    string
	log       *slog.Logger
	expire    func()
	cfg       Config
	hmacKey   []byte
	next      int64
	runs      map[string]*Record
	order     []*Record // by id
	keys      map[keyRef]*Record
	preparing map[keyRef]*Claim
	reserved  int // starts that hold a reservation (counted against max_active)
	// Barrier, when set (test builds only), is called at the start
	// barrier: phase "before" and "after".
	Barrier func(key, phase string)
	// completed are the completed records in the order they completed
	// (so oldest completedAt first: completion reads the clock under the
	// lock), holding completedBytes of output: Evict drops from the front
	// without sorting.
	completed      []*Record
	completedBytes int64
	// notRuns are the ids taken from next that are not runs: starts in
	// progress and starts that failed; Lookup calls them unknown, never
	// expired.
	notRuns idSet
	ids     idLease
	started int64 // runs that started (committed) since the table was made
}

// NewTable is an empty table with the default limits and a new secret key
// for digests. source is the daemon's event source; expire is called on a
// timer's goroutine, without the lock, when a completed record's
// retain_ms has passed: it takes the lock, calls Evict and acts on its
// Changes.
func NewTable(source string, log *slog.Logger, expire func()) *Table {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic(err)
	}
	return &Table{source: source, log: log, expire: expire, cfg: DefaultConfig, hmacKey: k,
		runs: map[string]*Record{}, keys: map[keyRef]*Record{}, preparing: map[keyRef]*Claim{}, ids: newIDLease()}
}

// CheckSource fails with conflict.source unless src is "" or this daemon's
// event source: run ids and keys die with a daemon, so a client that kept
// them across a restart learns so instead of reaching another run
// (docs/run-wait.md, "Run ids and source"). It needs no lock.
func (t *Table) CheckSource(src string) *errcode.Error {
	if src == "" || src == t.source {
		return nil
	}
	return errcode.New(errcode.ConflictSource, map[string]any{"source": t.source},
		"this daemon's source is %s, not %s: it restarted, and the earlier run's fate is unknown", t.source, src)
}

// Claim binds the key of principal to the caller's start, or answers from
// the run the key is bound to (docs/run-wait.md, "Keys"). It is called
// without mu, the lock of the table, and waits without it for a start in
// progress with the key. With a Claim the caller starts the run and then
// calls Release; without one the Start (Reused) or the error is the
// answer: conflict.run_key (the key's run has another digest), cancelled
// (ctx ended while waiting), or the joined start's error.
func (t *Table) Claim(ctx context.Context, mu sync.Locker, principal, key string, digest []byte) (*Claim, Start, error) {
	ref := keyRef{principal, key}
	mu.Lock()
	for {
		if rec, ok := t.keys[ref]; ok {
			defer mu.Unlock()
			if !hmac.Equal(rec.digest, digest) {
				return nil, Start{}, errcode.New(errcode.ConflictRunKey, map[string]any{"run": rec.id},
					"key %s is bound to run %s with different parameters", key, rec.id)
			}
			return nil, t.Start(rec, true), nil
		}
		prep, ok := t.preparing[ref]
		if !ok {
			break
		}
		mu.Unlock()
		select { // join the start in progress
		case <-prep.done:
		case <-ctx.Done():
			return nil, Start{}, errcode.Cancelled(nil, "request cancelled")
		}
		if hmac.Equal(prep.digest, digest) {
			if prep.err != nil {
				return nil, Start{}, prep.err
			}
			res := prep.result
			res.Reused = true
			return nil, res, nil
		}
		mu.Lock()
	}
	c := &Claim{ref: ref, digest: digest, done: make(chan struct{})}
	t.preparing[ref] = c
	mu.Unlock()
	return c, Start{}, nil
}

// Release ends a claim with its start's result; starts that joined it
// answer from that result.
func (t *Table) Release(c *Claim, res Start, err error) {
	delete(t.preparing, c.ref)
	c.result, c.err = res, err
	close(c.done)
}

// Admit counts a reservation against max_active (docs/run-wait.md,
// "Retention"): runs not completed plus starts reserved. Errors:
// unavailable.run_limit.
func (t *Table) Admit() *errcode.Error {
	active := t.reserved
	for _, o := range t.order {
		if o.state != StateCompleted {
			active++
		}
	}
	if active >= t.cfg.MaxActive {
		return errcode.New(errcode.UnavailableRunLimit, map[string]any{"max_active": t.cfg.MaxActive},
			"%d runs are not completed yet (max_active)", t.cfg.MaxActive)
	}
	t.reserved++
	return nil
}

// Launched gives back an admitted start's reservation once its process was
// launched, whether or not the start then commits.
func (t *Table) Launched() { t.reserved-- }

// Commit makes rec a run on the pane paneID (in tab of workspace ws, led by
// pid) that committed in this critical section: from here on the caller
// makes the run follow its pane (Terminating, Complete). onDeadline is
// called on a timer's goroutine, without the lock, when the run's
// deadline passes.
func (t *Table) Commit(rec *Record, paneID, tab, ws string, pid int, onDeadline func()) Changes {
	rec.paneID, rec.tab, rec.ws, rec.pid = paneID, tab, ws, pid
	rec.startedAt = time.Now()
	t.notRuns.remove(rec.n)
	t.started++
	t.runs[rec.id] = rec
	t.order = append(t.order, rec)
	t.keys[keyRef{rec.principal, rec.key}] = rec
	if rec.deadlineAfter > 0 {
		rec.deadline = time.AfterFunc(rec.deadlineAfter, onDeadline)
	}
	return Changes{Events: []events.EventData{events.RunStarted{Run: rec.id, Pane: paneID}}}
}

// Start is rec as a start's result.
func (t *Table) Start(rec *Record, reused bool) Start {
	return Start{Run: rec.id, Source: t.source, Key: rec.key, Pane: rec.paneID, Tab: rec.tab, Workspace: rec.ws,
		Principal: rec.principal, Pid: rec.pid, Reused: reused}
}

// Source is the daemon's event source the table's snapshots carry.
func (t *Table) Source() string { return t.source }

// Lookup finds a retained run. Errors: not_found.run, reason "expired"
// for a run of this daemon whose record was evicted, else "unknown".
func (t *Table) Lookup(id string) (*Record, *errcode.Error) {
	if rec, ok := t.runs[id]; ok {
		return rec, nil
	}
	reason := "unknown" // never a run, or one of an earlier daemon (below base)
	if n, err := strconv.ParseInt(strings.TrimPrefix(id, "r"), 10, 64); err == nil && strings.HasPrefix(id, "r") &&
		n >= t.ids.base && n < t.next && "r"+strconv.FormatInt(n, 10) == id && !t.notRuns.has(n) {
		reason = "expired" // a run whose record was evicted
	}
	return nil, errcode.New(errcode.NotFoundRun, map[string]any{"run": id, "reason": reason}, "no run %s (%s)", id, reason)
}

// PaneOf is the pane of a retained run, "" if there is none.
func (t *Table) PaneOf(id string) string {
	if rec, ok := t.runs[id]; ok {
		return rec.paneID
	}
	return ""
}

// List is the retained runs in id order without output, after the run
// id after ("": from the first), at most limit (0: 256), of pane paneID
// and with key of principal (each "": any), that may read says principal
// may read; next is the last run listed when more follow. Errors:
// invalid_params.limit (range, 1..1024), invalid_params.after (syntax).
func (t *Table) List(paneID, key, principal, after string, limit int, mayRead func(id string) bool) (out []Run, next string, err *errcode.Error) {
	if limit == 0 {
		limit = 256
	}
	if limit < 1 || limit > 1024 {
		return nil, "", errcode.Invalid("limit", "range", "limit must be 1..1024")
	}
	afterN := int64(-1)
	if after != "" {
		n, err := strconv.ParseInt(strings.TrimPrefix(after, "r"), 10, 64)
		if err != nil || !strings.HasPrefix(after, "r") {
			return nil, "", errcode.Invalid("after", "syntax", "after must be a run id such as r7")
		}
		afterN = n
	}
	out = []Run{} // a removed pane's runs are still listed: no pane lookup
	for _, rec := range t.order {
		if rec.n <= afterN || (paneID != "" && rec.paneID != paneID) || (key != "" && (rec.key != key || rec.principal != principal)) ||
			!mayRead(rec.id) {
			continue
		}
		if len(out) == limit {
			next = out[len(out)-1].ID
			break
		}
		out = append(out, rec.Snapshot(t.source, false))
	}
	return out, next, nil
}

// Counts is the records retained, the runs not completed, and the runs
// started since the table was made.
func (t *Table) Counts() (retained, active int, started int64) {
	for _, r := range t.order {
		if r.state != StateCompleted {
			active++
		}
	}
	return len(t.order), active, t.started
}

// Entities lists the retained runs as an event snapshot names them
// (docs/events.md): run, pane, state and what is known of the result.
func (t *Table) Entities() []any {
	out := []any{}
	for _, r := range t.order {
		out = append(out, struct {
			Run   string `json:"run"`
			Pane  string `json:"pane"`
			State string `json:"state"`
			events.RunResult
		}{r.id, r.paneID, r.state, r.Result()})
	}
	return out
}

// Terminating records that a running run's pane began terminating with
// cause; the first cause wins.
func (t *Table) Terminating(rec *Record, cause string) Changes {
	if rec.state != StateRunning {
		return Changes{}
	}
	rec.state, rec.cause = StateTerminating, cause
	if rec.deadline != nil {
		rec.deadline.Stop()
	}
	return Changes{Events: []events.EventData{events.RunTerminating{Run: rec.id, Cause: cause}}}
}

// Complete records a run's result from its leader's wait status st and
// the output tail out captured after the exit, then evicts what the limits
// no longer allow. The caller publishes the changes, then calls Wake.
func (t *Table) Complete(rec *Record, st pty.ExitStatus, out *Output) Changes {
	if rec.state == StateCompleted {
		return Changes{}
	}
	rec.finish(st, out)
	t.completed = append(t.completed, rec)
	t.completedBytes += rec.keptBytes()
	c := Changes{Events: []events.EventData{events.RunCompleted{Run: rec.id, Pane: rec.paneID, RunResult: rec.Result()}}}
	t.log.Info("run completed", "run", rec.id, "outcome", rec.outcome, "status", rec.status)
	rec.expiry = time.AfterFunc(time.Duration(t.cfg.RetainMs)*time.Millisecond, t.expire)
	c.add(t.Evict())
	return c
}

// Wake wakes the waiters of a completed run: last, once Complete's
// changes are published, since a waiter woken earlier would only queue
// for the lock behind that work.
func (t *Table) Wake(rec *Record) {
	if rec.state == StateCompleted {
		select {
		case <-rec.done:
		default:
			close(rec.done)
		}
	}
}

// Evict drops completed records, oldest-completed first, while a
// retention limit is exceeded (docs/run-wait.md, "Retention").
func (t *Table) Evict() Changes {
	var c Changes
	now := time.Now()
	for len(t.completed) > 0 {
		r := t.completed[0]
		expired := now.Sub(r.completedAt) >= time.Duration(t.cfg.RetainMs)*time.Millisecond
		if len(t.completed) <= t.cfg.RetainCount && t.completedBytes <= t.cfg.RetainBytes && !expired {
			break
		}
		c.add(t.drop(r))
	}
	return c
}

// drop evicts a completed record and frees its key.
func (t *Table) drop(r *Record) Changes {
	if r.expiry != nil {
		r.expiry.Stop()
	}
	delete(t.runs, r.id)
	if t.keys[keyRef{r.principal, r.key}] == r {
		delete(t.keys, keyRef{r.principal, r.key})
	}
	t.completed = without(t.completed, r)
	t.completedBytes -= r.keptBytes()
	t.order = without(t.order, r)
	c := Changes{Events: []events.EventData{events.RunExpired{Run: r.id}}}
	if t.cfg.RemovePanes && r.paneID != "" {
		c.RemovePanes = []string{r.paneID}
	}
	return c
}

// without removes r from rs, in order. The oldest record, the one eviction
// drops, is usually first: then the slice only moves its start.
func without(rs []*Record, r *Record) []*Record {
	if len(rs) > 0 && rs[0] == r {
		rs[0] = nil
		return rs[1:]
	}
	if i := slices.Index(rs, r); i >= 0 {
		return slices.Delete(rs, i, i+1)
	}
	return rs
}

// Config is the run limits.
func (t *Table) Config() Config { return t.cfg }

// SetConfig changes run limits (nil fields stay; CheckConfig checked them)
// and applies them at once: completed records' expiry is rearmed for the
// new retain_ms and what the limits no longer allow is evicted.
func (t *Table) SetConfig(maxActive, retainCount *int, retainMs, retainBytes *int64) (Config, Changes) {
	c := &t.cfg
	if maxActive != nil {
		c.MaxActive = *maxActive
	}
	if retainCount != nil {
		c.RetainCount = *retainCount
	}
	if retainMs != nil {
		c.RetainMs = *retainMs
		for _, r := range t.order {
			if r.state == StateCompleted {
				if r.expiry != nil {
					r.expiry.Stop()
				}
				left := time.Duration(c.RetainMs)*time.Millisecond - time.Since(r.completedAt)
				r.expiry = time.AfterFunc(max(left, 0), t.expire)
			}
		}
	}
	if retainBytes != nil {
		c.RetainBytes = *retainBytes
	}
	return *c, t.Evict()
}

// SetRemovePanes turns run.remove_panes on or off; records evicted from
// then on follow it.
func (t *Table) SetRemovePanes(on bool) { t.cfg.RemovePanes = on }

package persist

import (
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/request"
	"github.com/signaltty/signaltty/snapshot"
	"github.com/signaltty/signaltty/term"
)

// Saver decides when the model is saved and writes it (docs/persistence.md,
// "When"): structural changes mark it dirty and a goroutine writes at most
// once per SaveDebounce, every save interval even without changes, and
// every output interval when a terminal's rows changed; explicit saves
// (Server.Save, shutdown, SIGTERM, logind) write at once. It is guarded by
// the model's lock (the one passed to NewSaver) except where a method says
// otherwise; it reaches the model only through its Model.
type Saver struct {
	mu    sync.Locker // the model's lock
	log   *slog.Logger
	model Model

	store    *snapshot.Store // nil: persistence off
	periodic time.Duration   // 0: no periodic saves
	dirty    bool
	frozen   bool // a shutdown save was written: nothing may overwrite it
	kick     chan struct{}
	reconf   chan struct{} // the periodic interval changed
	quit     chan struct{}
	done     chan struct{}
	saveMu   sync.Mutex // serializes export+write
	lastAt   time.Time  // the last save that succeeded
	lastTry  time.Time  // the last save tried (debounced saves keep SaveDebounce from it)
	last     snapshot.SaveResult
	lastErr  error
	restored string // what startup restored from, for status
	// runtimeRestore is the last Server.RestoreSnapshot, for status.
	runtimeRestore RuntimeRestore

	// outputEvery is how often panes whose rows changed are saved (0:
	// never). tails are the terminals' change counters when their tails
	// were last saved; saveMu guards them.
	outputEvery time.Duration
	tails       Tails
	exported    Exports // the panes as the last save exported them
}

// Model is what a Saver needs of the model it saves. The functions ending
// in Locked are called with the model's lock held.
type Model struct {
	// CaptureLocked exports the model as a snapshot recording reason, with
	// the terminals of its panes by pane id; kept is the export of the
	// last save, for the panes that did not change. With freeze, every
	// live pane is first marked as saved for a shutdown.
	CaptureLocked func(reason string, freeze bool, kept *Exports) (*snapshot.Snapshot, map[string]*term.Terminal)
	// ThawLocked clears the shutdown marks CaptureLocked set with freeze.
	ThawLocked func()
	// TerminalsLocked yields the panes' terminals until yield returns false.
	TerminalsLocked func(yield func(*term.Terminal) bool)
	// Saved is called after each write, outside the lock.
	Saved func()
}

// NewSaver returns a Saver of the model guarded by mu, off until Start.
func NewSaver(mu sync.Locker, log *slog.Logger, m Model) *Saver {
	return &Saver{mu: mu, log: log, model: m}
}

// RuntimeRestore describes the last Server.RestoreSnapshot of this daemon.
type RuntimeRestore struct {
	From      string    // "snapshots/<name>"; "" when none happened
	At        time.Time // when
	Kept      string    // the name of the copy of the state it replaced
	TailsKept bool      // the copy had its panes' rows
}

// Status describes persistence for Server.GetStatus.
type Status struct {
	Enabled   bool
	Dir       string
	Dirty     bool
	Frozen    bool
	LastSave  time.Time // zero if none yet
	LastBytes int64
	LastTook  time.Duration
	LastError string
	Restored  string // what startup restored from
	// Runtime is the last snapshot restore while running (From "" if none).
	Runtime RuntimeRestore
}

// Status returns the persistence state.
func (sv *Saver) Status() Status {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	st := Status{Enabled: sv.store != nil, Dirty: sv.dirty, Frozen: sv.frozen, LastSave: sv.lastAt,
		LastBytes: sv.last.Bytes, LastTook: sv.last.Duration, Restored: sv.restored, Runtime: sv.runtimeRestore}
	if sv.store != nil {
		st.Dir = sv.store.Dir()
	}
	if sv.lastErr != nil {
		st.LastError = sv.lastErr.Error()
	}
	return st
}

// SetRestoredLocked records what startup restored from, for Status.
func (sv *Saver) SetRestoredLocked(from string) { sv.restored = from }

// SetRuntimeRestoreLocked records a restore while running, for Status.
func (sv *Saver) SetRuntimeRestoreLocked(r RuntimeRestore) { sv.runtimeRestore = r }

// Store is the store saves go to (nil: persistence off).
func (sv *Saver) Store() *snapshot.Store {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.store
}

// MarkDirtyLocked records that the model changed.
func (sv *Saver) MarkDirtyLocked() {
	if sv.store == nil || sv.dirty {
		return
	}
	sv.dirty = true
	sv.kickLocked()
}

func (sv *Saver) kickLocked() {
	select {
	case sv.kick <- struct{}{}:
	default:
	}
}

// Start saves to store from now on: debounced after changes and, when
// periodic > 0, every periodic. Call it after the model was restored.
func (sv *Saver) Start(store *snapshot.Store, periodic time.Duration) {
	sv.mu.Lock()
	sv.store, sv.periodic = store, periodic
	sv.kick, sv.reconf = make(chan struct{}, 1), make(chan struct{}, 1)
	sv.quit, sv.done = make(chan struct{}), make(chan struct{})
	sv.mu.Unlock()
	go sv.run()
}

// Stop ends the saving goroutine (no final save: the caller decides).
func (sv *Saver) Stop() {
	sv.mu.Lock()
	if sv.quit == nil {
		sv.mu.Unlock()
		return
	}
	quit, done := sv.quit, sv.done
	sv.quit = nil
	sv.mu.Unlock()
	close(quit)
	<-done
}

// run is the saving goroutine.
func (sv *Saver) run() {
	sv.mu.Lock()
	kick, reconf, quit, done, outEvery := sv.kick, sv.reconf, sv.quit, sv.done, sv.outputEvery
	sv.mu.Unlock()
	defer close(done)
	var ticker *time.Ticker
	var tick <-chan time.Time
	setPeriodic := func() {
		if ticker != nil {
			ticker.Stop()
			ticker, tick = nil, nil
		}
		sv.mu.Lock()
		d := sv.periodic
		sv.mu.Unlock()
		if d > 0 {
			ticker = time.NewTicker(d)
			tick = ticker.C
		}
	}
	setPeriodic()
	outTick, stopOut := outputTicker(outEvery)
	defer func() {
		if ticker != nil {
			ticker.Stop()
		}
		stopOut()
	}()
	for {
		reason := "debounce"
		select {
		case <-quit:
			return
		case <-reconf:
			setPeriodic()
			continue
		case <-kick:
		case <-tick:
			reason = "periodic"
		case <-outTick:
			sv.saveOutput()
			continue
		}
		sv.mu.Lock()
		wait := SaveDebounce - time.Since(sv.lastTry)
		sv.mu.Unlock()
		if wait > 0 && reason == "debounce" {
			select {
			case <-quit:
				return
			case <-time.After(wait):
			}
		}
		sv.mu.Lock()
		dirty := sv.dirty
		sv.mu.Unlock()
		if dirty || reason == "periodic" {
			if _, err := sv.Save(reason); err != nil {
				sv.log.Error("saving the snapshot failed; will retry", "err", err)
			}
		}
	}
}

// SaveInterval is how often the model is saved even without changes (0: never).
func (sv *Saver) SaveInterval() time.Duration {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.periodic
}

// SetSaveInterval changes the periodic save interval. Errors: those of
// request.CheckSaveInterval.
func (sv *Saver) SetSaveInterval(d time.Duration) error {
	if err := request.CheckSaveInterval(d); err != nil {
		return err
	}
	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.periodic = d
	select {
	case sv.reconf <- struct{}{}:
	default:
	}
	return nil
}

// ErrOff is returned by Save when no state directory is in use.
var ErrOff = errors.New("persistence is off")

// Save writes the snapshot and the panes' tails now (Server.Save and every
// other save). reason is recorded in the snapshot. While the state is frozen
// for a shutdown, nothing is written and the last result is returned.
// Errors: ErrOff, or the store's.
func (sv *Saver) Save(reason string) (snapshot.SaveResult, error) {
	return sv.save(reason, false)
}

// SaveForShutdown freezes the picture of every live pane as live, writes it,
// and keeps later saves from overwriting it (the hang-ups that follow a
// host shutdown are not exits the user should find after the restart).
// Thaw undoes the freeze when the shutdown is cancelled.
func (sv *Saver) SaveForShutdown(reason string) (snapshot.SaveResult, error) {
	return sv.save(reason, true)
}

// Thaw lets saves write again after a cancelled shutdown.
func (sv *Saver) Thaw() {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.frozen = false
	sv.model.ThawLocked()
	sv.MarkDirtyLocked()
}

func (sv *Saver) save(reason string, freeze bool) (snapshot.SaveResult, error) {
	sv.saveMu.Lock()
	defer sv.saveMu.Unlock()
	sv.mu.Lock()
	if sv.store == nil {
		sv.mu.Unlock()
		return snapshot.SaveResult{}, ErrOff
	}
	if sv.frozen {
		defer sv.mu.Unlock()
		return sv.last, sv.lastErr
	}
	if freeze {
		sv.frozen = true
	}
	snap, terms := sv.model.CaptureLocked(reason, freeze, &sv.exported)
	sv.dirty = false
	store := sv.store
	sv.mu.Unlock()

	// Outside the lock: terminal locks. The epochs go into the document,
	// which is encoded before any tail is written; the rows of a changed
	// pane are read only when the store comes to write its tail.
	tails := sv.tails.Begin(snap.Panes, terms)
	res, err := store.SaveFunc(snap, tails.Func())
	sv.model.Saved()
	tails.End(err == nil && res.TailErr == nil)

	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.lastErr, sv.lastTry = err, time.Now()
	if err != nil {
		sv.dirty = true
		sv.kickLocked() // the goroutine tries again after the debounce interval
		return res, err
	}
	sv.lastAt, sv.last = time.Now(), res
	sv.log.Debug("snapshot saved", "reason", reason, "bytes", res.Bytes, "took", res.Duration)
	return res, nil
}

// ListSnapshots lists the older snapshots kept in the state directory,
// newest first (Server.ListSnapshots). Errors: unavailable.persistence,
// internal.
func (sv *Saver) ListSnapshots() ([]snapshot.Entry, error) {
	store := sv.Store()
	if store == nil {
		return nil, errcode.New(errcode.UnavailablePersistence, nil, "persistence is off")
	}
	list, err := store.List()
	if err != nil {
		return nil, errcode.New(errcode.CodeInternal, nil, "listing snapshots: %v", err)
	}
	return list, nil
}

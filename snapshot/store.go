package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// FileName is the current snapshot's name in the state directory.
const FileName = "snapshot.json"

// ErrWouldEraseSnapshot is returned by Save for an empty state while the
// state directory holds a non-empty snapshot this Store has neither loaded
// nor written: a daemon that could not read its snapshot must not replace it
// with nothing.
var ErrWouldEraseSnapshot = errors.New("snapshot: refusing to replace a non-empty snapshot that was not loaded with an empty state")

// FutureVersionError reports a snapshot written by a newer signaltty. The
// file is left untouched.
type FutureVersionError struct {
	Found     int    // the file's snapshot_version
	Supported int    // Version
	Path      string // the file
}

func (e *FutureVersionError) Error() string {
	return fmt.Sprintf("snapshot: %s has snapshot_version %d, newer than version %d this signaltty reads; "+
		"refusing to load it (run a newer signaltty, or move the file aside to start empty)", e.Path, e.Found, e.Supported)
}

// Rotation defaults: how many older snapshots snapshots/ keeps, and the least
// time between two of them.
const (
	DefaultRotateKeep  = 48
	DefaultRotateEvery = 15 * time.Minute
)

// Store reads and writes the snapshot files of one state directory. Its
// methods may be called from several goroutines; Save and Load are
// serialized.
type Store struct {
	dir   string
	clock func() time.Time
	keep  int
	every time.Duration
	sync  syncer

	mu sync.Mutex
	// trusted: Load succeeded (or found no file), or this Store wrote
	// snapshot.json, so an empty state may replace it.
	trusted bool
	// future: Load found a snapshot from a newer version; Save refuses.
	future *FutureVersionError
	tails  map[string]tailState // by tail file name
	seed   maphash.Seed         // of the tail hashes, which never leave this process
	buf    []byte               // a tail's contents
	enc    bytes.Buffer         // snapshot.json's contents
	parts  keptParts            // the elements' parts of the last snapshot.json (encode.go)
	doc    []byte               // snapshot.json's contents (encode.go)
	// pruned: the pane ids of the last save that removed every tail file
	// of a pane not among them (tail.go).
	pruned []string
}

// Option configures a Store.
type Option func(*Store)

// WithClock sets the clock that stamps saves, names rotated and corrupt
// files, and spaces rotation (time.Now by default).
func WithClock(now func() time.Time) Option {
	return func(s *Store) {
		if now != nil {
			s.clock = now
		}
	}
}

// WithRotation sets how many older snapshots snapshots/ keeps and the least
// time between two kept ones. keep ≤ 0 turns rotation off.
func WithRotation(keep int, every time.Duration) Option {
	return func(s *Store) {
		s.keep = keep
		s.every = every
	}
}

// Open returns a Store for the state directory dir. It touches nothing on
// disk: Save creates the directory.
func Open(dir string, opts ...Option) *Store {
	s := &Store{
		dir:   dir,
		clock: time.Now,
		keep:  DefaultRotateKeep,
		every: DefaultRotateEvery,
		sync:  defaultSyncer,
		tails: make(map[string]tailState),
		seed:  maphash.MakeSeed(),
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Dir returns the state directory.
func (s *Store) Dir() string { return s.dir }

// Path returns the path of snapshot.json.
func (s *Store) Path() string { return filepath.Join(s.dir, FileName) }

// SaveResult describes a save.
type SaveResult struct {
	Path     string        // snapshot.json
	Bytes    int64         // its size
	Duration time.Duration // wall time the save took, tails and rotation included
	Rotated  string        // the copy made in snapshots/, if one was
	// TailsWritten counts the tail files written; unchanged ones are not.
	TailsWritten int
	// TailErr reports tail files that could not be written although
	// snapshot.json was (tails are best-effort context); nil otherwise.
	TailErr error
	// RotateErr reports a failed copy into snapshots/ or pruning of it;
	// snapshot.json was written all the same.
	RotateErr error
}

// Save writes snap and the history tails of its panes.
//
// It stamps snap.SnapshotVersion, snap.Server.Protocol and
// snap.Server.SavedAt, then writes, each atomically (temporary file, fsync,
// rename, fsync of the directory): the tail of every pane of snap that tails
// has an entry for, unless unchanged since this Store last wrote or read it
// (a pane without an entry keeps its file; history/ is fsynced once for all
// of them); then snapshot.json (0600, indented JSON). Only once
// snapshot.json is in place are the tail files of panes no longer in snap
// removed, and a copy kept in snapshots/ when rotation is due.
//
// Pane environments pass through FilterEnv on the way to disk, and agent
// config_env drops names that look like credentials; snap itself keeps them.
// Of more than MaxNotifications notifications, the newest are written.
//
// A non-nil error means snapshot.json was not replaced (the previous one, if
// any, is intact) or, when only the final fsync of the directory failed, that
// the replacement may not survive a crash; no temporary file is left either
// way, and a later Save retries. Tails that could not be written while
// snapshot.json was are reported in SaveResult.TailErr, a failed rotation in
// SaveResult.RotateErr.
//
// An empty state (snap.Empty(), or nil) is refused with
// ErrWouldEraseSnapshot while a non-empty snapshot.json exists that this
// Store has neither loaded nor written. After Load met a snapshot from a
// newer version, every other Save returns that *FutureVersionError.
func (s *Store) Save(snap *Snapshot, tails map[string][]string) (SaveResult, error) {
	return s.SaveFunc(snap, func(paneID string) ([]string, bool) {
		rows, ok := tails[paneID]
		return rows, ok
	})
}

// TailFunc returns the rows of a pane's tail as SaveFunc comes to write it;
// ok false keeps the pane's tail file as it is. It is called at most once
// per pane of the snapshot, from up to TailWriters goroutines at once (each
// for a different pane), and the rows are dropped once written: a save
// holds at most TailWriters panes' rows at a time.
type TailFunc func(paneID string) (rows []string, ok bool)

// SaveFunc is Save with the tails read one pane at a time, as they are
// written, rather than all before the first is: tails(id) is asked for the
// rows of each pane of snap in turn.
func (s *Store) SaveFunc(snap *Snapshot, tails TailFunc) (SaveResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	start := time.Now()
	res := SaveResult{Path: s.Path()}
	if snap == nil {
		snap = &Snapshot{}
	}
	if snap.Empty() && !s.trusted {
		if err := s.checkErase(); err != nil {
			return res, err
		}
	}
	if s.future != nil {
		return res, s.future
	}
	now := s.clock()
	snap.SnapshotVersion = Version
	snap.Server.Protocol = Protocol
	snap.Server.SavedAt = now.UTC()

	data, err := s.encodeDoc(sanitized(snap)) // encode.go
	if err != nil {
		return res, fmt.Errorf("snapshot: encode: %w", err)
	}

	if err := s.ensureDir(s.dir); err != nil {
		return res, err
	}
	var tailErr error
	if err := s.ensureDir(filepath.Join(s.dir, historyDir)); err != nil {
		tailErr = err
	} else {
		res.TailsWritten, tailErr = s.writeTails(snap, tails)
	}
	if err := s.writeAtomic(s.dir, FileName, data, true); err != nil {
		res.Duration = time.Since(start)
		return res, errors.Join(err, tailErr)
	}
	s.trusted = true
	res.Bytes = int64(len(data))
	res.TailErr = tailErr
	s.pruneTails(snap)
	if !snap.Empty() {
		res.Rotated, res.RotateErr = s.rotate(snap, data, now)
	}
	res.Duration = time.Since(start)
	return res, nil
}

// checkErase allows an empty save when snapshot.json is missing, blank, or
// itself an empty state.
func (s *Store) checkErase() error {
	data, err := os.ReadFile(s.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return ErrWouldEraseSnapshot
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	if old, _, err := decode(data); err == nil && old.Empty() {
		return nil
	}
	return ErrWouldEraseSnapshot
}

// sanitized returns snap as it is written: filtered environments, split
// ratios JSON can encode (0.5 for NaN or ±Inf), at most MaxNotifications
// notifications. snap is not modified; what needs no change
// is shared.
func sanitized(snap *Snapshot) *Snapshot {
	out := *snap
	copied := false
	for i := range snap.Panes {
		p := &snap.Panes[i]
		if allKeys(p.Env, EnvAllowed) && (p.Agent == nil || allKeys(p.Agent.ConfigEnv, configEnvAllowed)) {
			continue
		}
		if !copied {
			out.Panes = slices.Clone(snap.Panes)
			copied = true
		}
		q := &out.Panes[i]
		q.Env = FilterEnv(p.Env)
		if p.Agent != nil {
			a := *p.Agent
			a.ConfigEnv = filterConfigEnv(a.ConfigEnv)
			q.Agent = &a
		}
	}
	tabsCopied := false
	for i := range snap.Tabs {
		if finiteLayout(snap.Tabs[i].Layout) {
			continue
		}
		if !tabsCopied {
			out.Tabs = slices.Clone(snap.Tabs)
			tabsCopied = true
		}
		out.Tabs[i].Layout = finiteCopy(snap.Tabs[i].Layout)
	}
	if len(snap.Notifications) > MaxNotifications {
		out.Notifications = newestNotifications(snap.Notifications, MaxNotifications)
	}
	return &out
}

// newestNotifications keeps the n most recently created notifications, in
// their original order.
func newestNotifications(ns []Notification, n int) []Notification {
	idx := make([]int, len(ns))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return ns[b].CreatedAt.Compare(ns[a].CreatedAt) })
	idx = idx[:n]
	slices.Sort(idx)
	out := make([]Notification, n)
	for i, j := range idx {
		out[i] = ns[j]
	}
	return out
}

// allKeys reports whether ok accepts every key of m.
func allKeys(m map[string]string, ok func(string) bool) bool {
	for k := range m {
		if !ok(k) {
			return false
		}
	}
	return true
}

// finiteLayout reports whether every ratio in l is a number JSON can hold.
func finiteLayout(l *Layout) bool {
	if l == nil {
		return true
	}
	return !math.IsNaN(l.Ratio) && !math.IsInf(l.Ratio, 0) && finiteLayout(l.First) && finiteLayout(l.Second)
}

// finiteCopy copies l with every ratio that is not a finite number set to
// 0.5.
func finiteCopy(l *Layout) *Layout {
	if l == nil {
		return nil
	}
	c := *l
	if math.IsNaN(c.Ratio) || math.IsInf(c.Ratio, 0) {
		c.Ratio = 0.5
	}
	c.First, c.Second = finiteCopy(l.First), finiteCopy(l.Second)
	return &c
}

package snapshot

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// TimeLayout is the UTC time stamp in the names of rotated and corrupt
// snapshots.
const TimeLayout = "20060102T150405Z"

const rotateDir = "snapshots"

// rotatedName matches the name of a kept copy: snapshot-<time>.json, or
// snapshot-<time>-<n>.json for the n-th further copy made within the same
// second (docs/persistence.md, "Rotation").
var rotatedName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^snapshot-([0-9]{8}T[0-9]{6}Z)(?:-([1-9][0-9]{0,5}))?\.json$`)
})

type rotated struct {
	name string
	t    time.Time
	seq  int // 0, or the -<n> of a further copy in the same second
}

// listRotated returns the snapshots kept in dir, oldest first.
func listRotated(dir string) ([]rotated, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	var list []rotated
	for _, e := range ents {
		m := rotatedName().FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() {
			continue
		}
		t, err := time.Parse(TimeLayout, m[1])
		if err != nil {
			continue
		}
		seq, _ := strconv.Atoi(m[2]) // "" is the first copy of that second
		list = append(list, rotated{e.Name(), t, seq})
	}
	sortRotated(list)
	return list, nil
}

func sortRotated(list []rotated) {
	slices.SortFunc(list, func(a, b rotated) int {
		if c := a.t.Compare(b.t); c != 0 {
			return c
		}
		if c := cmp.Compare(a.seq, b.seq); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
}

// rotate keeps a copy of a just-saved snapshot in snapshots/ when the newest
// kept one is at least s.every older than now (or there is none), then
// deletes the oldest beyond s.keep. It returns the copy's path, if it made
// one. A clock set back by more than s.every also makes a copy.
func (s *Store) rotate(snap *Snapshot, data []byte, now time.Time) (string, error) {
	return s.keepCopy(snap, data, now, false)
}

// Archive keeps a copy of the current snapshot.json in snapshots/ now,
// whatever the spacing (never an empty state; the oldest beyond the limit
// go), with the tails of its panes: the state a snapshot restore is about to
// replace stays recoverable, rows included. A copy made within the same
// second as another is named snapshot-<time>-<n>.json. It returns the
// copy's path ("" when there was nothing to keep).
func (s *Store) Archive() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, err := os.ReadFile(s.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("snapshot: %w", err)
	}
	snap, _, err := decode(data)
	if err != nil || snap.Empty() {
		return "", err
	}
	return s.keepCopy(snap, data, s.clock(), true)
}

// keepCopy writes data, the encoding of snap, into snapshots/ when due (or
// when force), with the tails of snap's panes beside it (copy_tails.go), then
// drops the oldest copies beyond the limit and the tails of copies older
// than the newest KeepTailCopies; s.mu is held.
func (s *Store) keepCopy(snap *Snapshot, data []byte, now time.Time, force bool) (string, error) {
	if s.keep <= 0 {
		return "", nil
	}
	dir := filepath.Join(s.dir, rotateDir)
	if err := s.ensureDir(dir); err != nil {
		return "", err
	}
	list, err := listRotated(dir)
	if err != nil {
		return "", err
	}
	due := true
	if n := len(list); n > 0 && !force {
		d := now.Sub(list[n-1].t)
		due = d >= s.every || d <= -s.every
	}
	var made string
	var errs []error
	if due {
		t := now.UTC().Truncate(time.Second)
		if name, seq, ok := freeCopyName(dir, t); ok {
			// The tails first: the copy's snapshot is what makes them one.
			if err := s.copyTails(dir, name, snap); err != nil {
				errs = append(errs, err)
			}
			if err := s.writeAtomic(dir, name, data, true); err != nil {
				errs = append(errs, err)
				removeCopyTails(dir, name)
			} else {
				made = name
				list = append(list, rotated{name, t, seq})
				sortRotated(list)
			}
		}
	}
	for len(list) > s.keep {
		old := list[0].name
		if err := os.Remove(filepath.Join(dir, old)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("snapshot: %w", err))
		}
		if old == made {
			made = ""
		}
		list = list[1:]
	}
	if err := pruneCopyTails(dir, list); err != nil {
		errs = append(errs, err)
	}
	if made != "" {
		made = filepath.Join(dir, made)
	}
	return made, errors.Join(errs...)
}

// Entry describes a snapshot kept in snapshots/.
type Entry struct {
	Name       string    // file name, for ReadEntry
	SavedAt    time.Time // server.saved_at (from the name if unreadable)
	Bytes      int64
	Workspaces int
	Panes      int
	TailsKept  bool  // the copy kept its panes' tails (copy_tails.go)
	Err        error // the file could not be read or parsed; counts are 0
}

// List returns the snapshots kept in snapshots/, newest first.
func (s *Store) List() ([]Entry, error) {
	dir := filepath.Join(s.dir, rotateDir)
	list, err := listRotated(dir)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(list))
	for i := len(list) - 1; i >= 0; i-- {
		r := list[i]
		e := Entry{Name: r.name, SavedAt: r.t, TailsKept: hasCopyTails(dir, r.name)}
		path := filepath.Join(dir, r.name)
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // pruned meanwhile
		}
		e.Bytes = int64(len(data))
		if err != nil {
			e.Err = fmt.Errorf("snapshot: %w", err)
			out = append(out, e)
			continue
		}
		var probe struct {
			Server struct {
				SavedAt time.Time `json:"saved_at"`
			} `json:"server"`
			Workspaces []json.RawMessage `json:"workspaces"`
			Panes      []json.RawMessage `json:"panes"`
		}
		if err := json.Unmarshal(data, &probe); err != nil {
			e.Err = fmt.Errorf("snapshot: %s: %w", path, err)
		} else {
			if !probe.Server.SavedAt.IsZero() {
				e.SavedAt = probe.Server.SavedAt
			}
			e.Workspaces, e.Panes = len(probe.Workspaces), len(probe.Panes)
		}
		out = append(out, e)
	}
	return out, nil
}

// ReadEntry reads a snapshot kept in snapshots/ by its List name, migrated
// and repaired as Load does (its warnings are not reported). Names other
// than snapshot-<time>.json are refused.
func (s *Store) ReadEntry(name string) (*Snapshot, error) {
	snap, _, err := s.readEntry(name)
	return snap, err
}

// readEntry is ReadEntry, also returning the copy's snapshot_version.
func (s *Store) readEntry(name string) (*Snapshot, int, error) {
	if !rotatedName().MatchString(name) {
		return nil, 0, fmt.Errorf("snapshot: %q is not the name of a kept snapshot", name)
	}
	path := filepath.Join(s.dir, rotateDir, name)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("snapshot: %w", err)
	}
	snap, v, err := decode(data)
	var fv *FutureVersionError
	if errors.As(err, &fv) {
		fv.Path = path
		return nil, v, fv
	}
	if err != nil {
		return nil, v, fmt.Errorf("snapshot: %s: %w", path, err)
	}
	repair(snap)
	return snap, v, nil
}

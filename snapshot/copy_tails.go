package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// KeepTailCopies is how many of the newest copies in snapshots/ keep the
// tails of their panes (docs/persistence.md, "Rotation"); older copies keep
// snapshot.json only. A copy's tails take at most MaxTailFileBytes per pane, and
// nothing while they are the same files as history/ (they are hard links).
const KeepTailCopies = 8

// tailsDirExt names the directory of a copy's tails:
// snapshots/snapshot-<time>.tails/ beside snapshots/snapshot-<time>.json.
const tailsDirExt = ".tails"

// maxSameSecond bounds the -<n> suffixes tried for copies made within one
// second.
const maxSameSecond = 999

// copyTailsDir returns the directory holding the tails of the copy name.
func copyTailsDir(dir, name string) string {
	return filepath.Join(dir, strings.TrimSuffix(name, ".json")+tailsDirExt)
}

// freeCopyName returns the first name for a copy made at t that is not
// taken: snapshot-<t>.json, then snapshot-<t>-1.json, -2, …
func freeCopyName(dir string, t time.Time) (string, int, bool) {
	base := "snapshot-" + t.Format(TimeLayout)
	for seq := 0; seq <= maxSameSecond; seq++ {
		name := base + ".json"
		if seq > 0 {
			name = base + "-" + strconv.Itoa(seq) + ".json"
		}
		if _, err := os.Lstat(filepath.Join(dir, name)); errors.Is(err, fs.ErrNotExist) {
			return name, seq, true
		}
	}
	return "", 0, false
}

// copyTails puts the history tails of snap's panes into the tails directory
// of the copy name: built under a temporary name, flushed, then renamed into
// place (the caller's atomic write of the copy flushes dir). Each tail is a
// hard link to history/<pane>.tail, which is safe because a tail file is
// only ever replaced by a rename, never written in place; where a link
// cannot be made the file is copied. A pane without a tail file has none in
// the copy either. s.mu is held.
func (s *Store) copyTails(dir, name string, snap *Snapshot) (err error) {
	final := copyTailsDir(dir, name)
	tmp, err := os.MkdirTemp(dir, "."+filepath.Base(final)+tmpInfix+"*")
	if err != nil {
		return fmt.Errorf("snapshot: tails of %s: %w", name, err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
			err = fmt.Errorf("snapshot: tails of %s: %w", name, err)
		}
	}()
	if err = os.Chmod(tmp, dirMode); err != nil {
		return err
	}
	hist := filepath.Join(s.dir, historyDir)
	entries := 0
	for i := range snap.Panes {
		file := TailFile(snap.Panes[i].ID)
		if file == "" {
			continue
		}
		src := filepath.Join(hist, file)
		if err := os.Link(src, filepath.Join(tmp, file)); err == nil {
			entries++
			continue
		} else if errors.Is(err, fs.ErrExist) || errors.Is(err, fs.ErrNotExist) {
			continue // no tail: no rows
		}
		data, ok, rerr := readTail(src)
		if rerr != nil {
			return rerr
		}
		if !ok {
			continue
		}
		if err = s.writeAtomic(tmp, file, data, false); err != nil {
			return err
		}
		entries++
	}
	if entries > 0 { // the links and files made in it survive a crash
		if err = s.sync.dir(tmp); err != nil {
			return err
		}
	}
	if err = os.RemoveAll(final); err != nil { // left by a copy whose snapshot was not written
		return err
	}
	return os.Rename(tmp, final)
}

// removeCopyTails deletes the tails directory of the copy name.
func removeCopyTails(dir, name string) { os.RemoveAll(copyTailsDir(dir, name)) }

// pruneCopyTails deletes the tails directories of every copy but the newest
// KeepTailCopies of list (oldest first), and those whose copy is gone.
func pruneCopyTails(dir string, list []rotated) error {
	keep := make(map[string]bool, KeepTailCopies)
	for i := max(0, len(list)-KeepTailCopies); i < len(list); i++ {
		keep[filepath.Base(copyTailsDir(dir, list[i].name))] = true
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	var errs []error
	for _, e := range ents {
		n := e.Name()
		if !e.IsDir() || !strings.HasSuffix(n, tailsDirExt) || isTemp(n) || keep[n] {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, n)); err != nil {
			errs = append(errs, fmt.Errorf("snapshot: %w", err))
		}
	}
	return errors.Join(errs...)
}

// Copy is a snapshot kept in snapshots/, read for a restore.
type Copy struct {
	Snapshot *Snapshot
	// Tails are the rows of its panes, by pane id, when the copy kept its
	// tails (TailsKept); a pane without an entry had no rows.
	Tails map[string][]string
	// TailsKept is false for a copy that has no tails: one older than the
	// newest KeepTailCopies, or made before copies kept them.
	TailsKept bool
	// Warnings name tails that could not be read.
	Warnings []string
}

// ReadCopy reads a snapshot kept in snapshots/ by its List name, as
// ReadEntry does, and the tails kept with it.
func (s *Store) ReadCopy(name string) (Copy, error) {
	snap, v, err := s.readEntry(name)
	if err != nil {
		return Copy{}, err
	}
	c := Copy{Snapshot: snap}
	dir := copyTailsDir(filepath.Join(s.dir, rotateDir), name)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return c, nil
	}
	c.TailsKept = true
	for i := range snap.Panes {
		id := snap.Panes[i].ID
		data, ok, err := readTail(filepath.Join(dir, TailFile(id)))
		if err != nil {
			c.Warnings = append(c.Warnings, fmt.Sprintf("pane %q: kept tail not read: %v", id, err))
			continue
		}
		if !ok {
			continue
		}
		if c.Tails == nil {
			c.Tails = make(map[string][]string)
		}
		c.Tails[id] = splitTail(data, v)
	}
	return c, nil
}

// hasCopyTails reports whether the copy name kept its tails.
func hasCopyTails(dir, name string) bool {
	fi, err := os.Stat(copyTailsDir(dir, name))
	return err == nil && fi.IsDir()
}

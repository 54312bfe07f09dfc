package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// MaxTailBytes bounds the text of a pane's history tail: the newest whole
// rows whose text (their escape sequences not counted) plus one newline
// each fit, and whose lengths with their sequences fit MaxTailFileBytes.
const MaxTailBytes = 64 << 10

// MaxTailFileBytes bounds a tail file: the rows' colours may take up to
// three times as much as their text before a coloured tail keeps fewer
// rows than a plain one.
const MaxTailFileBytes = 4 * MaxTailBytes

// StyledTails is the first snapshot version whose tails hold their rows'
// colours as SGR and OSC 8 sequences (SCHEMA.md, "history/<pane>.tail");
// the tails of older ones are plain text.
const StyledTails = 2

const (
	historyDir = "history"
	tailExt    = ".tail"
)

// maxCleanName is the longest pane id used verbatim as a tail file name.
const maxCleanName = 128

// tailState is what this Store last wrote (or read) for a tail file.
type tailState struct {
	sum  uint64
	size int64
}

// TailFile returns the file name, under history/, of a pane's tail: the pane
// id itself when it consists of [A-Za-z0-9_-] only (and is at most 128
// bytes), otherwise the id filtered to those characters, cut to 64 bytes,
// followed by "-" and 16 hex digits of its SHA-256, so that distinct ids never
// share a file. It returns "" for an empty id.
func TailFile(paneID string) string {
	if paneID == "" {
		return ""
	}
	clean := len(paneID) <= maxCleanName
	for i := 0; i < len(paneID) && clean; i++ {
		clean = nameByte(paneID[i])
	}
	if clean {
		return paneID + tailExt
	}
	var b strings.Builder
	for i := 0; i < len(paneID) && b.Len() < 64; i++ {
		if nameByte(paneID[i]) {
			b.WriteByte(paneID[i])
		}
	}
	sum := sha256.Sum256([]byte(paneID))
	return b.String() + "-" + hex.EncodeToString(sum[:8]) + tailExt
}

func nameByte(c byte) bool {
	return c == '_' || c == '-' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
}

// tailStart returns the index of the first of the newest rows whose text
// fits in maxText bytes and whose lengths fit in maxFile, counting one
// newline per row.
func tailStart(rows []string, maxText, maxFile int) int {
	text, file, i := 0, 0, len(rows)
	for i > 0 {
		r := rows[i-1]
		t, f := savedTextLen(r)+1, len(r)+1
		if text+t > maxText || file+f > maxFile {
			break
		}
		text, file = text+t, file+f
		i--
	}
	return i
}

// savedTextLen is the length of a saved row without its escape sequences
// (CSI … final byte, OSC … BEL or ESC \, ESC and one byte).
func savedTextLen(row string) int {
	n := len(row)
	for i := strings.IndexByte(row, 0x1b); i >= 0 && i < len(row); {
		j := i + 2
		switch {
		case j > len(row):
			j = len(row)
		case row[i+1] == '[':
			for j < len(row) && (row[j] < 0x40 || row[j] > 0x7e) {
				j++
			}
			j = min(j+1, len(row))
		case row[i+1] == ']':
			for j < len(row) && row[j] != 0x07 && row[j] != 0x1b {
				j++
			}
			if j < len(row) && row[j] == 0x1b {
				j++
			}
			j = min(j+1, len(row))
		}
		n -= j - i
		k := strings.IndexByte(row[j:], 0x1b)
		if k < 0 {
			break
		}
		i = j + k
	}
	return n
}

// TrimTail returns the content of a tail file for rows: the newest whole
// rows that fit (MaxTailBytes, MaxTailFileBytes), joined with '\n'.
func TrimTail(rows []string) []byte {
	return appendTail(nil, rows[tailStart(rows, MaxTailBytes, MaxTailFileBytes):])
}

func appendTail(buf []byte, rows []string) []byte {
	for i, r := range rows {
		if i > 0 {
			buf = append(buf, '\n')
		}
		buf = append(buf, r...)
	}
	return buf
}

// splitTail turns a tail file's content back into rows, the newest that
// fit the bounds (TrimTail), for a snapshot of version v: before
// StyledTails a tail is plain text, so a control character in it (there is
// none in a tail such a version wrote) becomes a space rather than start a
// sequence.
func splitTail(data []byte, v int) []string {
	if len(data) == 0 {
		return nil
	}
	if v < StyledTails && bytes.ContainsFunc(data, isControl) {
		data = bytes.Map(func(r rune) rune {
			if isControl(r) {
				return ' '
			}
			return r
		}, data)
	}
	rows := strings.Split(string(data), "\n")
	return rows[tailStart(rows, MaxTailBytes, MaxTailFileBytes):]
}

// isControl reports a C0 control other than the row separator, or DEL.
func isControl(r rune) bool { return (r < 0x20 && r != '\n') || r == 0x7f }

// TailWriters is how many tails a save reads and writes (and fsyncs) at
// once: file systems commit concurrent fsyncs together.
const TailWriters = 4

// writeTails writes the tail of every pane of snap that tails gives rows
// for, skipping those whose content this Store already wrote (or read), and
// fsyncs history/ once. Each pane's rows are asked for, trimmed, written and
// dropped before a writer goes on to the next pane. It returns how many
// files it wrote.
func (s *Store) writeTails(snap *Snapshot, tails TailFunc) (int, error) {
	if tails == nil || len(snap.Panes) == 0 {
		return 0, nil
	}
	dir := filepath.Join(s.dir, historyDir)
	type item struct{ id, name string }
	items := make([]item, 0, len(snap.Panes))
	seen := make(map[string]bool, len(snap.Panes))
	for i := range snap.Panes {
		id := snap.Panes[i].ID
		name := TailFile(id)
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		items = append(items, item{id, name})
	}
	errs := make([]error, len(items))
	var mu sync.Mutex // guards s.tails and written among the writers
	written := 0
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(TailWriters, len(items)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for {
				i := int(next.Add(1)) - 1
				if i >= len(items) {
					return
				}
				it := items[i]
				rows, ok := tails(it.id)
				if !ok {
					continue
				}
				buf = appendTail(buf[:0], rows[tailStart(rows, MaxTailBytes, MaxTailFileBytes):])
				rows = nil // the pane's rows are garbage from here on
				st := tailState{maphash.Bytes(s.seed, buf), int64(len(buf))}
				mu.Lock()
				old, had := s.tails[it.name]
				mu.Unlock()
				if had && old == st {
					if fi, err := os.Lstat(filepath.Join(dir, it.name)); err == nil && fi.Mode().IsRegular() && fi.Size() == st.size {
						continue
					}
				}
				err := s.writeAtomic(dir, it.name, buf, false)
				mu.Lock()
				if err != nil {
					delete(s.tails, it.name)
					errs[i] = err
				} else {
					s.tails[it.name] = st
					written++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if written > 0 {
		if err := s.sync.dir(dir); err != nil {
			errs = append(errs, fmt.Errorf("snapshot: sync directory %s: %w", dir, err))
		}
	}
	return written, errors.Join(errs...)
}

// removeTails deletes the tail files under history/ whose name is not in
// keep and returns the names it removed; all is false when some could not
// be (or history/ could not be read).
func (s *Store) removeTails(keep map[string]bool) (removed []string, all bool) {
	dir := filepath.Join(s.dir, historyDir)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, errors.Is(err, fs.ErrNotExist)
	}
	all = true
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, tailExt) || isTemp(name) || keep[name] || e.IsDir() {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err == nil || errors.Is(err, fs.ErrNotExist) {
			delete(s.tails, name)
			removed = append(removed, name)
		} else {
			all = false
		}
	}
	return removed, all
}

// pruneTails removes the tail files of panes not in snap, unless snap
// has the same panes as the last save that did so: this Store writes
// tails only for the panes of the snapshot it saves, so no tail of
// another pane can have appeared since. s.mu is held.
func (s *Store) pruneTails(snap *Snapshot) {
	if s.pruned != nil && slices.EqualFunc(s.pruned, snap.Panes, func(id string, p Pane) bool { return id == p.ID }) {
		return
	}
	s.pruned = nil
	if _, all := s.removeTails(paneTailNames(snap)); !all {
		return // tried again next save
	}
	s.pruned = make([]string, len(snap.Panes))
	for i := range snap.Panes {
		s.pruned[i] = snap.Panes[i].ID
	}
}

// paneTailNames returns the tail file names of snap's panes.
func paneTailNames(snap *Snapshot) map[string]bool {
	keep := make(map[string]bool, len(snap.Panes))
	for i := range snap.Panes {
		if name := TailFile(snap.Panes[i].ID); name != "" {
			keep[name] = true
		}
	}
	return keep
}

// readTail reads one tail file, at most its last MaxTailFileBytes (dropping
// a partial first row if it had to cut). ok is false when the file is missing.
func readTail(path string) (data []byte, ok bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, false, fmt.Errorf("%s is not a regular file", path)
	}
	size := fi.Size()
	if size <= MaxTailFileBytes {
		data = make([]byte, size)
		_, err = io.ReadFull(f, data)
		return data, true, err
	}
	data = make([]byte, MaxTailFileBytes)
	if _, err = f.ReadAt(data, size-MaxTailFileBytes); err != nil {
		return nil, false, err
	}
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		data = data[i+1:]
	} else {
		data = nil
	}
	return data, true, nil
}

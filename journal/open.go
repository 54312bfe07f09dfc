package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Open opens (or creates) the journal in dir, checks it against its
// evidence and reserves a first lease of numbers. Base is then the number
// after which issuing starts. Problems found (a torn tail, a missing or
// changed segment, unreadable evidence or sequence) do not fail Open: they
// mark the history they affect broken (Problems lists them). Errors: the
// directory or the first reservation cannot be written.
func Open(dir string, opt Options) (*Journal, error) {
	if opt.Lease <= 0 {
		opt.Lease = DefaultLease
	}
	if opt.SegmentBytes <= 0 {
		opt.SegmentBytes = DefaultSegmentBytes
	}
	if opt.Segments <= 0 {
		opt.Segments = DefaultSegments
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	j := &Journal{dir: dir, opt: opt, ev: evidence{Version: 1}}
	changed, err := j.check()
	if err != nil {
		return nil, err
	}
	if changed {
		// On a full file system the evidence waits for the next write
		// (Flush, Append); the reservation below still works in place.
		j.dirty = j.writeEvidence() != nil
		if !j.dirty {
			j.lostFrom = 0 // the reservation below drops the mark
		}
	}
	if err := j.Reserve(j.head + opt.Lease); err != nil {
		return nil, err
	}
	j.opened = true
	return j, nil
}

// problem records something found wrong and breaks history through seq.
// Only what Open finds is listed by Problems.
func (j *Journal) problem(through int64, format string, args ...any) {
	if !j.opened {
		j.problems = append(j.problems, fmt.Sprintf(format, args...))
	}
	j.ev.BrokenThrough = max(j.ev.BrokenThrough, through)
}

// check reads the sequence, the evidence and the segments; it reports
// whether the evidence must be rewritten.
func (j *Journal) check() (changed bool, err error) {
	seqVal, lostFrom, seqErr := readSeq(filepath.Join(j.dir, seqFile))
	evBytes, evErr := os.ReadFile(filepath.Join(j.dir, evidenceFile))
	files, err := j.segmentFiles()
	if err != nil {
		return false, err
	}
	switch {
	case errors.Is(evErr, os.ErrNotExist):
		evBytes = nil
	case evErr != nil:
		return false, fmt.Errorf("journal: %w", evErr)
	}
	var ev evidence
	evOK := evBytes != nil && json.Unmarshal(evBytes, &ev) == nil && ev.Version == 1
	if evOK {
		j.ev = ev
	}

	// The highest number known, from every source.
	high := max(seqVal, 0)
	known := map[string]bool{}
	for _, s := range j.ev.Closed {
		known[s.Name] = true
		high = max(high, s.Last)
	}
	// Closed segments: present with the recorded length and checksum.
	for _, s := range j.ev.Closed {
		n, sum, err := hashFile(filepath.Join(j.dir, s.Name))
		switch {
		case err != nil:
			j.problem(s.Last, "segment %s (seq %d..%d) is missing: %v", s.Name, s.First, s.Last, err)
		case n != s.Bytes || sum != s.SHA256:
			j.problem(s.Last, "segment %s (seq %d..%d) has %d bytes and checksum %.12s, the evidence records %d and %.12s",
				s.Name, s.First, s.Last, n, sum, s.Bytes, s.SHA256)
		}
	}
	// The current segment (and segments the evidence does not know of) are
	// read line by line.
	for _, name := range files {
		if known[name] {
			continue
		}
		recs, torn, n, err := readSegment(filepath.Join(j.dir, name))
		if err != nil {
			return false, err
		}
		first := segFirst(name)
		last := first - 1 // an empty segment
		if len(recs) > 0 {
			first, last = recs[0].Seq, recs[len(recs)-1].Seq
			high = max(high, last)
		}
		if name != j.ev.Current || !evOK {
			j.problem(max(last, high), "segment %s is not in the evidence", name)
		}
		if torn != "" {
			j.problem(max(last, high), "segment %s: %s", name, torn)
		}
		if torn != "" || name != j.ev.Current || !evOK {
			// Keep it as it is, as a closed segment: never rewritten, and
			// not reported again.
			_, sum, err := hashFile(filepath.Join(j.dir, name))
			if err != nil {
				return false, err
			}
			j.ev.Closed = append(j.ev.Closed, segment{Name: name, First: first, Last: last, Bytes: n, SHA256: sum})
			if name == j.ev.Current {
				j.ev.Current = ""
			}
			changed = true
			continue
		}
		// An intact current segment: appends continue in it.
		f, err := os.OpenFile(filepath.Join(j.dir, name), os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return false, fmt.Errorf("journal: %w", err)
		}
		j.cur, j.curSeg = f, segment{Name: name, First: first, Last: last, Bytes: n}
	}
	if j.ev.Current != "" && j.cur == nil && !containsClosed(j.ev.Closed, j.ev.Current) {
		j.problem(high, "the current segment %s is missing", j.ev.Current)
		j.ev.Current = ""
	}
	switch {
	case evBytes != nil && !evOK:
		j.problem(high, "the evidence file is unreadable")
	case evBytes == nil && (len(files) > 0 || seqErr == nil):
		j.problem(high, "the evidence file is missing")
	}
	if seqErr != nil && !errors.Is(seqErr, os.ErrNotExist) {
		j.problem(high, "the sequence file is unreadable: %v", seqErr)
	}
	if seqErr == nil && seqVal < high {
		j.problem(high, "the sequence file (%d) is behind the journal (%d)", seqVal, high)
	}
	if lostFrom > 0 && !j.holdsLost(lostFrom) {
		// Events from lostFrom on were not written and the daemon ended
		// before the evidence could say which: all up to the reservation
		// count as lost.
		j.ev.Lost = append(j.ev.Lost, Range{First: lostFrom, Last: max(seqVal, lostFrom)})
		sort.Slice(j.ev.Lost, func(a, b int) bool { return j.ev.Lost[a].First < j.ev.Lost[b].First })
		j.lostFrom, changed = lostFrom, true
	}
	sort.Slice(j.ev.Closed, func(a, b int) bool { return j.ev.Closed[a].First < j.ev.Closed[b].First })
	j.head = high
	return changed || len(j.problems) > 0, nil
}

func containsClosed(ss []segment, name string) bool {
	for _, s := range ss {
		if s.Name == name {
			return true
		}
	}
	return false
}

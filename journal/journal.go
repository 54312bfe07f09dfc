package journal

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Record is one journaled event.
type Record struct {
	Seq      int64           `json:"seq"`
	Source   string          `json:"source"`
	Type     string          `json:"type"`
	Resource string          `json:"resource"`
	Time     time.Time       `json:"time"`
	Data     json.RawMessage `json:"data"`
}

// Options bound the journal. Zero fields take the defaults.
type Options struct {
	Lease        int64 // numbers reserved per sequence write (default 4096)
	SegmentBytes int64 // a segment is closed once it holds this many bytes (default 8 MiB)
	Segments     int   // closed segments kept besides the current one (default 3)
}

// Defaults of Options.
const (
	DefaultLease        = 4096
	DefaultSegmentBytes = 8 << 20
	DefaultSegments     = 3
)

const (
	seqFile      = "sequence"
	evidenceFile = "evidence.json"
	segPrefix    = "segment-"
	segSuffix    = ".jsonl"
)

type segment struct {
	Name   string `json:"name"`
	First  int64  `json:"first"`
	Last   int64  `json:"last"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// Range is a closed range of seqs, First ≤ Last.
type Range struct {
	First int64 `json:"first"`
	Last  int64 `json:"last"`
}

type evidence struct {
	Version       int       `json:"version"`
	RetainedAfter int64     `json:"retained_after"`
	BrokenThrough int64     `json:"broken_through"`
	Lost          []Range   `json:"lost,omitempty"`
	Closed        []segment `json:"closed"`
	Current       string    `json:"current,omitempty"`
}

// Journal is an open event journal.
type Journal struct {
	dir      string
	opt      Options
	ev       evidence
	cur      *os.File // the segment being appended to; nil until the first append
	curSeg   segment  // its name, first and last seq, bytes so far
	head     int64    // the last seq appended (or, at open, the highest known)
	reserved int64    // the durable bound of issued numbers
	problems []string // what Open found
	opened   bool     // Open returned: later problems are not Open's
	dirty    bool     // ev holds what evidence.json does not yet
	lostFrom int64    // the first seq of a lost range evidence.json does not hold yet, marked in the sequence file
	drop     []string // rotated-away segment files, deleted once the evidence no longer names them
}

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

// Base is the number after which this journal's owner issues numbers.
func (j *Journal) Base() int64 { return j.head }

// Reserved is the durable bound: no number above it may be issued.
func (j *Journal) Reserved() int64 { return j.reserved }

// Lease is how many numbers a reservation adds.
func (j *Journal) Lease() int64 { return j.opt.Lease }

// Problems lists what Open found wrong.
func (j *Journal) Problems() []string { return j.problems }

// Lost lists, in seq order, the ranges of journaled events that were
// issued (and published) but could not be written: a cursor below a
// range's Last cannot be replayed across it. Kept in evidence.json once it
// can be written (Pending reports whether it is still only in memory).
func (j *Journal) Lost() []Range { return append([]Range(nil), j.ev.Lost...) }

// Pending reports whether the evidence (a lost range, a rotation) is not
// yet durable; Flush or the next Append writes it.
func (j *Journal) Pending() bool { return j.dirty }

// Flush writes the evidence if it is pending. Errors: it cannot be written
// (it stays pending).
func (j *Journal) Flush() error {
	if !j.dirty {
		return nil
	}
	if err := j.writeEvidence(); err != nil {
		return err
	}
	j.dirty = false
	if j.lostFrom != 0 { // the evidence holds it now: drop the mark
		j.lostFrom = 0
		_ = j.writeSeq(j.reserved)
	}
	for _, name := range j.drop {
		os.Remove(filepath.Join(j.dir, name))
	}
	j.drop = nil
	return nil
}

// lose records recs as issued but not written: the head moves past them
// and the range joins the last lost one when nothing was written since.
func (j *Journal) lose(recs []Record) {
	if len(recs) == 0 {
		return
	}
	first, last := recs[0].Seq, recs[len(recs)-1].Seq
	if n := len(j.ev.Lost); n > 0 && j.ev.Lost[n-1].Last == j.head {
		j.ev.Lost[n-1].Last = last
	} else {
		j.ev.Lost = append(j.ev.Lost, Range{First: first, Last: last})
	}
	j.head, j.dirty = max(j.head, last), true
	if j.lostFrom == 0 {
		// Marked in the sequence file, in place, so that a daemon that
		// ends before the evidence can be written still knows.
		j.lostFrom = first
		_ = overwriteSeq(filepath.Join(j.dir, seqFile), j.reserved, j.lostFrom)
	}
}

// MarkLost records g as events issued (by a daemon that had no journal
// open) but not written, like an Append that failed; the evidence is
// pending until Flush or the next Append.
func (j *Journal) MarkLost(g Range) {
	j.lose([]Record{{Seq: g.First}, {Seq: g.Last}})
}

// holdsLost reports whether seq is in a recorded lost range.
func (j *Journal) holdsLost(seq int64) bool {
	for _, g := range j.ev.Lost {
		if g.First <= seq && seq <= g.Last {
			return true
		}
	}
	return false
}

// Coverage reports what a replay can prove: events with seq ≤
// retainedAfter are gone, a cursor below brokenThrough cannot be proven
// complete, and head is the last seq appended.
func (j *Journal) Coverage() (retainedAfter, brokenThrough, head int64) {
	return j.ev.RetainedAfter, j.ev.BrokenThrough, j.head
}

// Reserve writes bound durably as the reservation (it never goes down).
// When the sequence file cannot be replaced (a full file system has no
// room for the temporary file) its first sector is overwritten in place.
func (j *Journal) Reserve(bound int64) error {
	if bound <= j.reserved {
		return nil
	}
	if err := j.writeSeq(bound); err != nil {
		return err
	}
	j.reserved = bound
	return nil
}

// writeSeq writes the sequence file: bound, and the lost-range mark.
func (j *Journal) writeSeq(bound int64) error {
	text := strconv.FormatInt(bound, 10)
	if j.lostFrom != 0 {
		text += " lost_from " + strconv.FormatInt(j.lostFrom, 10)
	}
	if err := writeAtomic(j.dir, seqFile, []byte(text+"\n")); err != nil {
		if overwriteSeq(filepath.Join(j.dir, seqFile), bound, j.lostFrom) != nil {
			return err
		}
	}
	return nil
}

// overwriteSeq writes the sequence file's text over its first 64 bytes
// (space-padded and a newline: within one sector, so a crash leaves the
// old text or the new one) and syncs it; it allocates no new block.
func overwriteSeq(path string, bound, lostFrom int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	text := strconv.FormatInt(bound, 10)
	if lostFrom != 0 {
		text += " lost_from " + strconv.FormatInt(lostFrom, 10)
	}
	if _, err := f.WriteAt([]byte(fmt.Sprintf("%-63s\n", text)), 0); err != nil {
		return err
	}
	return unix.Fdatasync(int(f.Fd()))
}

// Append writes recs (in increasing seq order, each above the head and at
// most the reservation) and syncs them: one fdatasync for the batch. A
// segment that is full afterwards is closed and the oldest beyond
// Options.Segments deleted. Pending evidence is written first, so no event
// is written after a lost range that the evidence does not yet hold. On a
// write error (a full file system) the segment is cut back to its length
// before the batch, recs become a lost range (Lost) and the head moves past
// them; the next Append or Flush tries again. Errors: a seq out of order
// or beyond the reservation (nothing recorded), a write failure.
func (j *Journal) Append(recs []Record) error {
	for i, r := range recs {
		if r.Seq <= j.head || r.Seq > j.reserved || i > 0 && r.Seq <= recs[i-1].Seq {
			return fmt.Errorf("journal: seq %d is not in (%d, %d] or out of order", r.Seq, j.head, j.reserved)
		}
	}
	if err := j.Flush(); err != nil {
		j.lose(recs)
		return err
	}
	if len(recs) == 0 {
		return nil
	}
	if err := j.write(recs); err != nil {
		j.lose(recs)
		return err
	}
	if j.curSeg.Bytes >= j.opt.SegmentBytes {
		j.rotate()
	}
	return nil
}

// write appends and syncs recs, or leaves the segment as it was.
func (j *Journal) write(recs []Record) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
	}
	if j.cur == nil {
		if err := j.startSegment(recs[0].Seq); err != nil {
			return err
		}
	}
	n, err := j.cur.Write(buf.Bytes())
	if err == nil {
		err = unix.Fdatasync(int(j.cur.Fd()))
	}
	if err != nil {
		// Cut the batch off again; a segment that cannot be cut is torn
		// and closed as it is.
		if terr := j.cur.Truncate(j.curSeg.Bytes); terr != nil {
			j.curSeg.Bytes += int64(n)
			j.problem(recs[len(recs)-1].Seq, "append failed after %d bytes: %v", n, err)
			j.closeSegment()
			j.dirty = true
		}
		return fmt.Errorf("journal: append: %w", err)
	}
	j.curSeg.Bytes += int64(n)
	j.curSeg.Last, j.head = recs[len(recs)-1].Seq, recs[len(recs)-1].Seq
	return nil
}

// startSegment creates the segment whose first event is first.
func (j *Journal) startSegment(first int64) error {
	name := fmt.Sprintf("%s%020d%s", segPrefix, first, segSuffix)
	f, err := os.OpenFile(filepath.Join(j.dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	j.cur, j.curSeg = f, segment{Name: name, First: first, Last: first - 1}
	j.ev.Current = name
	if err := j.writeEvidence(); err != nil { // also syncs the directory entry
		f.Close()
		os.Remove(filepath.Join(j.dir, name))
		j.cur, j.ev.Current = nil, ""
		return err
	}
	return nil
}

// closeSegment moves the current segment to the closed ones (its checksum
// taken from the file as it is) without writing the evidence.
func (j *Journal) closeSegment() {
	if j.cur == nil {
		return
	}
	j.cur.Close()
	n, sum, err := hashFile(filepath.Join(j.dir, j.curSeg.Name))
	if err == nil {
		j.curSeg.Bytes, j.curSeg.SHA256 = n, sum
	}
	j.ev.Closed = append(j.ev.Closed, j.curSeg)
	j.cur, j.ev.Current = nil, ""
}

// rotate closes the current segment, drops the oldest closed ones beyond
// Options.Segments and writes the evidence, then deletes their files. If
// the evidence cannot be written it stays pending (the old evidence still
// names the files, which stay until it is written).
func (j *Journal) rotate() {
	j.closeSegment()
	for len(j.ev.Closed) > j.opt.Segments {
		j.drop = append(j.drop, j.ev.Closed[0].Name)
		j.ev.RetainedAfter = max(j.ev.RetainedAfter, j.ev.Closed[0].Last)
		j.ev.Closed = j.ev.Closed[1:]
	}
	// A lost range below what was rotated away tells a cursor nothing more.
	for len(j.ev.Lost) > 0 && j.ev.Lost[0].Last <= j.ev.RetainedAfter {
		j.ev.Lost = j.ev.Lost[1:]
	}
	j.dirty = true
	_ = j.Flush()
}

// Read returns the journaled events with after < seq ≤ through, in seq
// order, at most max of them (more is an error).
func (j *Journal) Read(after, through int64, limit int) ([]Record, error) {
	var names []string
	for _, s := range j.ev.Closed {
		if s.Last > after && s.First <= through {
			names = append(names, s.Name)
		}
	}
	if j.cur != nil && j.curSeg.Last > after {
		names = append(names, j.curSeg.Name)
	}
	var out []Record
	for _, name := range names {
		recs, _, _, err := readSegment(filepath.Join(j.dir, name))
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			if r.Seq > after && r.Seq <= through {
				if len(out) == limit {
					return nil, fmt.Errorf("journal: more than %d events after %d", limit, after)
				}
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// Close closes the current segment file (its contents stay current).
func (j *Journal) Close() error {
	if j.cur == nil {
		return nil
	}
	err := j.cur.Close()
	j.cur = nil
	return err
}

func (j *Journal) writeEvidence() error {
	b, err := json.MarshalIndent(j.ev, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(j.dir, evidenceFile, append(b, '\n'))
}

// segmentFiles lists the segment files in seq order.
func (j *Journal) segmentFiles() ([]string, error) {
	ents, err := os.ReadDir(j.dir)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	var out []string
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, segPrefix) && strings.HasSuffix(n, segSuffix) && e.Type().IsRegular() {
			out = append(out, n)
		}
	}
	sort.Strings(out) // zero-padded first seq: lexical order is seq order
	return out, nil
}

func segFirst(name string) int64 {
	n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(name, segPrefix), segSuffix), 10, 64)
	return n
}

// readSegment parses a segment: its records, what is torn ("" if nothing:
// a last line without its newline, a line that does not parse, seqs not
// increasing) and its length.
func readSegment(path string) (recs []Record, torn string, n int64, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", 0, fmt.Errorf("journal: %w", err)
	}
	n = int64(len(data))
	r := bufio.NewReader(bytes.NewReader(data))
	last := int64(-1)
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			if len(line) > 0 {
				return recs, fmt.Sprintf("a torn tail of %d bytes", len(line)), n, nil
			}
			return recs, "", n, nil
		}
		var rec Record
		if json.Unmarshal(line, &rec) != nil {
			return recs, "a line that does not parse", n, nil
		}
		if rec.Seq <= last {
			return recs, fmt.Sprintf("seq %d after %d", rec.Seq, last), n, nil
		}
		last = rec.Seq
		recs = append(recs, rec)
	}
}

func hashFile(path string) (int64, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return n, hex.EncodeToString(h.Sum(nil)), err
}

// readSeq reads the sequence file: "<bound>", or "<bound> lost_from
// <seq>" while a lost range is not yet in the evidence; either may be
// padded with spaces.
func readSeq(path string) (bound, lostFrom int64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return -1, 0, err
	}
	f := strings.Fields(string(b))
	bad := fmt.Errorf("%q is not a sequence number", strings.TrimSpace(string(b)))
	if len(f) != 1 && (len(f) != 3 || f[1] != "lost_from") {
		return -1, 0, bad
	}
	v, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || v < 0 {
		return -1, 0, bad
	}
	if len(f) == 3 {
		if lostFrom, err = strconv.ParseInt(f[2], 10, 64); err != nil || lostFrom <= 0 {
			return -1, 0, bad
		}
	}
	return v, lostFrom, nil
}

// writeAtomic replaces dir/name with data: temporary file, fsync, rename,
// directory fsync.
func writeAtomic(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return fmt.Errorf("journal: write %s: %w", name, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("journal: write %s: %w", name, err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("journal: sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("journal: sync %s: %w", dir, err)
	}
	return nil
}

// Break records that the history through seq cannot be proven complete
// (events were issued that are not in the journal) and writes the evidence.
// Appends continue above seq.
func (j *Journal) Break(through int64, why string) error {
	j.problem(through, "%s", why)
	j.head = max(j.head, through)
	j.dirty = true
	return j.Flush()
}

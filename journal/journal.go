package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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

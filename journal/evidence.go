package journal

import (
	"encoding/json"
	"os"
	"path/filepath"
)

type evidence struct {
	Version       int       `json:"version"`
	RetainedAfter int64     `json:"retained_after"`
	BrokenThrough int64     `json:"broken_through"`
	Lost          []Range   `json:"lost,omitempty"`
	Closed        []segment `json:"closed"`
	Current       string    `json:"current,omitempty"`
}

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

func (j *Journal) writeEvidence() error {
	b, err := json.MarshalIndent(j.ev, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(j.dir, evidenceFile, append(b, '\n'))
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

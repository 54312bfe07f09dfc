package journal

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func open(t *testing.T, dir string, opt Options) *Journal {
	t.Helper()
	j, err := Open(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

// appendN appends n events after the head, one batch each.
func appendN(t *testing.T, j *Journal, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		seq := j.head + 1
		if seq > j.Reserved() {
			if err := j.Reserve(j.Reserved() + j.Lease()); err != nil {
				t.Fatal(err)
			}
		}
		data, _ := json.Marshal(map[string]any{"i": seq})
		if err := j.Append([]Record{{Seq: seq, Source: "s", Type: "pane.created", Resource: "p", Time: time.Now(), Data: data}}); err != nil {
			t.Fatal(err)
		}
	}
}

func seqs(recs []Record) []int64 {
	var out []int64
	for _, r := range recs {
		out = append(out, r.Seq)
	}
	return out
}

func TestNumbersNeverReusedAfterReopen(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir, Options{Lease: 10})
	if j.Base() != 0 || j.Reserved() != 10 {
		t.Fatalf("fresh journal: base %d reserved %d", j.Base(), j.Reserved())
	}
	appendN(t, j, 3)
	j.Close() // a crash: numbers 4..10 were reserved but never used
	j2 := open(t, dir, Options{Lease: 10})
	if j2.Base() != 10 || j2.Reserved() != 20 {
		t.Fatalf("reopened: base %d reserved %d, want 10 and 20 (the old lease is skipped)", j2.Base(), j2.Reserved())
	}
	if len(j2.Problems()) != 0 {
		t.Fatalf("problems after a clean reopen: %v", j2.Problems())
	}
	if _, bt, _ := j2.Coverage(); bt != 0 {
		t.Fatalf("broken through %d after a clean reopen", bt)
	}
}

func TestRotationKeepsSegmentsAndAdvancesRetained(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir, Options{SegmentBytes: 500, Segments: 2})
	appendN(t, j, 60)
	ra, bt, head := j.Coverage()
	if head != 60 || bt != 0 || ra == 0 {
		t.Fatalf("coverage: retained after %d, broken %d, head %d", ra, bt, head)
	}
	files, _ := j.segmentFiles()
	if len(files) > 3 {
		t.Fatalf("%d segment files, want at most 2 closed + 1 current", len(files))
	}
	recs, err := j.Read(ra, head, 1000)
	if err != nil || len(recs) != int(head-ra) || recs[0].Seq != ra+1 {
		t.Fatalf("read (%d, %d]: %v %v", ra, head, seqs(recs), err)
	}
	j.Close()
	j2 := open(t, dir, Options{SegmentBytes: 500, Segments: 2})
	if p := j2.Problems(); len(p) != 0 {
		t.Fatalf("problems: %v", p)
	}
}

func TestTornTailBreaksHistory(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir, Options{})
	appendN(t, j, 5)
	name := j.curSeg.Name
	j.Close()
	f, _ := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"seq":6,"sou`) // a crash in the middle of a write
	f.Close()
	j2 := open(t, dir, Options{})
	if _, bt, _ := j2.Coverage(); bt < 5 || len(j2.Problems()) == 0 {
		t.Fatalf("torn tail: broken through %d, problems %v", bt, j2.Problems())
	}
	appendN(t, j2, 2) // a new segment: the torn one is kept as it is
	j2.Close()
	j3 := open(t, dir, Options{})
	if _, bt, _ := j3.Coverage(); bt < 5 {
		t.Fatalf("the break was forgotten: broken through %d", bt)
	}
	if p := j3.Problems(); len(p) != 0 {
		t.Fatalf("the torn segment was reported again: %v", p)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, name)); !strings.HasSuffix(string(b), `"sou`) {
		t.Fatal("the torn segment was rewritten")
	}
}

func TestMissingOrChangedSegmentBreaksHistory(t *testing.T) {
	for _, damage := range []string{"delete", "truncate", "corrupt evidence"} {
		t.Run(damage, func(t *testing.T) {
			dir := t.TempDir()
			j := open(t, dir, Options{SegmentBytes: 300, Segments: 5})
			appendN(t, j, 30)
			closed := j.ev.Closed[0]
			j.Close()
			path := filepath.Join(dir, closed.Name)
			switch damage {
			case "delete":
				os.Remove(path)
			case "truncate":
				os.Truncate(path, closed.Bytes-1)
			case "corrupt evidence":
				os.WriteFile(filepath.Join(dir, evidenceFile), []byte("{not json"), 0o600)
			}
			j2 := open(t, dir, Options{SegmentBytes: 300, Segments: 5})
			_, bt, _ := j2.Coverage()
			if bt < closed.Last || len(j2.Problems()) == 0 {
				t.Fatalf("%s: broken through %d (segment ends at %d), problems %v", damage, bt, closed.Last, j2.Problems())
			}
			if j2.Base() < 30 {
				t.Fatalf("%s: base %d went below the highest number issued", damage, j2.Base())
			}
		})
	}
}

func TestReadLimit(t *testing.T) {
	j := open(t, t.TempDir(), Options{})
	appendN(t, j, 10)
	if _, err := j.Read(0, 10, 5); err == nil {
		t.Fatal("a read of 10 events with a limit of 5 succeeded")
	}
	recs, err := j.Read(7, 10, 5)
	if err != nil || len(recs) != 3 || recs[0].Seq != 8 {
		t.Fatalf("read (7, 10]: %v %v", seqs(recs), err)
	}
}

func TestAppendOutsideReservationRefused(t *testing.T) {
	j := open(t, t.TempDir(), Options{Lease: 2})
	appendN(t, j, 2)
	if err := j.Append([]Record{{Seq: 3, Data: json.RawMessage("{}")}}); err == nil {
		t.Fatal("an event beyond the reservation was written")
	}
}

// smallFS mounts a tmpfs of 256 KiB for a journal (root only) and returns
// the journal's directory and a function filling the file system up.
func smallFS(t *testing.T) (dir string, fill func() (free func())) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	mnt := t.TempDir()
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=256k"); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(mnt, unix.MNT_DETACH) })
	filler := filepath.Join(mnt, "filler")
	return filepath.Join(mnt, "events"), func() func() {
		f, err := os.Create(filler)
		if err != nil {
			t.Fatal(err)
		}
		for buf := make([]byte, 4096); ; {
			if _, err := f.Write(buf); err != nil {
				break
			}
		}
		f.Close()
		return func() { os.Remove(filler) }
	}
}

func rec(seq int64) Record {
	return Record{Seq: seq, Source: "s", Type: "pane.created", Resource: "p", Time: time.Now(), Data: json.RawMessage(`{}`)}
}

// Segments of one batch each: every batch after the fill needs a new file.
var batchSegments = Options{SegmentBytes: 1, Segments: 1000}

func TestBatchesThatCannotBeWrittenBecomeOneLostRange(t *testing.T) {
	dir, fill := smallFS(t)
	j := open(t, dir, batchSegments)
	appendN(t, j, 2)
	free := fill()
	for _, b := range [][]Record{{rec(3), rec(4)}, {rec(6)}} {
		if err := j.Append(b); err == nil {
			t.Fatalf("an append to a full file system succeeded")
		}
	}
	if err := j.Flush(); err == nil || !j.Pending() {
		t.Fatalf("flush on a full file system: %v, pending %v", err, j.Pending())
	}
	if got := j.Lost(); len(got) != 1 || got[0] != (Range{3, 6}) {
		t.Fatalf("lost %+v, want 3..6", got)
	}
	free()
	if err := j.Append([]Record{rec(7)}); err != nil {
		t.Fatalf("an append once space returned: %v", err)
	}
	if j.Pending() {
		t.Fatal("the lost range is still not written")
	}
	j.Close()
	j = open(t, dir, batchSegments)
	if got := j.Lost(); len(got) != 1 || got[0] != (Range{3, 6}) || len(j.Problems()) > 0 {
		t.Fatalf("after reopening: lost %+v, problems %v", got, j.Problems())
	}
	recs, err := j.Read(0, 100, 100)
	if err != nil || len(recs) != 3 || recs[2].Seq != 7 {
		t.Fatalf("read: %v %v", seqs(recs), err)
	}
}

func TestLostRangeNotYetInTheEvidenceSurvivesAStop(t *testing.T) {
	dir, fill := smallFS(t)
	j := open(t, dir, batchSegments)
	appendN(t, j, 2)
	free := fill()
	if err := j.Append([]Record{rec(3)}); err == nil {
		t.Fatal("an append to a full file system succeeded")
	}
	reserved := j.Reserved()
	j.Close() // the evidence never got the range
	free()
	j = open(t, dir, batchSegments)
	if got := j.Lost(); len(got) != 1 || got[0] != (Range{3, reserved}) {
		t.Fatalf("after reopening: lost %+v, want 3..%d", got, reserved)
	}
	if j.Pending() {
		t.Fatal("the recovered range was not written")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, seqFile)); strings.Contains(string(b), "lost_from") {
		t.Fatalf("the sequence file still marks the range: %q", b)
	}
}

func TestOpenOnAFullFileSystemReservesInPlace(t *testing.T) {
	dir, fill := smallFS(t)
	j := open(t, dir, batchSegments)
	appendN(t, j, 2)
	j.Close()
	defer fill()()
	j = open(t, dir, batchSegments)
	if j.Reserved() <= j.Base() {
		t.Fatalf("reserved %d, base %d", j.Reserved(), j.Base())
	}
	if v, _, err := readSeq(filepath.Join(dir, seqFile)); err != nil || v != j.Reserved() {
		t.Fatalf("sequence file %d (%v), reserved %d", v, err, j.Reserved())
	}
	if b, _ := os.ReadFile(filepath.Join(dir, seqFile)); len(b) != 64 {
		t.Fatalf("the sequence file was replaced, not overwritten in place: %q", b)
	}
}

func TestRotationForgetsLostRangesItRotatedPast(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir, Options{SegmentBytes: 1, Segments: 2})
	appendN(t, j, 2)
	j.MarkLost(Range{First: 3, Last: 4})
	if got := j.Lost(); len(got) != 1 || got[0] != (Range{3, 4}) {
		t.Fatalf("lost %+v", got)
	}
	appendN(t, j, 3) // 5, 6, 7: one segment each, the oldest rotated away
	if retained, _, _ := j.Coverage(); retained < 4 {
		t.Fatalf("retained after %d, want at least 4", retained)
	}
	if got := j.Lost(); len(got) != 0 {
		t.Fatalf("lost %+v after rotating past it", got)
	}
}

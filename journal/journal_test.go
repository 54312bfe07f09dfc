package journal

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

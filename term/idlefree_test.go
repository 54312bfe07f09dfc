package term

import (
	"bytes"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// watchForTest is a watch whose timer never fires by itself (the test calls
// fire), with a clock the test moves, a decision the test sets and no
// allocation seen but the test's own (allocate).
type testWatch struct {
	*idleWatch
	now    time.Time
	allocd uint64
}

func (w *testWatch) allocate(n uint64) { w.allocd += n }

func watchForTest(worth *bool) (*testWatch, *time.Time) {
	tw := &testWatch{idleWatch: &idleWatch{period: time.Hour}, now: time.Unix(1000, 0)}
	w := tw.idleWatch
	w.now = func() time.Time { return tw.now }
	w.worth = func() bool { return *worth }
	w.allocd = func() uint64 { return tw.allocd }
	w.free = func() {}
	return tw, &tw.now
}

func (w *idleWatch) state() (armed bool, frees, fires int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.armed, w.frees, w.fires
}

func (w *idleWatch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
	}
}

func TestIdleFreeWaitsForAQuietPeriodThenFreesAndDisarms(t *testing.T) {
	worth := true
	w, _ := watchForTest(&worth)
	defer w.stop()
	w.noteOutput()
	if armed, _, _ := w.state(); !armed {
		t.Fatal("output did not arm the watch")
	}
	w.noteOutput() // more output in the same period
	w.fire()
	if armed, frees, _ := w.state(); !armed || frees != 0 {
		t.Fatalf("after a period with output: armed %v, frees %d; want armed, no free", armed, frees)
	}
	w.fire() // a whole period without output
	if armed, frees, _ := w.state(); armed || frees != 1 {
		t.Fatalf("after a quiet period: armed %v, frees %d; want disarmed (no timer), one free", armed, frees)
	}
}

func TestIdleFreeWaitsWhileTheHeapGrowsWithoutOutput(t *testing.T) {
	worth := true
	w, _ := watchForTest(&worth)
	defer w.stop()
	w.noteOutput()
	w.fire()
	w.allocate(idleFreeBusy) // a save, say, after the output
	w.fire()
	if armed, frees, _ := w.state(); !armed || frees != 0 {
		t.Fatalf("after a period of allocation: armed %v, frees %d; want armed, no free", armed, frees)
	}
	w.fire()
	if armed, frees, _ := w.state(); armed || frees != 1 {
		t.Fatalf("after a quiet period: armed %v, frees %d; want disarmed, one free", armed, frees)
	}
}

func TestIdleFreeSkipsWhenLittleWouldComeBack(t *testing.T) {
	worth := false
	w, _ := watchForTest(&worth)
	defer w.stop()
	w.noteOutput()
	w.fire()
	w.fire()
	if armed, frees, _ := w.state(); armed || frees != 0 {
		t.Fatalf("armed %v, frees %d; want disarmed, no free", armed, frees)
	}
}

func TestIdleFreeFreesAtMostOncePerInterval(t *testing.T) {
	worth := true
	w, now := watchForTest(&worth)
	defer w.stop()
	w.noteOutput()
	w.fire()
	w.fire()
	*now = now.Add(idleFreeInterval / 2) // a second burst soon after the first free
	w.noteOutput()
	w.fire()
	w.fire()
	if armed, frees, _ := w.state(); !armed || frees != 1 {
		t.Fatalf("second quiet period within the interval: armed %v, frees %d; want armed (waiting out the interval), one free", armed, frees)
	}
	*now = now.Add(idleFreeInterval)
	w.fire()
	if armed, frees, _ := w.state(); armed || frees != 2 {
		t.Fatalf("after the interval: armed %v, frees %d; want disarmed, two frees", armed, frees)
	}
}

func TestIdleFreeOffNeverArms(t *testing.T) {
	worth := true
	w, _ := watchForTest(&worth)
	defer w.stop()
	w.off = true
	w.noteOutput()
	if armed, _, _ := w.state(); armed {
		t.Fatal("a watch turned off armed its timer")
	}
}

func TestReclaimableCountsUncollectedGarbage(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	runtime.GC()
	before, _ := reclaimable()
	var keep [][]byte
	for range 64 {
		keep = append(keep, make([]byte, 1<<20))
	}
	keep = nil
	runtime.KeepAlive(keep)
	after, _ := reclaimable()
	if after < before+32<<20 {
		t.Fatalf("reclaimable went from %d to %d bytes after dropping 64 MiB; want at least 32 MiB more", before, after)
	}
}

// The process's watch, through Terminal.Write: output arms it and, once
// quiet, it disarms, leaving no timer.
func TestTerminalOutputArmsTheIdleFreeWatchUntilQuiet(t *testing.T) {
	term := NewTerminal(Config{Cols: 80, Rows: 24})
	defer term.Close()
	_, _, fires0 := shared.idle.state()
	term.Write([]byte("hello\r\n"))
	if armed, _, _ := shared.idle.state(); !armed {
		t.Fatal("output did not arm the watch")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		armed, _, fires := shared.idle.state()
		if !armed && fires > fires0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watch is still armed (fired %d times) long after the output", fires-fires0)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// What Terminal.Write pays per call for the watch while output continues.
func BenchmarkIdleFreeNoteOutput(b *testing.B) {
	worth := false
	w, _ := watchForTest(&worth)
	defer w.stop()
	w.noteOutput()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w.noteOutput()
	}
}

// What one firing of the timer costs when it looks at the heap: the
// allocation counter and the decision (runtime/metrics reads).
func BenchmarkIdleFreeDecision(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = heapAllocs()
		_ = worthFreeing()
	}
}

// What one free costs (a collection of the live heap, then returning the
// free pages) with 20 terminals of 10,000 history rows of 80 columns.
func BenchmarkIdleFreeFreeOSMemoryFullHistories(b *testing.B) {
	var terms []*Terminal
	row := make([]byte, 0, 82)
	for i := range 80 {
		row = append(row, byte('a'+i%26))
	}
	row = append(row, '\r', '\n')
	chunk := bytes.Repeat(row, 100)
	for range 20 {
		t := NewTerminal(Config{Cols: 80, Rows: 24, HistoryRows: 10000})
		for range 101 {
			t.Write(chunk)
		}
		terms = append(terms, t)
	}
	defer func() {
		for _, t := range terms {
			t.Close()
		}
	}()
	debug.FreeOSMemory()
	b.ResetTimer()
	for b.Loop() {
		debug.FreeOSMemory()
	}
	_, live := reclaimable()
	b.ReportMetric(float64(live)/(1<<20), "live-MiB")
}

package runs

import (
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/signaltty/signaltty/pty"
)

// BenchmarkCompleteRunRetained256: completing one run while the default
// 256 completed records are retained, so each completion evicts the
// oldest (docs/run-wait.md, "Retention"). No process is started: this is
// the bookkeeping alone.
func BenchmarkCompleteRunRetained256(b *testing.B) {
	t := NewTable("bench", slog.New(slog.NewTextHandler(io.Discard, nil)), func() {})
	zero := 0
	n := 0
	complete := func() {
		rec := &Record{n: int64(n), id: fmt.Sprintf("r%d", n), key: fmt.Sprint("k", n), state: StateRunning,
			startedAt: time.Now(), done: make(chan struct{})}
		n++
		t.runs[rec.id] = rec
		t.order = append(t.order, rec)
		t.Complete(rec, pty.ExitStatus{Code: &zero}, &Output{bytes: 100})
		t.Wake(rec)
	}
	for range DefaultConfig.RetainCount {
		complete()
	}
	for b.Loop() {
		complete()
	}
	b.StopTimer()
	if got := len(t.runs); got != DefaultConfig.RetainCount {
		b.Fatalf("%d records retained, want %d", got, DefaultConfig.RetainCount)
	}
	for _, r := range t.order {
		r.expiry.Stop()
	}
}

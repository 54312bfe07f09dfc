package service

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
	s := New(Config{Version: "bench", Address: "unix:/nonexistent", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	zero := 0
	n := 0
	complete := func() {
		rec := &run{n: int64(n), id: fmt.Sprintf("r%d", n), key: fmt.Sprint("k", n), state: RunStateRunning,
			startedAt: time.Now(), done: make(chan struct{})}
		n++
		s.mu.Lock()
		s.runs.runs[rec.id] = rec
		s.runs.order = append(s.runs.order, rec)
		s.completeRun(rec, pty.ExitStatus{Code: &zero}, &RunOutput{bytes: 100})
		s.mu.Unlock()
	}
	for range DefaultRunConfig.RetainCount {
		complete()
	}
	for b.Loop() {
		complete()
	}
	b.StopTimer()
	s.mu.Lock()
	if got := len(s.runs.runs); got != DefaultRunConfig.RetainCount {
		b.Fatalf("%d records retained, want %d", got, DefaultRunConfig.RetainCount)
	}
	for _, r := range s.runs.order {
		r.expiry.Stop()
	}
	s.mu.Unlock()
}

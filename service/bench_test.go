package service

import (
	"context"
	"fmt"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/signaltty/signaltty/snapshot"
)

// Benchmarks of the service layer alone (no varlink): the run path and a
// verb over many panes. tests/bench/compare measures the same through the
// daemon and its clients.

func newBenchService(b *testing.B) *Service {
	b.Helper()
	s := New(Config{Version: "bench", Address: "unix:/nonexistent", Environ: os.Environ()})
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return s
}

// BenchmarkRunTrue: Runs.Start of `true`, Runs.Wait until it completed (with
// its output), RemovePane; compare pty's BenchmarkStartTrue (the floor).
func BenchmarkRunTrue(b *testing.B) { benchRunTrue(b, newBenchService(b)) }

// benchRunTrue times Runs.Start of `true`, Runs.Wait and RemovePane on s.
func benchRunTrue(b *testing.B, s *Service) {
	w, err := s.CreateWorkspace("bench", "")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	i := 0
	for b.Loop() {
		st, err := s.Runs().Start(ctx, RunRequest{Key: fmt.Sprint("k", i), Workspace: w.ID, Argv: []string{"true"}})
		if err != nil {
			b.Fatal(err)
		}
		rec, err := s.Runs().Wait(ctx, st.Run, -1, true)
		if err != nil || rec.Status == nil || *rec.Status != 0 {
			b.Fatal(rec, err)
		}
		if err := s.RemovePane(ctx, st.Pane, true); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkListPanes1000: ListPanes over 1000 live idle panes.
func BenchmarkListPanes1000(b *testing.B) {
	s := newBenchService(b)
	w, err := s.CreateWorkspace("bench", "")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		if _, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sleep", "1000"}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		ps, err := s.ListPanes("", "")
		if err != nil || len(ps) != 1000 {
			b.Fatal(len(ps), err)
		}
	}
}

// BenchmarkSave1000: Server.Save of 1000 live idle panes (export under
// s.mu, encoding, snapshot.json written and fsynced) when nothing changed
// since the last save, and when one pane did.
func BenchmarkSave1000(b *testing.B) {
	s := newBenchService(b)
	s.Persistence().Start(snapshot.Open(b.TempDir()), 0)
	b.Cleanup(s.Persistence().Stop)
	ids, _ := spawnIdlePanes(b, s, 1000)
	if _, err := s.Persistence().Save("bench"); err != nil {
		b.Fatal(err)
	}
	b.Run("unchanged", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b)()
		var lat latencies
		for b.Loop() {
			t0 := time.Now()
			if _, err := s.Persistence().Save("bench"); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
		lat.report(b)
	})
	b.Run("one-changed", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b)()
		var lat latencies
		defer func() { lat.report(b) }()
		i := 0
		for b.Loop() {
			if _, err := s.ResizePane(ids[i%len(ids)], 80+i%2, 24); err != nil {
				b.Fatal(err)
			}
			t0 := time.Now()
			if _, err := s.Persistence().Save("bench"); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
			i++
		}
	})
}

// reportCPU reports, when the returned function is called, the process's
// CPU time (user and system, all threads) per op since reportCPU was:
// what an op costs the daemon apart from waiting for the disk.
func reportCPU(b *testing.B) func() {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	return func() {
		b.ReportMetric(float64((cpu()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// latencies are the wall times of a benchmark's ops.
type latencies []time.Duration

// report reports the p50 and p99 of the ops, in ns.
func (l latencies) report(b *testing.B) {
	if len(l) == 0 {
		return
	}
	slices.Sort(l)
	b.ReportMetric(float64(l[len(l)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(l[len(l)*99/100].Nanoseconds()), "p99-ns")
}

// BenchmarkSpawnPaneAmong3000: SpawnPane (and its RemovePane) in a daemon
// that already has 3000 live idle panes: what a spawn costs that grows with
// the panes there are.
func BenchmarkSpawnPaneAmong3000(b *testing.B) {
	s := newBenchService(b)
	_, ws := spawnIdlePanes(b, s, 3000)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		p, err := s.SpawnPane(SpawnRequest{Workspace: ws, Argv: []string{"sleep", "1000"}})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.RemovePane(ctx, p.ID, true); err != nil {
			b.Fatal(err)
		}
	}
}

// spawnIdlePanes spawns n panes of `sleep 1000` in workspaces of 100; it
// returns their ids and the last workspace.
func spawnIdlePanes(b *testing.B, s *Service, n int) (ids []string, ws string) {
	for i := 0; i < n; i++ {
		if i%100 == 0 {
			w, err := s.CreateWorkspace("bench", "")
			if err != nil {
				b.Fatal(err)
			}
			ws = w.ID
		}
		p, err := s.SpawnPane(SpawnRequest{Workspace: ws, Argv: []string{"sleep", "1000"}})
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	return ids, ws
}

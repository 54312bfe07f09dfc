package service

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// BenchmarkFirstSendInput1000: the first SendInput to each of 1,000 live
// panes that printed nothing yet (so the echo of that input is the first
// output their terminal emulates), with the emulator pool on and off; it
// reports the p50 and p99 latency of SendInput. Run with as many
// iterations as panes:
//
//	go test -run '^$' -bench FirstSendInput1000 -benchtime 1000x ./service/
func BenchmarkFirstSendInput1000(b *testing.B) {
	for _, pooled := range []bool{true, false} {
		b.Run(fmt.Sprintf("pool=%v", pooled), func(b *testing.B) {
			s := newBenchService(b)
			s.memory.SetPool(pooled)
			w, err := s.CreateWorkspace("bench", "")
			if err != nil {
				b.Fatal(err)
			}
			const panes = 1000
			ids := make([]string, panes)
			for i := range ids {
				p, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"cat"}})
				if err != nil {
					b.Fatal(err)
				}
				ids[i] = p.ID
			}
			ctx := context.Background()
			var lat []time.Duration
			i := 0
			for b.Loop() {
				t0 := time.Now()
				if _, err := s.SendInput(ctx, ids[i%panes], []byte("x\n")); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
				i++
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}

package service

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/signaltty/signaltty/snapshot"
	"github.com/signaltty/signaltty/term"
)

// BenchmarkSavePrinted1000: Server.Save of 1000 live panes of which 100
// printed 4096 rows and print one more row before every save, so that each
// save writes those 100 tails. "time" is the save alone; "heap" reports
// peak-heap-B, the most heap object bytes seen above the level just
// before the save (sampled every 20 µs by another goroutine, after a GC,
// with GOGC=1): what a save adds to the daemon's live heap at its worst;
// peak-live-B is the same for the heap the collector last found live
// (which counts what was allocated during its cycle as live).
func BenchmarkSavePrinted1000(b *testing.B) {
	s := newBenchService(b)
	s.Persistence().Start(snapshot.Open(b.TempDir()), 0)
	b.Cleanup(s.Persistence().Stop)
	var printed []*term.Terminal
	ids, _ := spawnIdlePanes(b, s, 1000)
	for i, id := range ids {
		if i%10 == 0 {
			s.mu.Lock()
			t := s.panes[id].term
			s.mu.Unlock()
			printed = append(printed, t)
		}
	}
	var out strings.Builder
	for r := 0; r < 4096; r++ {
		fmt.Fprintf(&out, "%05d %s\r\n", r, strings.Repeat("x", 70))
	}
	for _, t := range printed {
		t.Write([]byte(out.String()))
	}
	if _, err := s.Persistence().Save("bench"); err != nil {
		b.Fatal(err)
	}
	n := 0
	printMore := func() {
		for _, t := range printed {
			t.Write([]byte(fmt.Sprintf("save %d %s\r\n", n, strings.Repeat("y", 70))))
		}
		n++
	}
	b.Run("time", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			printMore()
			b.StartTimer()
			res, err := s.Persistence().Save("bench")
			if err != nil || res.TailsWritten != len(printed) {
				b.Fatal(res.TailsWritten, err)
			}
		}
	})
	b.Run("heap", func(b *testing.B) {
		// With GOGC=1 a GC starts as soon as the heap grows 1% over what
		// the last one left live, so the heap in use follows the live
		// bytes closely (the daemon holds the terminals' history: 1% of
		// it is the error).
		defer debug.SetGCPercent(debug.SetGCPercent(1))
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
		heap := func() (objects, live uint64) {
			metrics.Read(sample)
			return sample[0].Value.Uint64(), sample[1].Value.Uint64()
		}
		var peak, peakLive uint64
		for b.Loop() {
			b.StopTimer()
			printMore()
			runtime.GC()
			base, baseLive := heap()
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var max, maxLive uint64
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					h, l := heap()
					if h > max {
						max = h
					}
					if l > maxLive {
						maxLive = l
					}
					select {
					case <-stop:
						return
					case <-time.After(20 * time.Microsecond):
					}
				}
			}()
			b.StartTimer()
			res, err := s.Persistence().Save("bench")
			b.StopTimer()
			close(stop)
			wg.Wait()
			if err != nil || res.TailsWritten != len(printed) {
				b.Fatal(res.TailsWritten, err)
			}
			if max > base && max-base > peak {
				peak = max - base
			}
			if maxLive > baseLive && maxLive-baseLive > peakLive {
				peakLive = maxLive - baseLive
			}
			b.StartTimer()
		}
		b.ReportMetric(float64(peak), "peak-heap-B")
		b.ReportMetric(float64(peakLive), "peak-live-B")
	})
}

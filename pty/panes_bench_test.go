package pty

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/signaltty/signaltty/term"
	"golang.org/x/sys/unix"
)

// BenchmarkPanesPrinting measures many panes printing at once: each runs
// `seq 1 200000` (1.3 MB) on 80×24 until every pane is done (its output
// emulated and stored). On a machine with few cores this is CPU per byte
// of the whole output path.
func BenchmarkPanesPrinting(b *testing.B) {
	for _, n := range []int{10, 100} {
		b.Run(fmt.Sprintf("panes=%d", n), func(b *testing.B) {
			b.SetBytes(int64(n) * seqBytes(200000))
			u0 := selfUsage(b)
			for b.Loop() {
				panes := make([]*Process, n)
				for i := range panes {
					p, err := startTerm(Config{Argv: []string{"seq", "1", "200000"}, Env: testEnv, Dir: "/", Cols: 80, Rows: 24}, term.Config{})
					if err != nil {
						b.Fatal(err)
					}
					panes[i] = p
				}
				var wg sync.WaitGroup
				for _, p := range panes {
					wg.Go(func() {
						<-p.Done()
						p.Close()
					})
				}
				wg.Wait()
			}
			reportUsage(b, u0, selfUsage(b))
		})
	}
}

// selfUsage returns the resources the benchmark process (not its children)
// used so far.
func selfUsage(b *testing.B) unix.Rusage {
	var u unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return u
}

// reportUsage reports the CPU time and context switches of the process
// (the panes' output paths, not their programs) per operation.
func reportUsage(b *testing.B, u0, u1 unix.Rusage) {
	cpu := time.Duration(u1.Utime.Nano()+u1.Stime.Nano()-u0.Utime.Nano()-u0.Stime.Nano()) / time.Duration(b.N)
	b.ReportMetric(float64(cpu.Nanoseconds())/1e6, "cpu-ms/op")
	b.ReportMetric(float64(u1.Nvcsw+u1.Nivcsw-u0.Nvcsw-u0.Nivcsw)/float64(b.N), "ctxsw/op")
}

// seqBytes is the length of the output of `seq 1 n`.
func seqBytes(n int) int64 {
	total, digits, next := int64(0), int64(1), 10
	for i := 1; i <= n; i++ {
		if i == next {
			digits++
			next *= 10
		}
		total += digits + 1
	}
	return total
}

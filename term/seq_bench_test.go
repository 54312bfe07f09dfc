package term

import (
	"syscall"
	"testing"
	"time"
)

// BenchmarkTerminalSeqDaemon feeds seq lines ("N\r\n", as a PTY's output
// processing makes them) to an 80×24 terminal configured as the daemon
// configures a pane's: a row budget shared with other panes and an idle
// parker. chunk27k is what a pane's reader hands over per read on average
// under `cat` of seq lines (tests/bench: 2,000,000 lines, 540 reads).
func BenchmarkTerminalSeqDaemon(b *testing.B) {
	data := seqData(1, 1000000)
	for _, bc := range []struct {
		name  string
		chunk int
	}{{"chunk4k", 4096}, {"chunk27k", 27 << 10}} {
		b.Run(bc.name, func(b *testing.B) {
			budget := NewRowBudget(1 << 30)
			parker := NewParker(time.Hour)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			c0 := cpuTime(b)
			for b.Loop() {
				term := NewTerminal(Config{Cols: 80, Rows: 24, Budget: budget, Parker: parker})
				writeChunks(term, data, bc.chunk)
				term.Close()
			}
			b.ReportMetric(float64((cpuTime(b)-c0).Microseconds())/1e3/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuTime is the CPU time the process used so far (user and system, all
// threads: the collector's included).
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

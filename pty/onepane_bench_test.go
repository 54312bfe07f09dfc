package pty

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/signaltty/signaltty/term"
	"golang.org/x/sys/unix"
)

// BenchmarkOnePaneCat measures one pane's whole output path on the
// benchmark table's inputs (tests/bench: `cat FILE` of 2,000,000 `seq`
// lines, 14.9 MB, and of 15 MB of lines exactly as wide as the screen),
// from the start until the pane is done (its output emulated and stored).
// The pane's rows join a row budget, as the daemon's do. floor is the seq
// input on a PTY whose master is read and discarded (the kernel's and
// cat's share); the cpu-ms and ctxsw figures are the benchmark process's
// own (not cat's).
func BenchmarkOnePaneCat(b *testing.B) {
	budget := term.NewRowBudget(1 << 30)
	dir := b.TempDir()
	seq := writeLines(b, dir, "seq", 2000000, func(i int) string { return strconv.Itoa(i + 1) })
	for _, sz := range []struct{ cols, rows int }{{80, 24}, {200, 50}} {
		full := writeLines(b, dir, fmt.Sprint("full", sz.cols), 15000000/(sz.cols+1), func(i int) string {
			line := fmt.Sprintf("%09d ", i)
			for k := i; len(line) < sz.cols; k++ {
				line += string(rune('a' + k%26))
			}
			return line[:sz.cols]
		})
		for _, in := range []struct {
			name string
			file string
		}{{"seq", seq}, {"full", full}} {
			b.Run(fmt.Sprintf("%s/%dx%d", in.name, sz.cols, sz.rows), func(b *testing.B) {
				size := fileSize(b, in.file)
				b.SetBytes(size)
				u0, c0, a0 := selfUsage(b), childUsage(b), allCPU(b)
				for b.Loop() {
					p, err := startTerm(Config{Argv: []string{"cat", in.file}, Env: testEnv, Dir: "/", Cols: sz.cols, Rows: sz.rows}, term.Config{Budget: budget})
					if err != nil {
						b.Fatal(err)
					}
					<-p.Done()
					if got := p.Offset(); got < size {
						b.Fatalf("emulated %d bytes, want ≥ %d", got, size)
					}
					p.Close()
				}
				reportUsage(b, u0, selfUsage(b))
				reportOthers(b, c0, a0)
				reportSwitches(b, u0)
			})
		}
	}
	b.Run("floor", func(b *testing.B) {
		b.SetBytes(fileSize(b, seq))
		u0, c0, a0 := selfUsage(b), childUsage(b), allCPU(b)
		reads := 0
		for b.Loop() {
			reads += discardOutput(b, seq)
		}
		reportUsage(b, u0, selfUsage(b))
		reportOthers(b, c0, a0)
		reportSwitches(b, u0)
		b.ReportMetric(float64(reads)/float64(b.N), "reads/op")
	})
}

// discardOutput runs cat FILE on a PTY and reads its master (64 KiB at a
// time, in the netpoller) until EIO, discarding the bytes. It returns the
// number of read calls that returned data.
func discardOutput(b *testing.B, file string) int {
	master, pidfd, pid, err := spawn("/bin/cat", Config{Argv: []string{"cat", file}, Env: testEnv, Dir: "/", Cols: 80, Rows: 24})
	if err != nil {
		b.Fatal(err)
	}
	defer master.Close()
	defer unix.Close(pidfd)
	rc, err := master.SyscallConn()
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, readBufSize)
	reads := 0
	for done := false; !done; {
		rc.Read(func(fd uintptr) bool {
			n, err := unix.Read(int(fd), buf)
			switch {
			case n > 0:
				reads++
				return true
			case err == unix.EAGAIN:
				return false
			}
			done = true
			return true
		})
	}
	var ws unix.WaitStatus
	for {
		if _, err := unix.Wait4(pid, &ws, 0, nil); err != unix.EINTR {
			break
		}
	}
	return reads
}

// writeLines writes n lines line(0), line(1), … (LF line ends) to a file
// named name in dir and returns its path.
func writeLines(b *testing.B, dir, name string, n int, line func(int) string) string {
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := 0; i < n; i++ {
		w.WriteString(line(i))
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// fileSize is the size of the file at path, in bytes. The PTY's output
// processing makes every LF a CR LF, so the pane receives more than this.
func fileSize(b *testing.B, path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return st.Size()
}

// childUsage returns the resources of the benchmark's reaped children.
func childUsage(b *testing.B) unix.Rusage {
	var u unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_CHILDREN, &u); err != nil {
		b.Fatal(err)
	}
	return u
}

// allCPU returns the busy time of all CPUs so far (/proc/stat: user, nice,
// system, irq, softirq, steal), in clock ticks of 10 ms.
func allCPU(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		b.Fatal(err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	var sum int64
	for _, i := range []int{1, 2, 3, 6, 7, 8} {
		n, _ := strconv.ParseInt(f[i], 10, 64)
		sum += n
	}
	return sum
}

// reportOthers reports the CPU time of the children (cat) and of the whole
// machine (every process and kernel thread, other users' included) per
// operation.
func reportOthers(b *testing.B, c0 unix.Rusage, a0 int64) {
	c1, a1 := childUsage(b), allCPU(b)
	cpu := time.Duration(c1.Utime.Nano()+c1.Stime.Nano()-c0.Utime.Nano()-c0.Stime.Nano()) / time.Duration(b.N)
	b.ReportMetric(float64(cpu.Nanoseconds())/1e6, "child-cpu-ms/op")
	b.ReportMetric(float64(a1-a0)*10/float64(b.N), "all-cpu-ms/op")
}

// reportSwitches splits the process's context switches into voluntary
// (waits) and involuntary (preemptions) per operation.
func reportSwitches(b *testing.B, u0 unix.Rusage) {
	u1 := selfUsage(b)
	b.ReportMetric(float64(u1.Nvcsw-u0.Nvcsw)/float64(b.N), "vcsw/op")
	b.ReportMetric(float64(u1.Nivcsw-u0.Nivcsw)/float64(b.N), "ivcsw/op")
}

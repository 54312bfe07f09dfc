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

	"golang.org/x/sys/unix"
)

// BenchmarkOnePaneCat measures one pane's whole output path on the
// benchmark table's seq input (tests/bench: `cat FILE` of 2,000,000
// `seq` lines, 14.9 MB), from the start until the pane is done (its output
// emulated and stored). floor is the same child on a PTY whose master is
// read and discarded (the kernel's and cat's share); the cpu-ms and ctxsw
// figures are the benchmark process's own (not cat's).
func BenchmarkOnePaneCat(b *testing.B) {
	file := seqFile(b, 2000000)
	size := seqBytes(2000000)
	for _, sz := range []struct{ cols, rows int }{{80, 24}, {200, 50}} {
		b.Run(fmt.Sprintf("%dx%d", sz.cols, sz.rows), func(b *testing.B) {
			b.SetBytes(size)
			u0, c0, a0 := selfUsage(b), childUsage(b), allCPU(b)
			for b.Loop() {
				p, err := Start(Config{Argv: []string{"cat", file}, Env: testEnv, Dir: "/", Cols: sz.cols, Rows: sz.rows})
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
	b.Run("floor", func(b *testing.B) {
		b.SetBytes(size)
		u0, c0, a0 := selfUsage(b), childUsage(b), allCPU(b)
		reads := 0
		for b.Loop() {
			reads += discardOutput(b, file)
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

// seqFile writes the output of `seq 1 n` (with LF line ends) to a file in
// the benchmark's temporary directory.
func seqFile(b *testing.B, n int) string {
	name := filepath.Join(b.TempDir(), "seq")
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := 1; i <= n; i++ {
		w.WriteString(strconv.Itoa(i))
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return name
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

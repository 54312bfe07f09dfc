package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// raiseNofile sets this process's RLIMIT_NOFILE (soft and hard) to at
// least n, so that the daemons it starts afterwards inherit it. Setting it
// explicitly also keeps Go's os/exec from giving children the original soft
// limit back. Where the hard limit cannot be raised (no CAP_SYS_RESOURCE),
// the soft limit goes up to the hard one and the daemon gets that.
func raiseNofile(b *bench, n uint64) error {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return err
	}
	if l.Cur >= n && l.Max >= n {
		return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
	}
	hard := l.Max
	l.Cur, l.Max = max(l.Cur, n), max(l.Max, n)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		b.logf("RLIMIT_NOFILE to %d: %v; the daemon gets the hard limit, %d", n, err, hard)
		l.Cur, l.Max = hard, hard
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
			return fmt.Errorf("RLIMIT_NOFILE to %d: %v", hard, err)
		}
	}
	return nil
}

const ptyMax = "/proc/sys/kernel/pty/max"

func readInt(file string) (int, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// ensurePtys makes sure n more PTYs can be opened: the kernel allows
// kernel.pty.max in all, of which kernel.pty.reserve only for the initial
// devpts instance (counted conservatively here). When the limit is too low it
// raises kernel.pty.max (root only) and returns a function that puts the old
// value back.
func ensurePtys(b *bench, n int) (restore func(), err error) {
	maxN, err := readInt(ptyMax)
	if err != nil {
		return nil, err
	}
	reserve, _ := readInt("/proc/sys/kernel/pty/reserve")
	inUse, _ := readInt("/proc/sys/kernel/pty/nr")
	need := inUse + reserve + n + max(512, n/2) // and room for what else runs here (other tests make panes too)
	if maxN >= need {
		return func() {}, nil
	}
	b.logf("raising kernel.pty.max from %d to %d for %d panes (put back afterwards)", maxN, need, n)
	if err := os.WriteFile(ptyMax, []byte(strconv.Itoa(need)), 0o644); err != nil {
		return nil, fmt.Errorf("%d panes need kernel.pty.max >= %d (now %d): %v", n, need, maxN, err)
	}
	put := func() {
		// Put the old limit back only if nothing else raised it since and
		// what is in use now fits under it.
		cur, err := readInt(ptyMax)
		inUse, err2 := readInt("/proc/sys/kernel/pty/nr")
		if err != nil || err2 != nil || cur != need {
			return
		}
		if inUse+reserve+512 > maxN {
			b.logf("kernel.pty.max left at %d: %d PTYs are in use", need, inUse)
			return
		}
		os.WriteFile(ptyMax, []byte(strconv.Itoa(maxN)), 0o644)
	}
	untrack := track(put) // also on a fatal error
	return func() { untrack(); put() }, nil
}

package main

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// runScale10k is the scale workload with n idle panes (10,000 by default):
// the daemon gets a raised RLIMIT_NOFILE (each pane holds its PTY's master
// and a pidfd, the daemon a few more), the kernel enough PTYs, and its idle
// wake-ups are counted over wake once the panes are made.
func runScale10k(b *bench, n, samples, concurrent int, wake time.Duration) (scaleResult, error) {
	if free, err := freePids(); err == nil && free < n+2000 {
		return scaleResult{}, fmt.Errorf("%d panes: only %d process ids free (kernel.pid_max)", n, free)
	}
	restore, err := ensurePtys(b, n+concurrent+3*samples)
	if err != nil {
		return scaleResult{}, err
	}
	defer restore()
	return runScale(b, n, samples, concurrent, wake, uint64(4*n+4096))
}

// freePids is kernel.pid_max less the processes and threads there are now.
func freePids() (int, error) {
	maxN, err := readInt("/proc/sys/kernel/pid_max")
	if err != nil {
		return 0, err
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	used := 0
	for _, e := range ents {
		if strings.Trim(e.Name(), "0123456789") != "" {
			continue
		}
		if t, err := os.ReadDir("/proc/" + e.Name() + "/task"); err == nil {
			used += len(t)
		}
	}
	return maxN - used, nil
}

package procs

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// The pane mark (docs/security.md, "The pane mark"). Every process the
// daemon starts, and so every process ever inside a pane, inherits the
// daemon's resource limits. At its start the daemon lowers its own hard
// limit of RLIMIT_RTTIME (CPU time of a real-time process between blocking
// calls: unlimited on every common system, and never reached when lowered
// by at most 2^32 microseconds, about 72 minutes, of an unlimited value)
// by an amount chosen at random, so that the value names this daemon
// instance (docs/termination.md, "When the daemon dies"). An unprivileged process can lower a hard
// limit but never raise it again, whatever it does with its session,
// parent, process group or environment, and its children inherit it. A
// caller whose hard RTTIME limit is below the mark's reference value came
// from a daemon or a pane: if no live pane claims it, it is denied, never
// taken for the owner.

// Mark is the mark of the daemon's processes. Zero: no mark (the
// daemon's own limit was already 0), outside callers are told apart from
// pane processes by ancestry and cgroup only.
type Mark struct {
	// Reference is the hard RLIMIT_RTTIME limit of unmarked processes (the
	// daemon's before it marked itself); a process below it is marked.
	Reference uint64
	// Value is the hard RLIMIT_RTTIME limit this daemon set on itself, and
	// so the one of every process of its panes that did not lower it further.
	Value uint64
	// Instance is true when Value names this daemon instance: it was
	// lowered by a random amount, not by one (a small reference).
	Instance bool
}

// markSpan is the largest amount MarkProcesses lowers the limit by: 2^32 µs,
// and at most a thousandth of the reference.
const markSpan = 1 << 32

// MarkProcesses lowers this process's hard RLIMIT_RTTIME by a random amount
// of 1..2^32 µs, at most a thousandth of its value, never to a value in
// avoid (the marks of earlier daemons of the state directory), and the
// soft limit to at most that, so that everything it starts from now on
// carries the mark. A hard limit below 2^16 × 1000 µs (about 65 s) is
// lowered by one (Instance false). Errors: the limit could not be read or set.
func MarkProcesses(avoid ...uint64) (Mark, error) {
	var l unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_RTTIME, &l); err != nil {
		return Mark{}, fmt.Errorf("reading RLIMIT_RTTIME: %w", err)
	}
	if l.Max == 0 {
		return Mark{}, fmt.Errorf("RLIMIT_RTTIME hard limit is already 0: no mark")
	}
	value, instance := l.Max-1, false
	if span := min(markSpan, l.Max/1000); span >= 1<<16 {
		instance = true
		for value = l.Max - 1 - rand.Uint64N(span); slices.Contains(avoid, value); {
			value = l.Max - 1 - rand.Uint64N(span)
		}
	}
	n := unix.Rlimit{Max: value, Cur: min(l.Cur, value)}
	if err := unix.Setrlimit(unix.RLIMIT_RTTIME, &n); err != nil {
		return Mark{}, fmt.Errorf("lowering RLIMIT_RTTIME: %w", err)
	}
	return Mark{Reference: l.Max, Value: value, Instance: instance}, nil
}

// Marked reports whether pid carries the pane mark: its hard RLIMIT_RTTIME
// is below the reference. A process whose limit cannot be read counts as
// marked (fail closed). The caller checks afterwards, with its pidfd, that
// pid was still the process it pinned.
func (m Mark) Marked(pid int) bool {
	if m.Reference == 0 {
		return false
	}
	hard, ok := HardRTTime(pid)
	return !ok || hard < m.Reference
}

// HardRTTime is pid's hard RLIMIT_RTTIME, by prlimit(2) or else
// /proc/PID/limits; false when neither can be read.
func HardRTTime(pid int) (uint64, bool) {
	var l unix.Rlimit
	if err := unix.Prlimit(pid, unix.RLIMIT_RTTIME, nil, &l); err == nil {
		return l.Max, true
	}
	return procRTTime(pid)
}

// procRTTime reads the hard "Max realtime timeout" of /proc/PID/limits
// (for a process prlimit may not read, such as one that changed ids).
func procRTTime(pid int) (uint64, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "limits"))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(line, "Max realtime timeout")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 2 {
			return 0, false
		}
		if f[1] == "unlimited" {
			return unix.RLIM_INFINITY, true
		}
		v, err := strconv.ParseUint(f[1], 10, 64)
		return v, err == nil
	}
	return 0, false
}

// MinRoom is how far below the daemon's reference the instance marks
// may go: with a smaller reference (a hard RLIMIT_RTTIME someone set) the
// values could meet limits set on purpose, and instances get no mark.
// Room for 2^32 instances of each of 2^23 pids (Linux's pid_max is at
// most 2^22).
const MinRoom = 1 << 56

// markSeq numbers the instances given a mark by this process, across
// every Service in it.
var markSeq atomic.Int64

// NewInstance returns the mark of a new process instance: below the
// daemon's own by its pid times 2^32 plus the instance's number in this
// process, so never the daemon's, never another instance's, and never an
// instance's of another daemon running beside it with the same reference.
// 0: none (no mark, or no room for one).
func (m Mark) NewInstance() uint64 {
	if m.Reference < MinRoom {
		return 0
	}
	n := markSeq.Add(1)
	if n >= 1<<32 {
		return 0
	}
	return m.Reference - 1 - uint64(os.Getpid())<<32 - uint64(n)
}

// InstanceRange is the range lo < mark <= hi of the instance marks a daemon
// with this pid gives (NewInstance); empty (0, 0) without room for them.
func (m Mark) InstanceRange(pid int) (lo, hi uint64) {
	if m.Reference < MinRoom || pid <= 0 {
		return 0, 0
	}
	hi = m.Reference - 1 - uint64(pid)<<32 - 1
	return hi - (1<<32 - 1), hi
}

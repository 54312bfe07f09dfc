package service

import (
	"context"
	"math/rand/v2"
	"os/exec"
	"slices"
	"syscall"
	"testing"

	"github.com/signaltty/signaltty/service/procs"
	"golang.org/x/sys/unix"
)

// startMarked starts a process that ignores SIGTERM (it needs SIGKILL)
// and gives it the hard RLIMIT_RTTIME mark, as a dead daemon's pane left it.
func startMarked(t *testing.T, mark uint64) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", "trap '' TERM HUP; while :; do sleep 1; done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Process.Kill(); cmd.Wait() })
	l := unix.Rlimit{Max: mark, Cur: mark}
	if err := unix.Prlimit(cmd.Process.Pid, unix.RLIMIT_RTTIME, &l, nil); err != nil {
		t.Skipf("cannot lower a child's RLIMIT_RTTIME: %v", err)
	}
	return cmd
}

// A process with a dead daemon's exact mark is its leftover, one with
// another mark is not; StopLeftovers ends it even though it ignores
// SIGTERM, and then nothing is left to report.
func TestLeftoversAreTheProcessesWithTheDeadDaemonsMark(t *testing.T) {
	mark := unix.RLIM_INFINITY - 1 - rand.Uint64N(1<<32)
	left := startMarked(t, mark)
	other := startMarked(t, mark-1)
	s := newTestService(t)
	s.Leftovers().Find([]PreviousDaemon{{Pid: 1, State: "running", Mark: mark}})
	exits := s.Leftovers().PreviousDaemons()
	if len(exits) != 1 {
		t.Fatalf("unclean exits %+v", exits)
	}
	pids := procs.Pids(exits[0].Leftovers)
	if !slices.Contains(pids, left.Process.Pid) || slices.Contains(pids, other.Process.Pid) {
		t.Fatalf("leftovers %v: want %d and not %d", pids, left.Process.Pid, other.Process.Pid)
	}
	if n := exits[0].Leftovers[0].Name; n != "sh" {
		t.Errorf("leftover named %q, want sh", n)
	}
	stopped, remaining := s.Leftovers().Stop(context.Background())
	if !slices.Contains(procs.Pids(stopped), left.Process.Pid) || len(remaining) != 0 {
		t.Errorf("stopped %v, remaining %v", procs.Pids(stopped), procs.Pids(remaining))
	}
	if err := left.Wait(); err == nil {
		t.Errorf("the leftover exited 0; want killed")
	}
	if err := other.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("a process with another mark was stopped too: %v", err)
	}
	if e := s.Leftovers().PreviousDaemons(); len(e) != 1 || len(e[0].Leftovers) != 0 {
		t.Errorf("after the stop: %+v", e)
	}
}

// A clean stop whose processes are all gone by the next start is not
// reported; an unclean exit is, leftovers or not.
func TestCleanStopWithoutLeftoversIsNotReported(t *testing.T) {
	mark := unix.RLIM_INFINITY - 1 - rand.Uint64N(1<<32)
	s := newTestService(t)
	s.Leftovers().Find([]PreviousDaemon{{Pid: 2, State: "stopped", Mark: mark}, {Pid: 3, State: "running", Mark: mark}})
	if e := s.Leftovers().PreviousDaemons(); len(e) != 1 || e[0].Pid != 3 {
		t.Errorf("previous daemons %+v, want only the unclean exit", e)
	}
}

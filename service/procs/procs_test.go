package procs

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// The readers name this process: its argv, parent, start time and name.
func TestReadersNameThisProcess(t *testing.T) {
	pid := os.Getpid()
	if a := Argv(pid); len(a) == 0 || filepath.Base(a[0]) != filepath.Base(os.Args[0]) {
		t.Errorf("argv %q", a)
	}
	// The session id is the kernel's in this PID namespace: 0 when the
	// session's leader lies outside it (a container started in a session).
	wantSid, err := unix.Getsid(0)
	if err != nil {
		t.Fatal(err)
	}
	if ppid, _, sid := Stat(pid); ppid != os.Getppid() || sid != wantSid {
		t.Errorf("stat: ppid %d sid %d, want %d and %d", ppid, sid, os.Getppid(), wantSid)
	}
	if st, ok := StartTime(pid); !ok || st == 0 {
		t.Errorf("start time %d %v", st, ok)
	}
	if n := Name(pid); n == "?" || n == "" {
		t.Errorf("name %q", n)
	}
	if Argv(-1) != nil || Name(-1) != "?" {
		t.Error("a process that is gone has an argv or a name")
	}
	if _, ok := StartTime(-1); ok {
		t.Error("a process that is gone has a start time")
	}
}

// An instance mark lies in its daemon's instance range, below the
// reference, and marks nothing without room.
func TestInstanceMarksLieInTheirDaemonsRange(t *testing.T) {
	m := Mark{Reference: ^uint64(0), Value: ^uint64(0) - 5, Instance: true}
	lo, hi := m.InstanceRange(os.Getpid())
	for i := 0; i < 3; i++ {
		if v := m.NewInstance(); v <= lo || v > hi || v >= m.Reference {
			t.Errorf("instance mark %d outside (%d, %d]", v, lo, hi)
		}
	}
	if olo, ohi := m.InstanceRange(os.Getpid() + 1); ohi > lo && olo < hi {
		t.Errorf("another pid's range (%d, %d] meets ours (%d, %d]", olo, ohi, lo, hi)
	}
	small := Mark{Reference: MinRoom - 1}
	if v := small.NewInstance(); v != 0 {
		t.Errorf("a small reference gave an instance mark %d", v)
	}
	if lo, hi := small.InstanceRange(os.Getpid()); lo != 0 || hi != 0 {
		t.Errorf("a small reference has a range (%d, %d]", lo, hi)
	}
	if (Mark{}).Marked(os.Getpid()) {
		t.Error("with no mark a process is marked")
	}
}

package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/signaltty/signaltty/service"
)

// take takes the lock of dir or fails the test.
func take(t *testing.T, dir string) *stateLock {
	t.Helper()
	l, err := tryLockState(dir)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// release drops a lock as the death of its holder would: nothing written.
func release(l *stateLock) { l.f.Close() }

// A lock record left "running" (its holder died) is an unclean exit for the
// next holder, with the dead holder's pid, start time and mark; one whose
// holder wrote "stopped" is not, and only the exits it carried come back.
func TestLockRecordTellsUncleanFromCleanExits(t *testing.T) {
	dir := t.TempDir()
	first := take(t, dir)
	if len(first.previous) != 0 {
		t.Fatalf("a new state directory has unclean exits: %+v", first.previous)
	}
	first.setMark(12345, nil)
	release(first)

	second := take(t, dir)
	if len(second.previous) != 1 {
		t.Fatalf("after a holder died: unclean exits %+v, want one", second.previous)
	}
	e := second.previous[0]
	if e.Pid != os.Getpid() || e.Mark != 12345 || e.State != "running" || e.Started.IsZero() || e.LastSeen.IsZero() {
		t.Errorf("unclean exit %+v", e)
	}
	if m := second.marks(); len(m) != 1 || m[0] != 12345 {
		t.Errorf("marks to avoid %v", m)
	}
	second.setMark(777, second.previous)
	second.stopped(second.previous, false) // its leftovers still run
	release(second)

	third := take(t, dir)
	if len(third.previous) != 1 || third.previous[0].Mark != 12345 || !third.previous[0].Started.Equal(e.Started) {
		t.Fatalf("after a clean stop that carried one exit: %+v", third.previous)
	}
	third.stopped(nil, false)
	release(third)

	fourth := take(t, dir)
	defer release(fourth)
	if len(fourth.previous) != 0 {
		t.Errorf("after a clean stop that carried nothing: %+v", fourth.previous)
	}
}

// The record of an older signaltty (pid, unit, state and nothing else,
// never "stopped") is not taken for an unclean exit.
func TestOlderLockRecordIsNoPreviousDaemon(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lock"), []byte("pid 4242\nunit \nstate running\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l := take(t, dir)
	defer release(l)
	if len(l.previous) != 0 {
		t.Errorf("unclean exits from an older record: %+v", l.previous)
	}
}

// A "previous" line survives a write and a read unchanged, times to the
// nanosecond.
func TestPreviousLineRoundTrip(t *testing.T) {
	want := service.PreviousDaemon{Pid: 99, Started: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC),
		LastSeen: time.Date(2026, 1, 2, 4, 0, 0, 0, time.UTC), State: "stopping", Mark: 1<<64 - 5}
	dir := t.TempDir()
	l := take(t, dir)
	l.setMark(1, []service.PreviousDaemon{want, {Pid: 7, State: "running", Mark: 3}})
	got := readLockInfo(l.f).Previous
	release(l)
	if len(got) != 2 || !got[0].Started.Equal(want.Started) || !got[0].LastSeen.Equal(want.LastSeen) ||
		got[0].Pid != want.Pid || got[0].State != want.State || got[0].Mark != want.Mark || !got[1].Started.IsZero() {
		t.Errorf("previous lines read back as %+v, want %+v and a second without times", got, want)
	}
}

// A clean stop that leaves processes with its mark running records itself
// as "stopped", so that the next daemon looks for them; one that leaves
// none does not.
func TestCleanStopLeavingProcessesIsRecorded(t *testing.T) {
	dir := t.TempDir()
	l := take(t, dir)
	l.setMark(555, nil)
	l.stopped(nil, true)
	release(l)
	next := take(t, dir)
	if len(next.previous) != 1 || next.previous[0].State != "stopped" || next.previous[0].Mark != 555 || next.previous[0].Pid != os.Getpid() {
		t.Fatalf("after a stop that left processes: %+v", next.previous)
	}
	next.stopped(nil, false)
	release(next)
	last := take(t, dir)
	defer release(last)
	if len(last.previous) != 0 {
		t.Errorf("after a stop that left nothing: %+v", last.previous)
	}
}

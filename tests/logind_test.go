package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/signaltty/signaltty/tests/harness"
)

// Host shutdown (docs/persistence.md, saving before the host shuts down): the
// daemon's logind monitor against the REAL systemd-logind on a private
// system bus wherever the case allows, and against harness.FakeLogind for
// what the real one cannot do on demand. Each case checks the snapshot on
// disk, the inhibitor as logind lists it, and how the daemon ends.

// lgStart starts a daemon whose logind monitor watches address.
func lgStart(t *testing.T, address string) *harness.Daemon {
	t.Helper()
	return harness.Start(t, harness.Options{Env: harness.LogindEnv(address)})
}

// lgLivePanes makes a workspace with n `sleep` panes and one exited pane;
// it returns the live ones and the exited one.
func lgLivePanes(t *testing.T, d *harness.Daemon, n int) ([]harness.Pane, harness.Pane) {
	t.Helper()
	w := d.CreateWorkspace(t, "shutdown")
	var live []harness.Pane
	for i := 0; i < n; i++ {
		live = append(live, sleeper(t, d, w))
	}
	done := d.Spawn(t, ws(w), "true")
	d.WaitExited(t, done.ID)
	return live, done
}

// lgCheckShutdownSnapshot requires the snapshot of a logind save: every
// live pane saved as live (LIVE, shutdown_save), the exited one as exited.
func lgCheckShutdownSnapshot(t *testing.T, d *harness.Daemon, live []harness.Pane, exited harness.Pane) {
	t.Helper()
	s := d.ReadSnapshot(t)
	if s.Server.Reason != "logind" {
		t.Errorf("snapshot reason %q, want \"logind\" (the monitor's save, not overwritten later)", s.Server.Reason)
	}
	byID := map[string]int{}
	for i, p := range s.Panes {
		byID[p.ID] = i
	}
	for _, p := range live {
		i, ok := byID[p.ID]
		if !ok {
			t.Errorf("live pane %s is not in the snapshot", p.ID)
			continue
		}
		if sp := s.Panes[i]; sp.State != "live" || sp.RestoreState != "LIVE" || !sp.ShutdownSave {
			t.Errorf("pane %s saved as state=%q restore_state=%q shutdown_save=%v, want live/LIVE/true", p.ID, sp.State, sp.RestoreState, sp.ShutdownSave)
		}
	}
	if exited.ID != "" {
		if i, ok := byID[exited.ID]; !ok || s.Panes[i].State != "exited" || s.Panes[i].RestoreState != "EXITED" {
			t.Errorf("exited pane %s: %+v, want exited/EXITED", exited.ID, s.Panes)
		}
	}
}

// lgLogHas waits until the daemon's log has a line containing msg.
func lgLogHas(t *testing.T, d *harness.Daemon, msg string) {
	t.Helper()
	harness.Eventually(t, harness.PollTimeout, "the daemon logs "+strconv.Quote(msg), func() (bool, string) {
		return strings.Contains(d.Stderr(), msg), d.Stderr()
	})
}

// Case 1: PowerOff through the real logind with live panes.
func TestLogindShutdownSavesLivePanes(t *testing.T) {
	t.Parallel()
	l := harness.StartLogind(t, harness.LogindOptions{Delay: 5, Systemd1: true})
	d := lgStart(t, l.Address)
	l.WaitInhibitor(t, d.Pid(), harness.PollTimeout)
	st := d.WaitLogind(t, harness.PollTimeout, "the monitor holds the inhibitor", func(s harness.LogindReport) bool {
		return s.State == "holding" && s.Holding
	})
	if st.InhibitDelayMs == nil || *st.InhibitDelayMs != 5000 || st.Owner == nil || st.Inhibits != 1 {
		t.Errorf("status while holding: %+v, want inhibit_delay_ms 5000, an owner, 1 inhibitor taken", st)
	}
	live, exited := lgLivePanes(t, d, 3)
	var pids []int
	for _, p := range live {
		pids = append(pids, p.PID())
	}

	watch := l.WatchPrepare(t)
	l.PowerOff(t)
	start := watch.Wait(t, 1, harness.PollTimeout)
	end := watch.Wait(t, 2, time.Duration(l.Delay)*time.Second+harness.PollTimeout)
	if !start.Start || end.Start {
		t.Fatalf("PrepareForShutdown signals %+v, want true then false", watch.Events())
	}
	// logind goes on (StartUnit, refused, then false) as soon as the last
	// delay inhibitor is closed, or when its delay runs out: a gap as long
	// as the delay, or logind's own word, says it had to wait it out.
	gap := end.At.Sub(start.At)
	t.Logf("PrepareForShutdown(true) -> (false): %v (logind's delay %d s)", gap, l.Delay)
	if gap >= time.Duration(l.Delay)*time.Second || strings.Contains(l.Log(), "inhibitor timeout is reached") {
		t.Errorf("logind waited %v for the daemon (delay %d s); logind.log:\n%s", gap, l.Delay, l.Log())
	}
	if code := d.WaitExit(t, harness.StopTimeout); code != 0 {
		t.Errorf("signalttyd exited with %d after the host shutdown, want 0", code)
	}
	if got := l.SignalttyInhibitors(t); len(got) != 0 {
		t.Errorf("inhibitors left: %v", got)
	}
	lgCheckShutdownSnapshot(t, d, live, exited)
	if at, ok := d.LogTime(t, "logind: the host is shutting down"); ok {
		if rel, ok := d.LogTime(t, "logind: released the shutdown inhibitor"); ok {
			t.Logf("daemon log: announcement -> release %v", rel.Sub(at))
		} else {
			t.Errorf("no release logged:\n%s", d.Stderr())
		}
	} else {
		t.Errorf("no shutdown logged:\n%s", d.Stderr())
	}
	for _, pid := range pids {
		if !harness.Gone(pid) {
			t.Errorf("pane leader %d still runs after the daemon stopped", pid)
		}
	}
}

// Case 2a: the real logind emits PrepareForShutdown(false) after a shutdown
// fails; the daemon, stopping on true, sees it while still running only
// when its save outlasts logind's delay. A test seam holds the save that
// long; the shutdown is then cancelled: the daemon keeps running, thaws
// persistence and keeps its inhibitor.
func TestLogindShutdownCancelledDuringSave(t *testing.T) {
	t.Parallel()
	l := harness.StartLogind(t, harness.LogindOptions{Delay: 1, Systemd1: true})
	d, hooks := harness.StartHooks(t, harness.Options{Env: harness.LogindEnv(l.Address)})
	l.WaitInhibitor(t, d.Pid(), harness.PollTimeout)
	live, exited := lgLivePanes(t, d, 2)

	hold := filepath.Join(hooks, "hold-logind-save")
	if err := os.WriteFile(hold, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	watch := l.WatchPrepare(t)
	l.PowerOff(t)
	if e := watch.Wait(t, 1, harness.PollTimeout); !e.Start {
		t.Fatalf("first signal %+v, want PrepareForShutdown(true)", e)
	}
	harness.Eventually(t, harness.PollTimeout, "the save reached the hold", func() (bool, string) {
		_, err := os.Stat(filepath.Join(hooks, "reached-logind-save"))
		return err == nil, d.Stderr()
	})
	if st := d.Logind(t); st.State != "stopping" {
		t.Errorf("state during the save %q, want stopping", st.State)
	}
	// logind's delay runs out, StartUnit is refused, the shutdown is over.
	if e := watch.Wait(t, 2, harness.PollTimeout); e.Start {
		t.Fatalf("second signal %+v, want PrepareForShutdown(false)", e)
	}
	if !strings.Contains(l.Log(), "inhibitor timeout is reached") {
		t.Errorf("logind did not time out on the held save; logind.log:\n%s", l.Log())
	}
	lgLogHas(t, d, "shutdown cancelled")
	os.Remove(hold)

	st := d.WaitLogind(t, harness.PollTimeout, "the monitor holds again", func(s harness.LogindReport) bool {
		return s.State == "holding" && s.Holding
	})
	if d.Exited() {
		t.Fatalf("the daemon stopped although the shutdown was cancelled:\n%s", d.Stderr())
	}
	l.WaitInhibitor(t, d.Pid(), harness.PollTimeout)
	if st.LastSaveAt == nil || st.LastReleaseMs != nil {
		t.Errorf("status after the cancelled save: %+v, want last_save_at and no release", st)
	}
	for _, p := range live {
		if got := d.GetPane(t, p.ID); got.State != "live" {
			t.Errorf("pane %s is %s after the cancelled shutdown", p.ID, got.State)
		}
	}
	// Thawed, persistence saves the present state again (the save for the
	// cancelled shutdown is replaced).
	harness.Eventually(t, harness.PollTimeout, "persistence thawed and a later save written", func() (bool, string) {
		p := lgPersist(t, d)
		s := d.ReadSnapshot(t)
		return !p.Frozen && s.Server.Reason != "logind", fmt.Sprintf("frozen=%v reason=%s", p.Frozen, s.Server.Reason)
	})
	// A new shutdown is handled again.
	watch2 := l.WatchPrepare(t)
	l.PowerOff(t)
	watch2.Wait(t, 2, harness.PollTimeout)
	if code := d.WaitExit(t, harness.StopTimeout); code != 0 {
		t.Errorf("exit status %d after the second shutdown", code)
	}
	lgCheckShutdownSnapshot(t, d, live, exited)
}

// Case 2b: PrepareForShutdown(false) alone (fake logind): nothing stops,
// the inhibitor stays.
func TestLogindPrepareFalseAlone(t *testing.T) {
	t.Parallel()
	bus := harness.StartBus(t)
	f := harness.StartFakeLogind(t, bus, harness.FakeLogindOptions{})
	d := lgStart(t, bus.Address)
	bus.WaitInhibitor(t, d.Pid(), harness.PollTimeout)
	p := sleeper(t, d, d.CreateWorkspace(t, "w"))
	f.Emit(false)
	lgLogHas(t, d, "PrepareForShutdown(false); the daemon keeps running")
	if st := d.Logind(t); st.State != "holding" || !st.Holding || st.Inhibits != 1 {
		t.Errorf("status after a lone false: %+v", st)
	}
	if n := len(f.Inhibitors()); n != 1 || d.Exited() {
		t.Errorf("after a lone false: %d inhibitors, exited %v", n, d.Exited())
	}
	if got := d.GetPane(t, p.ID); got.State != "live" {
		t.Errorf("pane %s: %s", p.ID, got.State)
	}
}

// Case 3a: logind restarts on the same bus; the new one knows nothing of
// the old inhibitor (its /run/systemd went with it): the daemon takes one
// again as soon as the name reappears, and keeps one descriptor only.
func TestLogindRestartRetakesInhibitor(t *testing.T) {
	t.Parallel()
	l := harness.StartLogind(t, harness.LogindOptions{})
	d := lgStart(t, l.Address)
	l.WaitInhibitor(t, d.Pid(), harness.PollTimeout)
	before := d.WaitLogind(t, harness.PollTimeout, "holding", func(s harness.LogindReport) bool { return s.Holding })

	l.StopLogind(t)
	d.WaitLogind(t, harness.PollTimeout, "the monitor notices logind left", func(s harness.LogindReport) bool {
		return s.State == "backoff" && !s.Holding && s.LastError != nil && strings.Contains(*s.LastError, "left the system bus")
	})
	l.Start(t, false)
	l.WaitInhibitor(t, d.Pid(), harness.PollTimeout)
	// Taken on the name's reappearance, not by a retry that happened to
	// come after it (the monitor logs this only when the new owner's
	// NameOwnerChanged finds no inhibitor taken from it yet).
	lgLogHas(t, d, "logind appeared on the bus; taking the inhibitor again")
	after := d.WaitLogind(t, harness.PollTimeout, "holding again", func(s harness.LogindReport) bool { return s.Holding })
	if after.Inhibits != before.Inhibits+1 || after.Owner == nil || before.Owner == nil || *after.Owner == *before.Owner {
		t.Errorf("status before %+v, after %+v: want one more inhibitor from a new owner", before, after)
	}
	if n := len(lgInhibitorFDs(t, d.Pid(), l.LogindPid())); n != 1 {
		t.Errorf("the daemon has %d descriptors of the new logind's inhibitors, want 1", n)
	}
	if n := lgRefFDs(t, d.Pid()); n != 1 {
		t.Errorf("the daemon holds %d inhibitor descriptors, want 1 (the old one closed)", n)
	}
}

// Case 3b: the bus itself goes away and comes back: reconnect, subscribe,
// inhibit again, within the backoff.
func TestLogindBusRestartReconnects(t *testing.T) {
	t.Parallel()
	l := harness.StartLogind(t, harness.LogindOptions{})
	d := lgStart(t, l.Address)
	l.WaitInhibitor(t, d.Pid(), harness.PollTimeout)
	l.Stop(t)
	d.WaitLogind(t, harness.PollTimeout, "backoff after the bus went away", func(s harness.LogindReport) bool {
		return s.State == "backoff" && !s.Holding && s.NextRetryAt != nil
	})
	if n := lgRefFDs(t, d.Pid()); n != 0 {
		t.Errorf("the daemon keeps %d inhibitor descriptors without a bus, want 0", n)
	}
	l.Start(t, false)
	l.WaitInhibitor(t, d.Pid(), 2*harness.PollTimeout)
	if st := d.Logind(t); st.State != "holding" || st.Inhibits != 2 {
		t.Errorf("status after the bus came back: %+v", st)
	}
}

// Case 4: no bus when the daemon starts; the daemon starts anyway and takes
// the inhibitor once bus and logind appear.
func TestLogindBusAppearsLater(t *testing.T) {
	t.Parallel()
	l := harness.StartLogind(t, harness.LogindOptions{NotStarted: true})
	d := lgStart(t, l.Address)
	st := d.WaitLogind(t, harness.PollTimeout, "backoff without a bus", func(s harness.LogindReport) bool {
		return s.State == "backoff" && s.LastError != nil && s.NextRetryAt != nil
	})
	if !strings.Contains(*st.LastError, "system bus") {
		t.Errorf("last_error %q does not name the bus", *st.LastError)
	}
	p := sleeper(t, d, d.CreateWorkspace(t, "w")) // the daemon works meanwhile
	l.Start(t, false)
	l.WaitInhibitor(t, d.Pid(), 2*harness.PollTimeout)
	if st := d.Logind(t); st.State != "holding" || !st.Holding || st.LastError == nil {
		t.Errorf("status: %+v, want holding with the old error kept", st)
	}
	if got := d.GetPane(t, p.ID); got.State != "live" {
		t.Errorf("pane %s: %s", p.ID, got.State)
	}
}

// Case 5: Inhibit refused (fake logind): backoff that grows, status and
// doctor show it, the daemon keeps working; accepted later, the inhibitor
// is taken.
func TestLogindInhibitRefused(t *testing.T) {
	t.Parallel()
	bus := harness.StartBus(t)
	f := harness.StartFakeLogind(t, bus, harness.FakeLogindOptions{Refuse: "org.freedesktop.DBus.Error.AccessDenied"})
	d := lgStart(t, bus.Address)
	st := d.WaitLogind(t, harness.PollTimeout, "backoff after a refused Inhibit", func(s harness.LogindReport) bool {
		return s.State == "backoff" && s.LastError != nil && s.NextRetryAt != nil
	})
	if !strings.Contains(*st.LastError, "AccessDenied") || st.Holding {
		t.Errorf("status: %+v, want the AccessDenied error and no inhibitor", st)
	}
	next, err := time.Parse(time.RFC3339Nano, *st.NextRetryAt)
	if err != nil || time.Until(next) > 70*time.Second {
		t.Errorf("next_retry_at %q: %v", *st.NextRetryAt, err)
	}
	// The monitor goes on retrying (connecting, then backoff again, each
	// wait longer): a loaded machine's doctor can land on a retry.
	harness.Eventually(t, harness.PollTimeout, "doctor in backoff", func() (bool, string) {
		r := d.CLI(t, "doctor")
		return r.Code == 0 && strings.Contains(r.Stdout, "logind shutdown monitor: backoff") && strings.Contains(r.Stdout, "AccessDenied") &&
			strings.Contains(r.Stdout, "! "), r.String()
	})
	harness.Eventually(t, 3*harness.PollTimeout, "three refused Inhibit calls", func() (bool, string) {
		return len(f.InhibitCalls()) >= 3, fmt.Sprint(f.InhibitCalls())
	})
	calls := f.InhibitCalls()
	d1, d2 := calls[1].Sub(calls[0]), calls[2].Sub(calls[1])
	t.Logf("retries after %v, then %v", d1, d2)
	// A timer never fires early: the gaps are at least the 1 s and 2 s
	// waits; how much more is the machine's load.
	if d1 < time.Second || d2 < 2*time.Second {
		t.Errorf("retry intervals %v, %v: want at least 1 s, then at least 2 s", d1, d2)
	}
	d.CreateWorkspace(t, "still-serving")

	f.SetRefuse("")
	bus.WaitInhibitor(t, d.Pid(), 3*harness.PollTimeout)
	st = d.WaitLogind(t, harness.PollTimeout, "holding", func(s harness.LogindReport) bool { return s.State == "holding" })
	if !st.Holding || st.Inhibits != 1 || st.InhibitDelayMs == nil || *st.InhibitDelayMs != 5000 {
		t.Errorf("status after acceptance: %+v", st)
	}
	r := d.CLI(t, "doctor")
	if r.Code != 0 || !strings.Contains(r.Stdout, "logind shutdown monitor: holding") {
		t.Errorf("doctor while holding:\n%s", r)
	}
}

// Case 6a: the real logind, already preparing for shutdown (another
// program's delay inhibitor holds it there) when the monitor connects.
// logind refuses new delay inhibitors then; the daemon reads
// PreparingForShutdown, saves without one and stops.
func TestLogindAlreadyPreparingRealLogind(t *testing.T) {
	t.Parallel()
	l := harness.StartLogind(t, harness.LogindOptions{Delay: 30, NotStarted: true})
	// The daemon's bus address is a path that exists (as a symlink to the
	// bus's socket) only once logind is preparing for shutdown: its monitor
	// cannot connect before, however slowly logind starts.
	gate := filepath.Join(harness.TempDir(t), "bus")
	d := lgStart(t, "unix:path="+gate)
	live, exited := lgLivePanes(t, d, 2)
	d.WaitLogind(t, harness.PollTimeout, "backoff without a bus", func(s harness.LogindReport) bool { return s.State == "backoff" })
	l.Start(t, true)
	l.HoldDelay(t)
	l.PowerOff(t)
	var preparing bool
	l.Property(t, "PreparingForShutdown", &preparing)
	if !preparing {
		t.Fatal("logind is not preparing for shutdown")
	}
	if err := os.Symlink(strings.TrimPrefix(l.Address, "unix:path="), gate); err != nil {
		t.Fatal(err)
	}
	// The monitor's next attempt comes within its longest backoff (60 s).
	if code := d.WaitExit(t, time.Minute+harness.StopTimeout); code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
	if !strings.Contains(d.Stderr(), "already shutting down") {
		t.Errorf("the daemon did not log the shutdown under way:\n%s", d.Stderr())
	}
	lgCheckShutdownSnapshot(t, d, live, exited)
}

// Case 6b: a logind (fake) that grants the inhibitor while preparing: the
// daemon takes it, reads PreparingForShutdown true, saves, releases, stops.
func TestLogindAlreadyPreparingFake(t *testing.T) {
	t.Parallel()
	bus := harness.NewBus(t)
	d := lgStart(t, bus.Address)
	live, exited := lgLivePanes(t, d, 2)
	d.WaitLogind(t, harness.PollTimeout, "backoff without a bus", func(s harness.LogindReport) bool { return s.State == "backoff" })
	bus.Start(t)
	f := harness.StartFakeLogind(t, bus, harness.FakeLogindOptions{Preparing: true, InhibitWhilePreparing: true})
	if code := d.WaitExit(t, 4*harness.PollTimeout); code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
	if len(f.InhibitCalls()) != 1 || len(f.Inhibitors()) != 0 {
		t.Errorf("Inhibit calls %d, inhibitors left %v", len(f.InhibitCalls()), f.Inhibitors())
	}
	log := d.Stderr()
	if i, j := strings.Index(log, "released the shutdown inhibitor"), strings.Index(log, "msg=stopped"); i < 0 || j < i {
		t.Errorf("want the release logged before the daemon stopped:\n%s", log)
	}
	lgCheckShutdownSnapshot(t, d, live, exited)
}

// Case 7: the save fails (state directory on a read-only file system): the
// inhibitor is still released in time and the daemon still stops, with the
// error logged.
func TestLogindSaveFailureStillReleases(t *testing.T) {
	t.Parallel()
	l := harness.StartLogind(t, harness.LogindOptions{Delay: 5, Systemd1: true})
	d := lgStart(t, l.Address)
	l.WaitInhibitor(t, d.Pid(), harness.PollTimeout)
	lgLivePanes(t, d, 2)
	d.JSON(t, &struct{}{}, "save")
	dir := filepath.Join(d.Dir, "state", "signaltty")
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_RDONLY, "size=1m,mode=0700"); err != nil {
		t.Fatalf("mounting a read-only tmpfs on %s: %v", dir, err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })

	watch := l.WatchPrepare(t)
	l.PowerOff(t)
	start := watch.Wait(t, 1, harness.PollTimeout)
	end := watch.Wait(t, 2, time.Duration(l.Delay)*time.Second+harness.PollTimeout)
	gap := end.At.Sub(start.At)
	t.Logf("PrepareForShutdown(true) -> (false) with a failing save: %v", gap)
	if gap >= time.Duration(l.Delay)*time.Second || strings.Contains(l.Log(), "inhibitor timeout is reached") {
		t.Errorf("logind waited %v; logind.log:\n%s", gap, l.Log())
	}
	if code := d.WaitExit(t, harness.StopTimeout); code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
	log := d.Stderr()
	if !strings.Contains(log, "saving the snapshot for shutdown failed") || !strings.Contains(log, "read-only file system") {
		t.Errorf("the failed save is not logged with its cause:\n%s", log)
	}
	if got := l.SignalttyInhibitors(t); len(got) != 0 {
		t.Errorf("inhibitors left: %v", got)
	}
	if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
		t.Fatal(err)
	}
	if s := d.ReadSnapshot(t); s.Server.Reason == "logind" || s.Server.Reason == "shutdown" {
		t.Errorf("the snapshot under the mount has reason %q, want an earlier save intact", s.Server.Reason)
	}
}

// Case 8: the inhibitor descriptor is close-on-exec and no pane's process
// (leader or its children) holds it.
func TestLogindInhibitorNotInherited(t *testing.T) {
	t.Parallel()
	l := harness.StartLogind(t, harness.LogindOptions{})
	d := lgStart(t, l.Address)
	l.WaitInhibitor(t, d.Pid(), harness.PollTimeout)
	// logind lists the inhibitor before its reply (with the descriptor)
	// reaches the daemon.
	var fds map[int]lgFileID
	if !harness.Poll(harness.PollTimeout, func() (bool, string) {
		fds = lgInhibitorFDs(t, d.Pid(), l.LogindPid())
		return len(fds) == 1, ""
	}) {
		t.Fatalf("the daemon holds %d descriptors of logind's inhibitor FIFOs, want 1", len(fds))
	}
	fd, id := -1, lgFileID{}
	for n, fid := range fds {
		fd, id = n, fid
	}
	info, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%d", d.Pid(), fd))
	if err != nil {
		t.Fatal(err)
	}
	if flags := lgFdFlags(t, string(info)); flags&syscall.O_CLOEXEC == 0 {
		t.Errorf("inhibitor fd %d flags %o: not close-on-exec", fd, flags)
	}

	w := d.CreateWorkspace(t, "w")
	s := sleeper(t, d, w)
	sh := bash(t, d, ws(w))
	d.Send(t, sh.ID, `sleep 100 & echo bg=$!\n`)
	d.WaitCapture(t, sh.ID, "the shell started a background sleep", func(c harness.Capture) bool { return c.Contains("bg=") })
	procs := []int{s.PID(), sh.PID()}
	harness.Eventually(t, harness.PollTimeout, "the shell's background child exists", func() (bool, string) {
		return len(harness.Children(sh.PID())) > 0, harness.DumpProcs(harness.Children(sh.PID()))
	})
	for _, c := range harness.Children(sh.PID()) {
		procs = append(procs, c.Pid)
	}
	for _, pid := range procs {
		for n := range harness.FDs(t, pid) {
			if got, ok := lgStatFD(pid, n); ok && got == id {
				t.Errorf("pid %d (%v) holds the inhibitor as fd %d", pid, harness.Cmdline(pid), n)
			}
		}
	}
}

// SIGTERM (the usual stop, e.g. systemctl --user stop): the inhibitor is
// released before the panes are terminated, which can take their grace
// period.
func TestLogindSigtermReleasesBeforePanes(t *testing.T) {
	t.Parallel()
	l := harness.StartLogind(t, harness.LogindOptions{})
	d := lgStart(t, l.Address)
	l.WaitInhibitor(t, d.Pid(), harness.PollTimeout)
	// Ignores SIGHUP: the daemon waits its 2 s grace before SIGKILL.
	p := d.Spawn(t, ws(d.CreateWorkspace(t, "w")), "sh", "-c", `trap "" HUP; echo ready; exec sleep 100`)
	d.WaitLine(t, p.ID, "ready")
	if err := syscall.Kill(d.Pid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, harness.PollTimeout, "the inhibitor released", func() (bool, string) {
		return len(l.SignalttyInhibitors(t)) == 0, ""
	})
	if d.Exited() || harness.Gone(p.PID()) {
		t.Errorf("the inhibitor went only after the panes (daemon exited %v, pane leader gone %v)", d.Exited(), harness.Gone(p.PID()))
	}
	if code := d.WaitExit(t, harness.StopTimeout); code != 0 {
		t.Errorf("exit status %d", code)
	}
}

// SIGKILL: the kernel closes the daemon's descriptor, and no pane process,
// left running, keeps the inhibitor alive.
func TestLogindSigkillDropsInhibitor(t *testing.T) {
	t.Parallel()
	l := harness.StartLogind(t, harness.LogindOptions{})
	d := lgStart(t, l.Address)
	l.WaitInhibitor(t, d.Pid(), harness.PollTimeout)
	// Ignores SIGHUP: the sleep outlives the hang-up of its terminal and,
	// not being the pane's leader, the daemon's parent-death signal.
	p := d.Spawn(t, ws(d.CreateWorkspace(t, "w")), "sh", "-c", `trap "" HUP; echo ready; sleep 100; echo never`)
	t.Cleanup(func() { syscall.Kill(-p.PID(), syscall.SIGKILL) })
	d.WaitLine(t, p.ID, "ready")
	sleeper := 0
	harness.Eventually(t, harness.PollTimeout, "the pane's sleep starts", func() (bool, string) {
		for _, c := range harness.Children(p.PID()) {
			if c.Comm == "sleep" {
				sleeper = c.Pid
			}
		}
		return sleeper != 0, ""
	})
	if err := syscall.Kill(d.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	d.WaitExit(t, harness.StopTimeout)
	os.Remove(d.Socket) // a killed daemon leaves it
	harness.Eventually(t, harness.PollTimeout, "logind dropped the inhibitor", func() (bool, string) {
		return len(l.SignalttyInhibitors(t)) == 0, ""
	})
	if harness.Gone(sleeper) {
		t.Errorf("the pane's process ended with the daemon: the case proves nothing")
	}
}

// With SIGNALTTY_LOGIND=0 (the harness's default) there is no monitor.
func TestLogindOff(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	if st := d.Logind(t); st.State != "off" || st.Holding || st.LastError != nil {
		t.Errorf("status %+v, want off", st)
	}
	if !strings.Contains(d.Stderr(), "SIGNALTTY_LOGIND=0") {
		t.Errorf("the daemon does not log that the monitor is off:\n%s", d.Stderr())
	}
}

// A PrepareForShutdown(true) from a connection that is not logind is never
// believed (the bus only delivers logind's, the monitor checks the sender).
func TestLogindSpoofedSignalIgnored(t *testing.T) {
	t.Parallel()
	l := harness.StartLogind(t, harness.LogindOptions{})
	d := lgStart(t, l.Address)
	l.WaitInhibitor(t, d.Pid(), harness.PollTimeout)
	// Another subscriber without a sender rule sees the spoof: the bus
	// routed it.
	seen := make(chan *dbus.Signal, 4)
	o := l.Connect(t)
	if err := o.AddMatchSignal(dbus.WithMatchInterface("org.freedesktop.login1.Manager"), dbus.WithMatchMember("PrepareForShutdown")); err != nil {
		t.Fatal(err)
	}
	o.Signal(seen)
	c := l.Connect(t)
	if err := c.Emit(dbus.ObjectPath("/org/freedesktop/login1"), "org.freedesktop.login1.Manager.PrepareForShutdown", true); err != nil {
		t.Fatalf("emitting the spoofed signal: %v", err)
	}
	select {
	case sig := <-seen:
		if sig.Sender != c.Names()[0] {
			t.Fatalf("unexpected signal %+v", sig)
		}
	case <-time.After(harness.PollTimeout):
		t.Fatal("the spoofed signal was not routed by the bus")
	}
	// A barrier: the name's new owner reaches the daemon after the spoof.
	l.Restart(t)
	d.WaitLogind(t, harness.PollTimeout, "the inhibitor taken from the new logind", func(s harness.LogindReport) bool {
		return s.Holding && s.Inhibits == 2
	})
	if d.Exited() || strings.Contains(d.Stderr(), "host is shutting down") {
		t.Fatalf("a spoofed PrepareForShutdown was acted on:\n%s", d.Stderr())
	}
}

// Save-to-release time with 200 live panes whose ~64 KiB tails all changed
// since the last save (output never triggers a save, so this is the usual
// case at shutdown). SIGNALTTY_BENCH=1 runs it.
func TestLogindShutdownSaveBench(t *testing.T) {
	if os.Getenv("SIGNALTTY_BENCH") != "1" {
		t.Skip("a measurement: SIGNALTTY_BENCH=1 runs it")
	}
	n := 200
	if s := os.Getenv("SIGNALTTY_BENCH_PANES"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	l := harness.StartLogind(t, harness.LogindOptions{Delay: 60, Systemd1: true})
	d := lgStart(t, l.Address)
	l.WaitInhibitor(t, d.Pid(), harness.PollTimeout)
	w := d.CreateWorkspace(t, "bench")
	trigger := filepath.Join(d.Dir, "go")
	script := `while [ ! -e "$1" ]; do sleep 0.2; done; seq -f '%070g' 1 1000; echo done; exec sleep 1000`
	var panes []harness.Pane
	for i := 0; i < n; i++ {
		panes = append(panes, d.Spawn(t, ws(w), "sh", "-c", script, "sh", trigger))
	}
	harness.Eventually(t, 3*harness.PollTimeout, "the structure saved", func() (bool, string) {
		p := lgPersist(t, d)
		return p.LastError == nil && !p.Dirty, fmt.Sprintf("%+v", p)
	})
	os.WriteFile(trigger, nil, 0o600)
	for _, p := range panes {
		d.WaitLine(t, p.ID, "done")
	}
	watch := l.WatchPrepare(t)
	l.PowerOff(t)
	start := watch.Wait(t, 1, harness.PollTimeout)
	end := watch.Wait(t, 2, 70*time.Second)
	if code := d.WaitExit(t, harness.StopTimeout); code != 0 {
		t.Errorf("exit status %d", code)
	}
	var tails, bytes int64
	filepath.Walk(filepath.Join(d.Dir, "state", "signaltty", "history"), func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			tails++
			bytes += fi.Size()
		}
		return nil
	})
	write := lgLogField(d.Stderr(), "logind: snapshot saved for shutdown", "write=")
	release := lgLogField(d.Stderr(), "logind: released the shutdown inhibitor", "after=")
	t.Logf("%d panes, %d tails, %.1f MiB: store write %s, announcement->release %s (daemon), PrepareForShutdown true->false %v (bus)",
		n, tails, float64(bytes)/(1<<20), write, release, end.At.Sub(start.At))
	lgCheckShutdownSnapshot(t, d, panes, harness.Pane{})
}

type lgPersistence struct {
	Dirty     bool    `json:"dirty"`
	Frozen    bool    `json:"frozen"`
	LastError *string `json:"last_error"`
}

func lgPersist(t *testing.T, d *harness.Daemon) lgPersistence {
	t.Helper()
	var r struct {
		Status struct {
			Persistence lgPersistence `json:"persistence"`
		} `json:"status"`
	}
	d.JSON(t, &r, "status")
	return r.Status.Persistence
}

// lgLogField returns the value of key in the first log line containing msg.
func lgLogField(log, msg, key string) string {
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, msg) {
			if _, v, ok := strings.Cut(line, " "+key); ok {
				v, _, _ = strings.Cut(v, " ")
				return v
			}
		}
	}
	return "?"
}

type lgFileID struct{ dev, ino uint64 }

// lgStatFD stats what /proc/<pid>/fd/<n> refers to.
func lgStatFD(pid, n int) (lgFileID, bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(fmt.Sprintf("/proc/%d/fd/%d", pid, n), &st); err != nil {
		return lgFileID{}, false
	}
	return lgFileID{st.Dev, st.Ino}, true
}

// lgInhibitorFDs returns the daemon's descriptors of the inhibitor FIFOs
// logind holds open (/run/systemd/inhibit/<id>.ref in its namespace; the
// link names it from that namespace's root, which under a chroot such as
// tests/fresh-machine.sh's is not this process's: matched as a part).
func lgInhibitorFDs(t *testing.T, daemon, logind int) map[int]lgFileID {
	t.Helper()
	refs := map[lgFileID]bool{}
	for n, target := range harness.FDs(t, logind) {
		if isInhibitorRef(target) {
			if id, ok := lgStatFD(logind, n); ok {
				refs[id] = true
			}
		}
	}
	out := map[int]lgFileID{}
	for n := range harness.FDs(t, daemon) {
		if id, ok := lgStatFD(daemon, n); ok && refs[id] {
			out[n] = id
		}
	}
	return out
}

// isInhibitorRef reports whether a descriptor's link names a logind
// inhibitor FIFO (…/run/systemd/inhibit/<id>.ref, " (deleted)" once logind
// removed it).
func isInhibitorRef(target string) bool {
	return strings.Contains(target, "/run/systemd/inhibit/") && strings.Contains(target, ".ref")
}

// lgRefFDs counts the daemon's descriptors that look like logind inhibitor
// FIFOs, of any logind.
func lgRefFDs(t *testing.T, pid int) int {
	t.Helper()
	n := 0
	for _, target := range harness.FDs(t, pid) {
		if isInhibitorRef(target) {
			n++
		}
	}
	return n
}

// lgFdFlags parses the octal "flags:" line of /proc/<pid>/fdinfo/<fd>.
func lgFdFlags(t *testing.T, info string) int {
	t.Helper()
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			f, err := strconv.ParseInt(strings.TrimSpace(v), 8, 64)
			if err != nil {
				t.Fatalf("fdinfo flags %q: %v", v, err)
			}
			return int(f)
		}
	}
	t.Fatalf("no flags in fdinfo:\n%s", info)
	return 0
}

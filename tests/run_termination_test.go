package tests

// Stopping a run: its deadline, Run.Cancel, a reap that does not come, and
// the causes a pane kill, a removal and the daemon's shutdown give it
// (docs/run-wait.md for causes and statuses, docs/termination.md for the
// stop sequence).

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// --deadline-ms 300 terminates: sleep 100 (SIGHUP), a shell that traps HUP
// and exits 0 (exit_code 0, still not succeeded), a program that ignores
// HUP (SIGKILL after the 2000 ms grace): cause deadline, status 124.
func TestRunDeadlineTerminates(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "deadline").ID
	dir := harness.TempDir(t)
	deadline := harness.Ptr(300)
	specs := map[string]harness.RunSpec{
		"sleep": {Key: "dl-sleep", Workspace: ws, Argv: []string{"sleep", "100"}, DeadlineMs: deadline},
		"trap": {Key: "dl-trap", Workspace: ws, DeadlineMs: deadline,
			// stderr off: sh reports "Hangup" for its sleep only when the
			// HUP lands while one runs, which would make the two tails differ.
			Shell: harness.Ptr(`exec 2>/dev/null; trap 'exit 0' HUP; ` + harness.Mark(dir, "trap") + `; while :; do sleep 0.05; done`)},
		"ignore": {Key: "dl-ignore", Workspace: ws, DeadlineMs: deadline,
			Shell: harness.Ptr(`trap '' HUP; ` + harness.Mark(dir, "ignore") + `; exec sleep 100`)},
	}
	starts := map[string][]harness.RunStart{}
	for name, spec := range specs { // all six runs at once
		starts[name] = d.StartBoth(t, spec)
	}
	for name, sts := range starts {
		var recs []harness.RunRecord
		for _, st := range sts {
			recs = append(recs, d.WaitBoth(t, st.Run))
		}
		harness.SameRecords(t, name+" records via the CLI and via varlinkctl", recs...)
		for _, rec := range recs {
			switch name {
			case "sleep":
				harness.WantOutcome(t, rec, "terminated", nil, "SIGHUP", "deadline", 124)
			case "trap":
				harness.WantOutcome(t, rec, "terminated", harness.Ptr(0), "", "deadline", 124)
			case "ignore":
				harness.WantOutcome(t, rec, "terminated", nil, "SIGKILL", "deadline", 124)
				if ms := harness.Deref(rec.DurationMs); ms < 2300 {
					t.Errorf("a HUP-ignoring run was killed after %d ms, want SIGKILL only after deadline 300 + grace 2000 ms", ms)
				}
			}
			if ms := harness.Deref(rec.DurationMs); ms < 300 {
				t.Errorf("%s completed after %d ms, before its 300 ms deadline", name, ms)
			}
		}
	}
	if harness.MarkCount(dir, "trap") != 2 || harness.MarkCount(dir, "ignore") != 2 {
		t.Errorf("markers: trap %d, ignore %d, want 2 each (one per transport)", harness.MarkCount(dir, "trap"), harness.MarkCount(dir, "ignore"))
	}
}

// run cancel --signal TERM terminates a hung run (cause cancel, status
// 125) and returns once its command ended; a second cancel returns the
// identical record and signals nothing.
func TestRunCancelTerminatesOnce(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "cancel").ID
	dir := harness.TempDir(t)
	var recs []harness.RunRecord
	trs := harness.Both(d)
	for _, tr := range trs {
		st := tr.MustStart(t, harness.ShellSpec("cancel-"+tr.Short(), ws, hung(dir, tr.Short())))
		harness.WaitMarker(t, dir, tr.Short())
		r := tr.Cancel(t, st.Run, "TERM", harness.Ptr(200))
		if r.Err != nil || r.Exit != 0 {
			t.Fatalf("cancel via %s: %s", tr.Name, r)
		}
		rec := r.Record(t)
		harness.CheckRecord(t, rec)
		harness.WantOutcome(t, rec, "terminated", nil, "SIGTERM", "cancel", 125)
		if !harness.Gone(st.Pid) {
			t.Errorf("cancel returned before the command (pid %d) ended", st.Pid)
		}
		recs = append(recs, rec)
	}
	harness.SameRecords(t, "cancelled records via the CLI and via varlinkctl", recs...)
	for _, rec := range recs {
		run := rec.Run
		d.WaitBoth(t, run)
		w := d.TakeWorld(t)
		for _, tr := range trs {
			r := tr.Cancel(t, run, "KILL", harness.Ptr(0))
			if r.Err != nil || r.Exit != 0 {
				t.Fatalf("second cancel via %s: %s", tr.Name, r)
			}
			harness.SameJSON(t, "the record of a second cancel and of the first", r.Record(t), rec)
		}
		w.Unchanged(t, "a cancel of a completed run")
	}
}

// A run ignoring every catchable signal whose reap is held (the test seam
// standing in for uninterruptible sleep): run cancel --grace-ms 0 fails
// timeout.terminate after the 1000 ms kill-wait; the run stays terminating
// and completes with cause cancel when the seam releases it.
func TestRunCancelOfUnreapedRunTimesOut(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d, hooks := harness.StartHooks(t)
	ws := d.CreateWorkspace(t, "unreaped").ID
	dir := harness.TempDir(t)
	ignoreAll := `trap '' HUP INT QUIT TERM USR1 USR2 ALRM PIPE; ` + harness.Mark(dir, "%s") + `; exec sleep 100`
	var errs []harness.Reply
	var started []harness.RunStart
	for _, tr := range harness.Both(d) {
		st := tr.MustStart(t, harness.ShellSpec("stuck-"+tr.Short(), ws, fmt.Sprintf(ignoreAll, tr.Short())))
		started = append(started, st)
		harness.WaitMarker(t, dir, tr.Short())
		hold := filepath.Join(hooks, "hold-"+strconv.Itoa(st.Pid))
		harness.Touch(t, hold)
		t.Cleanup(func() { os.Remove(hold) })
		r := tr.Cancel(t, st.Run, "", harness.Ptr(0))
		harness.WantError(t, r, "timeout.terminate", map[string]any{"panes": []any{st.Pane}})
		// grace 0: SIGKILL at once, then the 1000 ms kill-wait; not the
		// 2000 ms default grace first, which would take 3 s or more.
		if r.Duration < time.Second || r.Duration >= 3*time.Second {
			t.Errorf("cancel --grace-ms 0 failed after %v, want the 1000 ms kill-wait only (grace 0 is no grace)", r.Duration)
		}
		rec := d.GetBoth(t, st.Run, nil)
		if rec.State != "terminating" || harness.Deref(rec.Cause) != "cancel" {
			t.Errorf("after timeout.terminate: state %s cause %s, want terminating cancel", rec.State, harness.Deref(rec.Cause))
		}
		if p := d.GetPane(t, st.Pane); !p.Terminating || p.State != "live" {
			t.Errorf("pane %s: terminating %v state %s, want a live pane still terminating", p.ID, p.Terminating, p.State)
		}
		for _, tr2 := range harness.Both(d) {
			harness.WantError(t, tr2.Wait(t, st.Run, harness.Ptr(0), nil), "timeout.wait", map[string]any{"run": st.Run, "state": "terminating"})
		}
		errs = append(errs, r)
	}
	for _, r := range errs {
		r.Err.Data = nil // the panes differ
	}
	harness.SameErrors(t, "timeout.terminate", errs...)
	var recs []harness.RunRecord
	for _, st := range started {
		os.Remove(filepath.Join(hooks, "hold-"+strconv.Itoa(st.Pid)))
		rec := d.WaitBoth(t, st.Run)
		harness.WantOutcome(t, rec, "terminated", nil, "SIGKILL", "cancel", 125)
		recs = append(recs, rec)
	}
	harness.SameRecords(t, "records of released runs via the CLI and via varlinkctl", recs...)
}

// A pane kill of a run's pane, a recursive tab or workspace removal and
// the daemon's shutdown terminate the run with causes pane_kill, removal
// and shutdown; its waiters get the record (at shutdown, best effort).
func TestRunStopCauses(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "causes").ID
	dir := harness.TempDir(t)

	// waiters waits for run through both transports in the background.
	waiters := func(d *harness.Daemon, run string) (*harness.Background, *harness.Background) {
		c := harness.CLIOf(d).BackgroundWait(t, run)
		v := harness.VarlinkctlOf(d).BackgroundWait(t, run)
		c.WaitBlocked(t)
		v.WaitBlocked(t)
		return c, v
	}
	for _, c := range []struct {
		name, cause string
		stop        func(tr harness.Transport, st harness.RunStart)
	}{
		{"pane_kill", "pane_kill", func(tr harness.Transport, st harness.RunStart) {
			r := tr.Call(t, "dev.signaltty.Mux.KillPane", map[string]any{"pane": st.Pane}, "pane", "kill", "--pane", st.Pane)
			if r.Err != nil {
				t.Fatalf("pane kill via %s: %s", tr.Name, r)
			}
		}},
		{"tab removal", "removal", func(tr harness.Transport, st harness.RunStart) {
			r := tr.Call(t, "dev.signaltty.Mux.RemoveTab", map[string]any{"tab": st.Tab, "recursive": true}, "tab", "remove", "--tab", st.Tab, "--recursive")
			if r.Err != nil {
				t.Fatalf("tab remove --recursive via %s: %s", tr.Name, r)
			}
		}},
		{"workspace removal", "removal", func(tr harness.Transport, st harness.RunStart) {
			r := tr.Call(t, "dev.signaltty.Mux.RemoveWorkspace", map[string]any{"workspace": st.Workspace, "recursive": true},
				"workspace", "remove", "--workspace", st.Workspace, "--recursive")
			if r.Err != nil {
				t.Fatalf("workspace remove --recursive via %s: %s", tr.Name, r)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var recs []harness.RunRecord
			for _, tr := range harness.Both(d) {
				target := ws
				if c.name == "workspace removal" {
					target = d.CreateWorkspace(t, "causes-"+tr.Short()).ID
				}
				name := strings.ReplaceAll(c.name, " ", "-") + "-" + tr.Short()
				st := tr.MustStart(t, harness.ShellSpec(name, target, hung(dir, name)))
				harness.WaitMarker(t, dir, name)
				cw, vw := waiters(d, st.Run)
				c.stop(tr, st)
				rc := cw.Reply(t, harness.PollTimeout)
				rv := vw.Reply(t, harness.PollTimeout)
				if rc.Err != nil || rv.Err != nil {
					t.Fatalf("waiters failed:\n%s\n%s", rc, rv)
				}
				if rc.Exit != 125 {
					t.Errorf("run wait exited %d, want 125", rc.Exit)
				}
				harness.SameJSON(t, "the records both waiters got", rc.Record(t), rv.Record(t))
				rec := rc.Record(t)
				harness.WantOutcome(t, rec, "terminated", nil, "SIGHUP", c.cause, 125)
				harness.SameJSON(t, "the waiters' record and Get's", rec, d.GetBoth(t, st.Run, nil))
				recs = append(recs, rec)
			}
			harness.SameRecords(t, "records via the CLI and via varlinkctl", recs...)
		})
	}

	t.Run("shutdown", func(t *testing.T) {
		d2 := harness.Start(t)
		ws2 := d2.CreateWorkspace(t, "causes-shutdown").ID
		var ws []*harness.Background
		for _, tr := range harness.Both(d2) {
			st := tr.MustStart(t, harness.ShellSpec("shutdown-"+tr.Short(), ws2, hung(dir, "shutdown"+tr.Short())))
			harness.WaitMarker(t, dir, "shutdown"+tr.Short())
			cw, vw := waiters(d2, st.Run)
			ws = append(ws, cw, vw)
		}
		if r := d2.CLI(t, "--json", "shutdown"); r.Code != 0 {
			t.Fatalf("shutdown: %s", r)
		}
		if code := d2.WaitExit(t, harness.StopTimeout); code != 0 {
			t.Errorf("signalttyd exited %d after Shutdown", code)
		}
		// Delivery at shutdown is best effort: a waiter gets the completed
		// record (cause shutdown) or loses its connection, nothing else.
		got := 0
		for _, w := range ws {
			res := w.Result(t, harness.PollTimeout)
			switch {
			case w.Via == "cli" && strings.Contains(res.Stdout, `"record"`), w.Via == "varlinkctl" && res.Code == 0:
				var rep harness.Reply
				if w.Via == "cli" {
					rep = harness.ParseCLIReply(t, res)
				} else {
					rep = harness.ParseVarlinkctlReply(t, res)
				}
				harness.WantOutcome(t, rep.Record(t), "terminated", nil, "SIGHUP", "shutdown", 125)
				got++
			case w.Via == "cli":
				if r := harness.ParseCLIReply(t, res); r.Err == nil || (r.Err.Code != "cancelled" && r.Err.Code != "unavailable.daemon") {
					t.Errorf("a CLI waiter at shutdown: want the record, cancelled or a lost connection: %s", res)
				}
			default:
				if res.Code == 0 {
					t.Errorf("varlinkctl waiter: %s", res)
				}
			}
			if w.Via == "cli" && !strings.Contains(res.Stdout, `"record"`) {
				t.Logf("a %s waiter got no record at shutdown (best effort): %s", w.Via, res)
			}
		}
		t.Logf("%d of %d waiters got the record at shutdown", got, len(ws))
		// The daemon's own account: both runs completed terminated (125).
		if n := strings.Count(d2.Stderr(), "outcome=terminated status=125"); n != 2 {
			t.Errorf("the daemon logged %d runs completed terminated with status 125 at shutdown, want 2:\n%s", n, d2.Stderr())
		}
	})
}

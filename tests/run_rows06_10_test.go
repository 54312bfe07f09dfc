package tests

// Conformance matrix of the trusted run/wait spec (§13), rows 6–10:
// waiting, cancelling, stuck reaps, termination causes and forged markers.

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// hung is a shell command that writes its marker and then sleeps.
func hung(dir, name string) string {
	return mark(dir, name) + "; exec sleep 100"
}

// wantRunning requires the run to be running, through both transports.
func wantRunning(t *testing.T, d *harness.Daemon, run, what string) {
	t.Helper()
	rec := mustGetBoth(t, d, run, nil)
	if rec["state"] != "running" {
		t.Errorf("%s: run %s is %v, want running: %v", what, run, rec["state"], rec)
	}
	if pid, _ := num(rec, "pid"); harness.Gone(pid) {
		t.Errorf("%s: the command of %s (pid %d) is gone", what, run, pid)
	}
}

// Row 6: a wait with --timeout-ms 100 or 0 fails timeout.wait (exit 7);
// cancelling a wait (Ctrl-C: cancelled, exit 8) or closing its connection
// ends only the wait: the run keeps running and its command started once.
func TestRunRow06WaitNeverActs(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := newWorkspace(t, d, "row6")
	dir := markers(t)
	var runs []string
	cancelAtEnd(t, d, &runs)
	for _, tr := range both(d) {
		st := tr.mustStart(t, shellSpec("hang-"+tr.short(), ws, hung(dir, tr.short())))
		runs = append(runs, st.Run)
	}
	for i, run := range runs {
		want := map[string]any{"run": run, "state": "running"}
		for _, ms := range []int{100, 0} {
			var errs []reply
			for _, tr := range both(d) {
				r := tr.wait(t, run, ptr(ms), nil)
				wantError(t, r, "timeout.wait", want)
				if ms == 100 && r.dur < 100*time.Millisecond {
					t.Errorf("--timeout-ms 100 returned after %v", r.dur)
				}
				errs = append(errs, r)
			}
			sameErrors(t, fmt.Sprintf("timeout.wait of --timeout-ms %d", ms), errs...)
			wantRunning(t, d, run, fmt.Sprintf("after a --timeout-ms %d wait", ms))
		}

		// A raw connection closed right after sending a wait (the daemon
		// reads the request before the end of the stream; the checks below
		// come later).
		c, _ := rawSend(t, d, "dev.signaltty.Run.Wait", map[string]any{"run": run})
		c.Close()

		// Ctrl-C in `signaltty run wait` cancels the wait.
		p := bgCLI(t, d, "run", "wait", "--run", run)
		p.waitBlocked(t)
		p.signal(syscall.SIGINT)
		wantError(t, p.reply(t, "cli", harness.PollTimeout), "cancelled", nil)
		wantRunning(t, d, run, "after a cancelled CLI wait")

		// varlinkctl's wait ends with its connection.
		v := bgVL(t, d, "dev.signaltty.Run.Wait", map[string]any{"run": run})
		v.waitBlocked(t)
		v.signal(syscall.SIGTERM)
		v.result(t, harness.PollTimeout)
		wantRunning(t, d, run, "after varlinkctl's waiting connection closed")

		name := []string{"c", "v"}[i]
		if n := count(dir, name); n != 1 {
			t.Errorf("run %s: the command started %d times, want 1", run, n)
		}
	}
}

// Row 7: run.cancel --signal TERM terminates a hung run (cause cancel); a
// second cancel returns the identical record and signals nothing.
func TestRunRow07Cancel(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := newWorkspace(t, d, "row7")
	dir := markers(t)
	var recs []map[string]any
	trs := both(d)
	for _, tr := range trs {
		st := tr.mustStart(t, shellSpec("cancel-"+tr.short(), ws, hung(dir, tr.short())))
		waitMarker(t, dir, tr.short())
		r := tr.cancel(t, st.Run, "TERM", ptr(200))
		if r.err != nil || r.exit != 0 {
			t.Fatalf("cancel via %s: %s", tr.name, r)
		}
		rec := r.record(t)
		checkRecord(t, rec)
		wantOutcome(t, rec, "terminated", nil, "SIGTERM", "cancel", 125)
		if !harness.Gone(st.Pid) {
			t.Errorf("cancel returned before the command (pid %d) ended", st.Pid)
		}
		recs = append(recs, rec)
	}
	sameRecords(t, "cancelled records via the CLI and via varlinkctl", recs...)
	for _, rec := range recs {
		run := field(rec, "run")
		mustWaitBoth(t, d, run)
		w := takeWorld(t, d)
		for _, tr := range trs {
			r := tr.cancel(t, run, "KILL", ptr(0))
			if r.err != nil || r.exit != 0 {
				t.Fatalf("second cancel via %s: %s", tr.name, r)
			}
			sameJSON(t, "the record of a second cancel and of the first", r.record(t), rec)
		}
		w.unchanged(t, d, "a cancel of a completed run")
	}
}

// waitMarker polls until marker name in dir was written.
func waitMarker(t *testing.T, dir, name string) {
	t.Helper()
	harness.Eventually(t, harness.PollTimeout, "marker "+name+" written", func() (bool, string) {
		return count(dir, name) > 0, ""
	})
}

// Row 8: a run ignoring every catchable signal whose reap is held (the
// test seam standing in for uninterruptible sleep): run.cancel --grace-ms 0
// fails timeout.terminate after the 1000 ms kill-wait; the run stays
// terminating and completes with cause cancel when the seam releases it.
func TestRunRow08StuckReap(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d, hooks := harness.StartHooks(t)
	ws := newWorkspace(t, d, "row8")
	dir := markers(t)
	ignoreAll := `trap '' HUP INT QUIT TERM USR1 USR2 ALRM PIPE; ` + mark(dir, "%s") + `; exec sleep 100`
	var errs []reply
	var started []startResult
	for _, tr := range both(d) {
		st := tr.mustStart(t, shellSpec("stuck-"+tr.short(), ws, fmt.Sprintf(ignoreAll, tr.short())))
		started = append(started, st)
		waitMarker(t, dir, tr.short())
		hold := filepath.Join(hooks, "hold-"+strconv.Itoa(st.Pid))
		touch(t, hold)
		t.Cleanup(func() { os.Remove(hold) })
		r := tr.cancel(t, st.Run, "", ptr(0))
		wantError(t, r, "timeout.terminate", map[string]any{"panes": []any{st.Pane}})
		// grace 0: SIGKILL at once, then the 1000 ms kill-wait; not the 2000 ms default grace first.
		if r.dur < time.Second || r.dur > 1900*time.Millisecond {
			t.Errorf("cancel --grace-ms 0 failed after %v, want the 1000 ms kill-wait only (grace 0 is no grace)", r.dur)
		}
		rec := mustGetBoth(t, d, st.Run, nil)
		if rec["state"] != "terminating" || rec["cause"] != "cancel" {
			t.Errorf("after timeout.terminate: state %v cause %v, want terminating cancel", rec["state"], rec["cause"])
		}
		if p := d.GetPane(t, st.Pane); !p.Terminating || p.State != "live" {
			t.Errorf("pane %s: terminating %v state %s, want a live pane still terminating", p.ID, p.Terminating, p.State)
		}
		for _, tr2 := range both(d) {
			wantError(t, tr2.wait(t, st.Run, ptr(0), nil), "timeout.wait", map[string]any{"run": st.Run, "state": "terminating"})
		}
		errs = append(errs, r)
	}
	for _, r := range errs {
		r.err.Data = nil // the panes differ
	}
	sameErrors(t, "timeout.terminate", errs...)
	var recs []map[string]any
	for _, st := range started {
		os.Remove(filepath.Join(hooks, "hold-"+strconv.Itoa(st.Pid)))
		rec := mustWaitBoth(t, d, st.Run)
		wantOutcome(t, rec, "terminated", nil, "SIGKILL", "cancel", 125)
		recs = append(recs, rec)
	}
	sameRecords(t, "records of released runs via the CLI and via varlinkctl", recs...)
}

// Row 9: pane.kill of a run's pane, a recursive tab removal and daemon
// shutdown terminate it with causes pane_kill, removal and shutdown; its
// waiters get the record (at shutdown, best effort).
func TestRunRow09Causes(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := newWorkspace(t, d, "row9")
	dir := markers(t)

	// waiters waits for run through both transports in the background.
	waiters := func(d *harness.Daemon, run string) (*bgProc, *bgProc) {
		c := bgCLI(t, d, "run", "wait", "--run", run)
		v := bgVL(t, d, "dev.signaltty.Run.Wait", map[string]any{"run": run})
		c.waitBlocked(t)
		v.waitBlocked(t)
		return c, v
	}
	for _, c := range []struct {
		name, cause string
		stop        func(tr transport, st startResult)
	}{
		{"pane_kill", "pane_kill", func(tr transport, st startResult) {
			r := tr.call(t, "dev.signaltty.Mux.KillPane", map[string]any{"pane": st.Pane}, "pane", "kill", "--pane", st.Pane)
			if r.err != nil {
				t.Fatalf("pane kill via %s: %s", tr.name, r)
			}
		}},
		{"tab removal", "removal", func(tr transport, st startResult) {
			r := tr.call(t, "dev.signaltty.Mux.RemoveTab", map[string]any{"tab": st.Tab, "recursive": true}, "tab", "remove", "--tab", st.Tab, "--recursive")
			if r.err != nil {
				t.Fatalf("tab remove --recursive via %s: %s", tr.name, r)
			}
		}},
		{"workspace removal", "removal", func(tr transport, st startResult) {
			r := tr.call(t, "dev.signaltty.Mux.RemoveWorkspace", map[string]any{"workspace": st.Workspace, "recursive": true},
				"workspace", "remove", "--workspace", st.Workspace, "--recursive")
			if r.err != nil {
				t.Fatalf("workspace remove --recursive via %s: %s", tr.name, r)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var recs []map[string]any
			for _, tr := range both(d) {
				target := ws
				if c.name == "workspace removal" {
					target = newWorkspace(t, d, "row9-"+tr.short())
				}
				name := strings.ReplaceAll(c.name, " ", "-") + "-" + tr.short()
				st := tr.mustStart(t, shellSpec(name, target, hung(dir, name)))
				waitMarker(t, dir, name)
				cw, vw := waiters(d, st.Run)
				c.stop(tr, st)
				rc := cw.reply(t, "cli", harness.PollTimeout)
				rv := vw.reply(t, "varlinkctl", harness.PollTimeout)
				if rc.err != nil || rv.err != nil {
					t.Fatalf("waiters failed:\n%s\n%s", rc, rv)
				}
				if rc.exit != 125 {
					t.Errorf("run wait exited %d, want 125", rc.exit)
				}
				sameJSON(t, "the records both waiters got", rc.record(t), rv.record(t))
				rec := rc.record(t)
				wantOutcome(t, rec, "terminated", nil, "SIGHUP", c.cause, 125)
				sameJSON(t, "the waiters' record and Get's", rec, mustGetBoth(t, d, st.Run, nil))
				recs = append(recs, rec)
			}
			sameRecords(t, "records via the CLI and via varlinkctl", recs...)
		})
	}

	t.Run("shutdown", func(t *testing.T) {
		d2 := harness.Start(t)
		ws2 := newWorkspace(t, d2, "row9-shutdown")
		type waiter struct {
			p   *bgProc
			via string
		}
		var ws []waiter
		for _, tr := range both(d2) {
			st := tr.mustStart(t, shellSpec("shutdown-"+tr.short(), ws2, hung(dir, "shutdown"+tr.short())))
			waitMarker(t, dir, "shutdown"+tr.short())
			cw, vw := waiters(d2, st.Run)
			ws = append(ws, waiter{cw, "cli"}, waiter{vw, "varlinkctl"})
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
			res := w.p.result(t, harness.PollTimeout)
			switch {
			case w.via == "cli" && strings.Contains(res.Stdout, `"record"`), w.via == "varlinkctl" && res.Code == 0:
				var rep reply
				if w.via == "cli" {
					rep = parseCLI(t, res)
				} else {
					rep = parseVL(t, res)
				}
				wantOutcome(t, rep.record(t), "terminated", nil, "SIGHUP", "shutdown", 125)
				got++
			case w.via == "cli":
				if r := parseCLI(t, res); r.err == nil || (r.err.Code != "cancelled" && r.err.Code != "unavailable.daemon") {
					t.Errorf("a CLI waiter at shutdown: want the record, cancelled or a lost connection: %s", res)
				}
			default:
				if res.Code == 0 {
					t.Errorf("varlinkctl waiter: %s", res)
				}
			}
			if w.via == "cli" && !strings.Contains(res.Stdout, `"record"`) {
				t.Logf("a %s waiter got no record at shutdown (best effort): %s", w.via, res)
			}
		}
		t.Logf("%d of %d waiters got the record at shutdown", got, len(ws))
		// The daemon's own account: both runs completed terminated (125).
		if n := strings.Count(d2.Stderr(), "outcome=terminated status=125"); n != 2 {
			t.Errorf("the daemon logged %d runs completed terminated with status 125 at shutdown, want 2:\n%s", n, d2.Stderr())
		}
	})
}

// Row 10: forged OSC 133 C, D;0, OSC 7501 state=done and the text of a
// success record are observed as such, but the run stays running until
// its command exits 3: failed, 3, and run.completed only after the reap.
func TestRunRow10ForgedMarkers(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := newWorkspace(t, d, "row10")
	dir := markers(t)
	events := d.Subscribe(t, nil, nil)
	var recs []map[string]any
	for _, tr := range both(d) {
		gate := filepath.Join(dir, "gate-"+tr.short())
		touch(t, gate)
		forged := `printf '\033]133;A\007\033]133;C\007\033]133;D;0\007\033]7501;state=done\007'; ` +
			`echo '{"record":{"state":"completed","outcome":"succeeded","exit_code":0,"status":0}}'; ` +
			`while [ -e '` + gate + `' ]; do sleep 0.02; done; exit 3`
		st := tr.mustStart(t, shellSpec("forged-"+tr.short(), ws, forged))
		waitSeen(t, events, "program.status_changed of "+st.Pane, func(e harness.Event) bool {
			return e.Type == "program.status_changed" && e.Resource == st.Pane
		})
		var finished *harness.Event
		for _, e := range events.Seen() {
			if e.Type == "command.finished" && e.Resource == st.Pane {
				finished = &e
			}
		}
		if finished == nil {
			t.Errorf("no command.finished observed for %s:\n%s", st.Pane, harness.DumpEvents(events.Seen()))
		} else if code, ok := finished.Data["code"].(float64); !ok || code != 0 {
			if code, ok := finished.Data["exit_code"].(float64); !ok || code != 0 {
				t.Errorf("command.finished %s, want code 0", finished.Raw)
			}
		}
		d.WaitLine(t, st.Pane, `{"record":{"state":"completed","outcome":"succeeded","exit_code":0,"status":0}}`)
		wantRunning(t, d, st.Run, "after the forged markers")
		for _, tr2 := range both(d) {
			wantError(t, tr2.wait(t, st.Run, ptr(0), nil), "timeout.wait", map[string]any{"run": st.Run, "state": "running"})
		}
		for _, e := range events.Seen() {
			if e.Resource == st.Run && e.Type != "run.started" {
				t.Errorf("a run event before the command exited: %s", e.Raw)
			}
		}
		remove(t, gate)
		rec := mustWaitBoth(t, d, st.Run)
		wantOutcome(t, rec, "failed", ptr(3), "", "", 3)
		recs = append(recs, rec)

		// run.completed comes right after the pane's pane.exited, never before.
		completed := waitSeen(t, events, "run.completed of "+st.Run, func(e harness.Event) bool {
			return e.Type == "run.completed" && e.Resource == st.Run
		})
		var exited int64
		for _, e := range events.Seen() {
			if e.Type == "pane.exited" && e.Resource == st.Pane {
				exited = e.Seq
			}
		}
		if exited == 0 || completed.Seq != exited+1 {
			t.Errorf("run.completed (seq %d) does not follow pane.exited (seq %d) in the same turn:\n%s", completed.Seq, exited, harness.DumpEvents(events.Seen()))
		}
		// The pane-exit sequence first clears the forged program status.
		var cleanup *harness.Event
		for _, e := range events.Seen() {
			if e.Seq == exited-1 {
				cleanup = &e
			}
		}
		if cleanup == nil || cleanup.Type != "program.status_changed" || cleanup.Resource != st.Pane || cleanup.Data["reason"] != "pane_exit" {
			t.Errorf("the event before pane.exited (seq %d) is not the program-status cleanup of %s:\n%s", exited, st.Pane, harness.DumpEvents(events.Seen()))
		}
		if completed.Data["outcome"] != "failed" || completed.Data["exit_code"] != float64(3) {
			t.Errorf("run.completed %s, want outcome failed exit_code 3", completed.Raw)
		}
	}
	sameRecords(t, "records via the CLI and via varlinkctl", recs...)
}

package tests

// A run's outcome, exit code, signal and status come only from the daemon's
// own wait status for its leader: never from markers or text the command
// prints (docs/run-wait.md). Every case goes through the CLI and through
// varlinkctl.

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// ["true"] succeeds: exit_code 0, status 0, CLI exit 0, no output.
func TestRunTrueSucceeds(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "succeeds").ID
	rec := d.RunBoth(t, harness.ArgvSpec("true", ws, "true"))
	harness.WantOutcome(t, rec, "succeeded", harness.Ptr(0), "", "", 0)
	if rec.Shell != false {
		t.Errorf("an argv run has shell %v, want false", rec.Shell)
	}
	out := rec.MustOutput(t)
	if len(out.Lines) != 0 || out.Complete != true {
		t.Errorf("true prints nothing: want no lines and complete true, got %+v", out)
	}
}

// --shell 'exit 3', ["false"] and --shell 'nosuchcmd' fail with 3, 1 and
// the shell's 127; the CLI exits with them.
func TestRunNonZeroExitFails(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "fails").ID
	for _, c := range []struct {
		name  string
		spec  harness.RunSpec
		code  int
		shell bool
	}{
		{"exit 3", harness.ShellSpec("exit3", ws, "exit 3"), 3, true},
		{"false", harness.ArgvSpec("false", ws, "false"), 1, false},
		{"nosuchcmd", harness.ShellSpec("nosuchcmd", ws, "nosuchcmd"), 127, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := d.RunBoth(t, c.spec)
			harness.WantOutcome(t, rec, "failed", harness.Ptr(c.code), "", "", c.code)
			if rec.Shell != c.shell {
				t.Errorf("shell %v, want %v", rec.Shell, c.shell)
			}
		})
	}
}

// A shell killing itself with SIGSEGV: signaled, signal SIGSEGV, no
// exit_code, status 139 (128 + 11).
func TestRunKilledBySignalIsSignaled(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "signaled").ID
	rec := d.RunBoth(t, harness.ShellSpec("segv", ws, "kill -SEGV $$"))
	harness.WantOutcome(t, rec, "signaled", nil, "SIGSEGV", "", 139)
}

// Forged OSC 133 C, D;0, OSC 7501 state=done and the text of a success
// record are observed as such (command.finished, program.status_changed),
// but the run stays running until its command exits 3: failed, 3, and
// run.completed only after the reap, right after pane.exited
// (docs/events.md).
func TestRunForgedMarkersDoNotComplete(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "forged").ID
	dir := harness.TempDir(t)
	events := d.Subscribe(t, nil, nil)
	var recs []harness.RunRecord
	for _, tr := range harness.Both(d) {
		gate := filepath.Join(dir, "gate-"+tr.Short())
		harness.Touch(t, gate)
		forged := `printf '\033]133;A\007\033]133;C\007\033]133;D;0\007\033]7501;state=done\007'; ` +
			`echo '{"record":{"state":"completed","outcome":"succeeded","exit_code":0,"status":0}}'; ` +
			`while [ -e '` + gate + `' ]; do sleep 0.02; done; exit 3`
		st := tr.MustStart(t, harness.ShellSpec("forged-"+tr.Short(), ws, forged))
		events.WaitSeen(t, "program.status_changed of "+st.Pane, func(e harness.Event) bool {
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
		d.WantRunning(t, st.Run, "after the forged markers")
		for _, tr2 := range harness.Both(d) {
			harness.WantError(t, tr2.Wait(t, st.Run, harness.Ptr(0), nil), "timeout.wait", map[string]any{"run": st.Run, "state": "running"})
		}
		for _, e := range events.Seen() {
			if e.Resource == st.Run && e.Type != "run.started" {
				t.Errorf("a run event before the command exited: %s", e.Raw)
			}
		}
		harness.RemoveFile(t, gate)
		rec := d.WaitBoth(t, st.Run)
		harness.WantOutcome(t, rec, "failed", harness.Ptr(3), "", "", 3)
		recs = append(recs, rec)

		// run.completed comes right after the pane's pane.exited, never before.
		completed := events.WaitSeen(t, "run.completed of "+st.Run, func(e harness.Event) bool {
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
	harness.SameRecords(t, "records via the CLI and via varlinkctl", recs...)
}

// A command printing OSC 133 D;1 (a failure mark) and exiting 0 succeeded.
func TestRunFailureMarkerDoesNotFail(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "failure-marker").ID
	rec := d.RunBoth(t, harness.ShellSpec("d1", ws, `printf '\033]133;C\007\033]133;D;1\007'; exit 0`))
	harness.WantOutcome(t, rec, "succeeded", harness.Ptr(0), "", "", 0)
}

// A command whose double-forked writer outlives the leader completes at
// the leader's reap; the writer's later output is not in the record's
// output. The writer carries the pane's mark: the daemon stops it after
// the reap (it ignores SIGHUP, so it lives through the grace), and status
// and doctor count nothing left running.
func TestRunCompletesAtLeaderReapDespiteEscapee(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "escapee").ID
	dir := harness.TempDir(t)
	var recs []harness.RunRecord
	for _, tr := range harness.Both(d) {
		gate := filepath.Join(dir, "gate-"+tr.Short())
		pidfile := filepath.Join(dir, "pid-"+tr.Short())
		harness.Touch(t, gate)
		text := fmt.Sprintf(`(setsid sh -c 'trap "" HUP; echo $$ > %s; while [ -e %s ]; do sleep 0.02; done; echo LATE-OUTPUT; echo LATE-OUTPUT' &); `+
			`while [ ! -s %s ]; do sleep 0.01; done; echo EARLY-OUTPUT; exit 0`, pidfile, gate, pidfile)
		st := tr.MustStart(t, harness.ShellSpec("escapee-"+tr.Short(), ws, text))
		rec := d.WaitBoth(t, st.Run)
		b, _ := os.ReadFile(pidfile)
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatalf("escapee pid file: %q", b)
		}
		t.Cleanup(func() {
			if !harness.Gone(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		})
		// The writer cannot end by itself while its gate exists: it
		// outlived the leader, and if it is gone by now, the daemon's sweep
		// after the reap stopped it (on a loaded machine the two waits can
		// outlast the sweep's grace).
		harness.WantOutcome(t, rec, "succeeded", harness.Ptr(0), "", "", 0)
		harness.RemoveFile(t, gate)
		harness.WaitGone(t, harness.PollTimeout, "the escaped writer ends (or is stopped)", pid)
		again := d.GetBoth(t, st.Run, nil)
		harness.SameJSON(t, "the record before and after the escapee wrote", rec, again)
		ls := harness.TrimLines(again.MustOutput(t).Lines)
		if strings.Join(ls, "\n") != "EARLY-OUTPUT" {
			t.Errorf("output %q, want only the leader's EARLY-OUTPUT", ls)
		}
		recs = append(recs, rec)
	}
	harness.SameRecords(t, "records via the CLI and via varlinkctl", recs...)
	t.Run("status and doctor count no escapee left running", func(t *testing.T) {
		if escaped := d.Status(t).Runs.Escaped; escaped != 0 {
			t.Errorf("status runs.escaped = %d, want 0 (the writers were stopped)", escaped)
		}
		if r := d.CLI(t, "doctor"); r.Code != 0 || strings.Contains(r.Stdout, "pane(s) ended") {
			t.Errorf("doctor reports escapees that were stopped: %s", r)
		}
	})
}

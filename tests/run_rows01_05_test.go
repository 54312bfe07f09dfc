package tests

// Conformance matrix of the trusted run/wait spec (§13), rows 1–5:
// outcomes, exit codes, exec failure, signals and deadlines.

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// startBoth starts spec through the CLI and through varlinkctl (keys
// suffixed -c and -v), requires equal start results apart from ids, pid and
// key, and returns them in that order.
func startBoth(t *testing.T, d *harness.Daemon, spec runSpec) []startResult {
	t.Helper()
	var out []startResult
	for _, tr := range both(d) {
		st := tr.mustStart(t, spec.withKey(spec.Key+"-"+tr.short()))
		if st.Reused {
			t.Errorf("a first start returned reused: true: %+v", st)
		}
		out = append(out, st)
	}
	drop := []string{"run", "key", "pane", "tab", "pid"}
	if spec.Workspace == "" {
		drop = append(drop, "workspace")
	}
	sameJSON(t, "start results via the CLI and via varlinkctl", strip(out[0].obj, drop...), strip(out[1].obj, drop...))
	return out
}

// runBoth starts spec through both transports, waits for both runs through
// both transports, requires equal records, and returns the CLI run's.
func runBoth(t *testing.T, d *harness.Daemon, spec runSpec) map[string]any {
	t.Helper()
	sts := startBoth(t, d, spec)
	var recs []map[string]any
	for _, st := range sts {
		recs = append(recs, mustWaitBoth(t, d, st.Run))
	}
	sameRecords(t, "records of the same command started via the CLI and via varlinkctl", recs...)
	return recs[0]
}

// Row 1: ["true"] succeeds: exit_code 0, status 0, CLI exit 0.
func TestRunRow01Succeeded(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := newWorkspace(t, d, "row1")
	rec := runBoth(t, d, argvSpec("true", ws, "true"))
	wantOutcome(t, rec, "succeeded", ptr(0), "", "", 0)
	if rec["shell"] != false {
		t.Errorf("an argv run has shell %v, want false", rec["shell"])
	}
	out := outputOf(t, rec)
	if len(linesOf(t, out)) != 0 || out["complete"] != true {
		t.Errorf("true prints nothing: want no lines and complete true, got %v", out)
	}
}

// Row 2: failures: --shell 'exit 3', ["false"], --shell 'nosuchcmd' fail
// with 3, 1 and the shell's 127; the CLI exits with them.
func TestRunRow02Failed(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := newWorkspace(t, d, "row2")
	for _, c := range []struct {
		name  string
		spec  runSpec
		code  int
		shell bool
	}{
		{"exit 3", shellSpec("exit3", ws, "exit 3"), 3, true},
		{"false", argvSpec("false", ws, "false"), 1, false},
		{"nosuchcmd", shellSpec("nosuchcmd", ws, "nosuchcmd"), 127, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := runBoth(t, d, c.spec)
			wantOutcome(t, rec, "failed", ptr(c.code), "", "", c.code)
			if rec["shell"] != c.shell {
				t.Errorf("shell %v, want %v", rec["shell"], c.shell)
			}
		})
	}
}

// Row 3: a missing program, a non-executable file and a script without #!
// fail unavailable.spawn (exit 6) with no side effects; the key stays free
// and the program never ran (its marker file is never written).
func TestRunRow03ExecFailure(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := newWorkspace(t, d, "row3")
	dir := markers(t)
	noExec := filepath.Join(dir, "not-executable")
	if err := os.WriteFile(noExec, []byte("#!/bin/sh\n"+mark(dir, "noexec")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	noShebang := filepath.Join(dir, "no-shebang")
	if err := os.WriteFile(noShebang, []byte(mark(dir, "noshebang")+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		name, marker string
		argv         []string
	}{
		{"missing absolute", "", []string{filepath.Join(dir, "no-such-program"), "x"}},
		{"missing in PATH", "", []string{"signaltty-no-such-program"}},
		{"not executable", "noexec", []string{noExec}},
		{"no shebang", "noshebang", []string{noShebang}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var errs []reply
			for _, tr := range both(d) {
				key := fmt.Sprintf("spawnfail-%d-%s", i, tr.short())
				spec := argvSpec(key, ws, c.argv...)
				w := takeWorld(t, d)
				r := tr.start(t, spec)
				wantError(t, r, "unavailable.spawn", nil)
				w.unchanged(t, d, "after a failed exec via "+tr.name)
				keyFree(t, d, key)
				// The identical request fails again (nothing was bound) …
				wantError(t, tr.start(t, spec), "unavailable.spawn", nil)
				// … and the key starts another command.
				st := tr.mustStart(t, argvSpec(key, ws, "true"))
				if st.Reused {
					t.Errorf("the key of a failed start was bound: %+v", st)
				}
				wantOutcome(t, mustWaitBoth(t, d, st.Run), "succeeded", ptr(0), "", "", 0)
				errs = append(errs, r)
			}
			sameErrors(t, "unavailable.spawn", errs...)
			if c.marker != "" && count(dir, c.marker) != 0 {
				t.Errorf("the program ran %d times", count(dir, c.marker))
			}
		})
	}
}

// Row 4: a shell killing itself with SIGSEGV: signaled, signal SIGSEGV, no
// exit_code, status 139.
func TestRunRow04Signaled(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := newWorkspace(t, d, "row4")
	rec := runBoth(t, d, shellSpec("segv", ws, "kill -SEGV $$"))
	wantOutcome(t, rec, "signaled", nil, "SIGSEGV", "", 139)
}

// Row 5: --deadline-ms 300 terminates: sleep 100 (SIGHUP), a shell that
// traps HUP and exits 0 (exit_code 0, still not succeeded), a program that
// ignores HUP (SIGKILL after the 2000 ms grace): cause deadline, status 124.
func TestRunRow05Deadline(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := newWorkspace(t, d, "row5")
	dir := markers(t)
	deadline := ptr(300)
	specs := map[string]runSpec{
		"sleep": {Key: "dl-sleep", Workspace: ws, Argv: []string{"sleep", "100"}, DeadlineMs: deadline},
		"trap": {Key: "dl-trap", Workspace: ws, DeadlineMs: deadline,
			Shell: ptr(`trap 'exit 0' HUP; ` + mark(dir, "trap") + `; while :; do sleep 0.05; done`)},
		"ignore": {Key: "dl-ignore", Workspace: ws, DeadlineMs: deadline,
			Shell: ptr(`trap '' HUP; ` + mark(dir, "ignore") + `; exec sleep 100`)},
	}
	starts := map[string][]startResult{}
	for name, spec := range specs { // all six runs at once
		starts[name] = startBoth(t, d, spec)
	}
	for name, sts := range starts {
		var recs []map[string]any
		for _, st := range sts {
			recs = append(recs, mustWaitBoth(t, d, st.Run))
		}
		sameRecords(t, name+" records via the CLI and via varlinkctl", recs...)
		for _, rec := range recs {
			switch name {
			case "sleep":
				wantOutcome(t, rec, "terminated", nil, "SIGHUP", "deadline", 124)
			case "trap":
				wantOutcome(t, rec, "terminated", ptr(0), "", "deadline", 124)
			case "ignore":
				wantOutcome(t, rec, "terminated", nil, "SIGKILL", "deadline", 124)
				if ms, _ := num(rec, "duration_ms"); ms < 2300 {
					t.Errorf("a HUP-ignoring run was killed after %d ms, want SIGKILL only after deadline 300 + grace 2000 ms", ms)
				}
			}
			if ms, _ := num(rec, "duration_ms"); ms < 300 {
				t.Errorf("%s completed after %d ms, before its 300 ms deadline", name, ms)
			}
		}
	}
	if count(dir, "trap") != 2 || count(dir, "ignore") != 2 {
		t.Errorf("markers: trap %d, ignore %d, want 2 each (one per transport)", count(dir, "trap"), count(dir, "ignore"))
	}
}

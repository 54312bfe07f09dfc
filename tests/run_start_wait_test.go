package tests

// `signaltty run --wait`: one CLI process starts the run, prints the start
// reply to stderr at once, waits on the same connection and exits as
// `signaltty run wait` does (docs/run-wait.md, "Start and wait in one call").

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"syscall"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// startWait is a `signaltty --json run --wait …` process whose stderr is
// read line by line while it runs.
type startWait struct {
	cmd    *exec.Cmd
	stderr *bufio.Reader
}

func startRunWait(t *testing.T, d *harness.Daemon, spec harness.RunSpec, extra ...string) *startWait {
	t.Helper()
	args := append(append([]string{"--json"}, spec.CLIArgs()...), append([]string{"--wait"}, extra...)...)
	cmd := exec.Command(harness.Bin(t, "signaltty"), args...)
	cmd.Env = d.ClientEnv()
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = &bytes.Buffer{} // read after Wait
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &startWait{cmd: cmd, stderr: bufio.NewReader(pipe)}
	t.Cleanup(func() { cmd.Process.Kill() })
	return p
}

// startReply reads the first stderr line: the Run.Start reply object.
func (p *startWait) startReply(t *testing.T) harness.RunStart {
	t.Helper()
	line, err := p.stderr.ReadString('\n')
	if err != nil {
		t.Fatalf("no start reply on stderr: %v (got %q)", err, line)
	}
	var st harness.RunStart
	if err := json.Unmarshal([]byte(line), &st); err != nil || st.Run == "" {
		t.Fatalf("stderr's first line is not a start reply (%v): %q", err, line)
	}
	return st
}

// result reads the rest of stderr and waits for the process.
func (p *startWait) result(t *testing.T) harness.Result {
	t.Helper()
	rest, _ := io.ReadAll(p.stderr) // all of it before Wait, as os/exec asks
	err := p.cmd.Wait()
	r := harness.Result{Args: p.cmd.Args, Stdout: p.cmd.Stdout.(*bytes.Buffer).String(), Stderr: string(rest)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.Code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// run --wait exits with the run's status, as run wait does, for a
// success, an exit code, a signal and a deadline; stdout is the same
// record a later run wait prints, stderr the start reply.
func TestRunWaitFlagExitsWithTheRunsStatus(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "startwait").ID
	for _, c := range []struct {
		name    string
		spec    harness.RunSpec
		outcome string
		code    *int
		signal  string
		cause   string
		status  int
	}{
		{"true", harness.ArgvSpec("sw-true", ws, "true"), "succeeded", harness.Ptr(0), "", "", 0},
		{"exit 3", harness.ShellSpec("sw-exit3", ws, "exit 3"), "failed", harness.Ptr(3), "", "", 3},
		{"SIGTERM", harness.ShellSpec("sw-term", ws, "kill -TERM $$"), "signaled", nil, "SIGTERM", "", 128 + 15},
		{"deadline", harness.RunSpec{Key: "sw-deadline", Workspace: ws, Argv: []string{"sleep", "100"}, DeadlineMs: harness.Ptr(200)},
			"terminated", nil, "SIGHUP", "deadline", 124},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := startRunWait(t, d, c.spec)
			st := p.startReply(t)
			r := p.result(t)
			if r.Code != c.status {
				t.Errorf("run --wait exit %d, want the run's status %d:\n%s", r.Code, c.status, r)
			}
			rec := harness.ParseCLIReply(t, r).Record(t)
			if rec.Run != st.Run {
				t.Errorf("stdout's record is of %s, stderr's start reply of %s", rec.Run, st.Run)
			}
			harness.WantOutcome(t, rec, c.outcome, c.code, c.signal, c.cause, c.status)
			later := harness.CLIOf(d).Wait(t, st.Run, nil, nil)
			if later.Exit != r.Code {
				t.Errorf("run wait exits %d, run --wait %d", later.Exit, r.Code)
			}
			harness.SameJSON(t, "the records of run --wait and of a later run wait", rec, later.Record(t))
		})
	}
}

// The start reply is on stderr while the command still runs; killing
// the waiting CLI (its connection drops) and a --timeout-ms that passes
// leave the run running, started once, and run wait still gets its result.
func TestRunWaitFlagPrintsTheRunAtOnceAndItsWaitEndsOnlyTheWait(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "startwait-drop").ID
	dir := harness.TempDir(t)
	release := dir + "/release"
	var runs []string
	d.CancelAtEnd(t, &runs)
	script := harness.Mark(dir, "c") + "; while [ ! -e " + release + " ]; do sleep 0.05; done; exit 5"

	p := startRunWait(t, d, harness.ShellSpec("sw-drop", ws, script))
	st := p.startReply(t) // before the command ends: it waits for release
	runs = append(runs, st.Run)
	harness.WaitMarker(t, dir, "c")
	d.WantRunning(t, st.Run, "with run --wait waiting")
	p.cmd.Process.Signal(syscall.SIGKILL)
	if r := p.result(t); r.Code != -1 {
		t.Errorf("the killed CLI exited %d: %s", r.Code, r)
	}
	d.WantRunning(t, st.Run, "after the waiting run --wait was killed")

	// The same key again with --timeout-ms 100: the bound run, not waited for long.
	again := startRunWait(t, d, harness.ShellSpec("sw-drop", ws, script), "--timeout-ms", "100")
	if st2 := again.startReply(t); st2.Run != st.Run || !st2.Reused {
		t.Errorf("the same key started %s (reused %v), want %s reused", st2.Run, st2.Reused, st.Run)
	}
	harness.WantError(t, harness.ParseCLIReply(t, again.result(t)), "timeout.wait",
		map[string]any{"run": st.Run, "state": "running"})
	d.WantRunning(t, st.Run, "after run --wait --timeout-ms 100")

	w := harness.CLIOf(d).BackgroundWait(t, st.Run)
	w.WaitBlocked(t)
	harness.Touch(t, release)
	rec := w.Reply(t, harness.PollTimeout)
	if rec.Exit != 5 {
		t.Errorf("run wait exit %d, want 5: %s", rec.Exit, rec)
	}
	harness.WantOutcome(t, rec.Record(t), "failed", harness.Ptr(5), "", "", 5)
	if n := harness.MarkCount(dir, "c"); n != 1 {
		t.Errorf("the command started %d times, want 1", n)
	}
}

// --timeout-ms and --output belong to --wait: without it, usage error
// (exit 2) and nothing is started.
func TestRunWaitOnlyFlagsNeedWait(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "startwait-usage").ID
	for _, extra := range [][]string{{"--timeout-ms", "5"}, {"--output=false"}} {
		args := append(harness.ArgvSpec("sw-usage", ws, "true").CLIArgs(), extra...)
		d.Fail(t, "invalid_params.usage", 2, append([]string{"--json"}, args...)...)
	}
	d.KeyFree(t, "sw-usage")
}

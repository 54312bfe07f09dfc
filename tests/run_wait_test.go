package tests

// Waiting for a run never acts on it: a wait's timeout, its cancellation
// and its connection's hang-up end only the wait (docs/run-wait.md).

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// A wait with --timeout-ms 100 or 0 fails timeout.wait (exit 7) with the
// run's state; cancelling a wait (Ctrl-C: cancelled, exit 8) or closing
// its connection ends only the wait: the run keeps running and its
// command started once.
func TestRunWaitEndsOnlyTheWait(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "wait").ID
	dir := harness.TempDir(t)
	var runs []string
	d.CancelAtEnd(t, &runs)
	for _, tr := range harness.Both(d) {
		st := tr.MustStart(t, harness.ShellSpec("hang-"+tr.Short(), ws, hung(dir, tr.Short())))
		runs = append(runs, st.Run)
	}
	for i, run := range runs {
		want := map[string]any{"run": run, "state": "running"}
		for _, ms := range []int{100, 0} {
			var errs []harness.Reply
			for _, tr := range harness.Both(d) {
				r := tr.Wait(t, run, harness.Ptr(ms), nil)
				harness.WantError(t, r, "timeout.wait", want)
				if ms == 100 && r.Duration < 100*time.Millisecond {
					t.Errorf("--timeout-ms 100 returned after %v", r.Duration)
				}
				errs = append(errs, r)
			}
			harness.SameErrors(t, fmt.Sprintf("timeout.wait of --timeout-ms %d", ms), errs...)
			d.WantRunning(t, run, fmt.Sprintf("after a --timeout-ms %d wait", ms))
		}

		// A raw connection closed right after sending a wait (the daemon
		// reads the request before the end of the stream; the checks below
		// come later).
		c := d.SendOnly(t, "dev.signaltty.Run.Wait", map[string]any{"run": run})
		c.Close()

		// Ctrl-C in `signaltty run wait` cancels the wait.
		p := harness.CLIOf(d).BackgroundWait(t, run)
		p.WaitBlocked(t)
		p.Signal(syscall.SIGINT)
		harness.WantError(t, p.Reply(t, harness.PollTimeout), "cancelled", nil)
		d.WantRunning(t, run, "after a cancelled CLI wait")

		// varlinkctl's wait ends with its connection.
		v := harness.VarlinkctlOf(d).BackgroundWait(t, run)
		v.WaitBlocked(t)
		v.Signal(syscall.SIGTERM)
		v.Result(t, harness.PollTimeout)
		d.WantRunning(t, run, "after varlinkctl's waiting connection closed")

		name := []string{"c", "v"}[i]
		if n := harness.MarkCount(dir, name); n != 1 {
			t.Errorf("run %s: the command started %d times, want 1", run, n)
		}
	}
}

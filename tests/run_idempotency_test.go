package tests

// Idempotency keys: a repeated start with the same key and parameters
// joins or returns the same run instead of running the command again; the
// key with other parameters is a conflict; a start whose connection was
// dropped is either rolled back or kept, never run twice
// (docs/run-wait.md).

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// dropper starts a request through one transport and drops its connection
// without reading the reply.
type dropper struct {
	name string
	// send starts the request in the background and returns the drop.
	send func(t *testing.T, d *harness.Daemon, s harness.RunSpec) func()
	// retry makes the identical request and returns its reply.
	retry func(t *testing.T, d *harness.Daemon, s harness.RunSpec) harness.Reply
}

func droppers() []dropper {
	viaProc := func(tr func(d *harness.Daemon) harness.Transport) func(t *testing.T, d *harness.Daemon, s harness.RunSpec) func() {
		return func(t *testing.T, d *harness.Daemon, s harness.RunSpec) func() {
			p := tr(d).BackgroundStart(t, s)
			return func() {
				p.Signal(syscall.SIGKILL) // the kernel closes its connection
				p.Result(t, harness.PollTimeout)
			}
		}
	}
	return []dropper{
		{"cli", viaProc(harness.CLIOf),
			func(t *testing.T, d *harness.Daemon, s harness.RunSpec) harness.Reply {
				return harness.CLIOf(d).Start(t, s)
			}},
		{"varlinkctl", viaProc(harness.VarlinkctlOf),
			func(t *testing.T, d *harness.Daemon, s harness.RunSpec) harness.Reply {
				return harness.VarlinkctlOf(d).Start(t, s)
			}},
		{"raw", func(t *testing.T, d *harness.Daemon, s harness.RunSpec) func() {
			c := d.SendOnly(t, "dev.signaltty.Run.Start", s.Params())
			return func() { c.Close() }
		}, func(t *testing.T, d *harness.Daemon, s harness.RunSpec) harness.Reply { return d.RawStart(t, s) }},
	}
}

// settle makes round trips to the daemon after a connection was dropped, so
// that its hang-up is seen before the test releases a start barrier (the
// daemon's poll of the seam file is slower than its poller).
func settle(t *testing.T, d *harness.Daemon) {
	t.Helper()
	for i := 0; i < 2; i++ {
		d.CallOnce(t, "dev.signaltty.Server.GetStatus", map[string]any{}, nil)
	}
}

// retryUntilStarted repeats the identical request while it fails cancelled
// (it joined the dropped start, which was rolled back), at most 5 times.
func retryUntilStarted(t *testing.T, d *harness.Daemon, dr dropper, s harness.RunSpec) harness.RunStart {
	t.Helper()
	for i := 0; ; i++ {
		r := dr.retry(t, d, s)
		if r.Err != nil && r.Err.Code == "cancelled" && i < 5 {
			t.Logf("retry %d of %s joined the rolled-back start: %s", i, s.Key, r)
			continue
		}
		if r.Err != nil || r.Exit != 0 {
			t.Fatalf("retry of %s via %s: %s", s.Key, dr.name, r)
		}
		return harness.CheckStart(t, r, s.Key)
	}
}

// onlyRun requires Run.List --key key to list exactly run.
func onlyRun(t *testing.T, d *harness.Daemon, key, run string) {
	t.Helper()
	for _, tr := range harness.Both(d) {
		r := tr.List(t, harness.RunListOptions{Key: key})
		runs := r.List(t).Runs
		if len(runs) != 1 || runs[0].Run != run {
			t.Errorf("list --key %s via %s: want only %s: %s", key, tr.Name, run, r)
		}
	}
}

// The connection of a start is dropped right after sending it, before or
// after the start barrier (test seam), and the identical request is
// repeated: before, nothing ran and the repeat starts it; after, the
// repeat returns reused: true and the same run. The command's marker is
// written exactly once either way. Repeated $SIGNALTTY_RUN_REPEAT times.
func TestRunKeyRetryAfterDroppedStart(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d, hooks := harness.StartHooks(t)
	ws := d.CreateWorkspace(t, "dropped-start").ID
	dir := harness.TempDir(t)
	n := harness.RunRepeat(t)
	started := map[string][]harness.RunStart{}
	for i := 0; i < n; i++ {
		for _, dr := range droppers() {
			for _, phase := range []string{"before", "after"} {
				key := fmt.Sprintf("drop-%s-%s-%d", phase, dr.name, i)
				spec := harness.ShellSpec(key, ws, harness.Mark(dir, key)+"; exit 0")
				gate := filepath.Join(hooks, "barrier-"+phase+"-"+key)
				harness.Touch(t, gate)
				drop := dr.send(t, d, spec)
				harness.WaitFile(t, filepath.Join(hooks, "reached-"+phase+"-"+key))
				drop()
				if phase == "before" {
					settle(t, d)
				}
				harness.RemoveFile(t, gate)
				var st harness.RunStart
				if phase == "before" {
					st = retryUntilStarted(t, d, dr, spec)
					if st.Reused {
						t.Errorf("%s: a start dropped before the barrier ran: the repeat got reused: true", key)
					}
				} else {
					r := dr.retry(t, d, spec)
					if r.Err != nil {
						t.Fatalf("%s: the repeat failed: %s", key, r)
					}
					st = harness.CheckStart(t, r, key)
					if !st.Reused {
						t.Errorf("%s: a start dropped after the barrier was not kept: the repeat got reused: false", key)
					}
					// Once more, now that it surely committed.
					if again := harness.CheckStart(t, dr.retry(t, d, spec), key); again.Run != st.Run || !again.Reused {
						t.Errorf("%s: a second repeat returned %+v, want %s reused", key, again, st.Run)
					}
				}
				rec := d.WaitBoth(t, st.Run)
				harness.WantOutcome(t, rec, "succeeded", harness.Ptr(0), "", "", 0)
				onlyRun(t, d, key, st.Run)
				if c := harness.MarkCount(dir, key); c != 1 {
					t.Errorf("%s: the command ran %d times, want exactly once", key, c)
				}
				started[phase+"/"+dr.name] = append(started[phase+"/"+dr.name], st)
			}
		}
	}
	// The retries' results agree across transports, apart from ids.
	for _, phase := range []string{"before", "after"} {
		var sts []harness.RunStart
		for _, dr := range droppers() {
			sts = append(sts, started[phase+"/"+dr.name]...)
		}
		for _, st := range sts[1:] {
			harness.SameJSONExcept(t, phase+": start results of repeats", sts[0], st, "run", "key", "pane", "tab", "pid")
		}
	}
	// Seam files left behind by a start would mean an unexpected pass.
	ents, _ := os.ReadDir(hooks)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "barrier-") {
			t.Errorf("seam file %s left", e.Name())
		}
	}
}

// The same key and parameters from a second connection while the first
// start is preparing joins it (reused: true, same run), and after
// completion returns the run again, also with the defaults spelled out and
// a source (neither is part of the parameters compared); the key with
// another argv fails conflict.run_key with no side effects. The command
// runs once.
func TestRunKeyJoinReuseAndConflict(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d, hooks := harness.StartHooks(t)
	ws := d.CreateWorkspace(t, "same-key").ID
	dir := harness.TempDir(t)
	var conflicts []harness.Reply
	for _, tr := range harness.Both(d) {
		key := "same-" + tr.Short()
		spec := harness.ShellSpec(key, ws, harness.Mark(dir, key)+"; exit 0")
		gate := filepath.Join(hooks, "barrier-after-"+key)
		harness.Touch(t, gate)
		first := tr.BackgroundStart(t, spec)
		harness.WaitFile(t, filepath.Join(hooks, "reached-after-"+key))
		second := tr.BackgroundStart(t, spec)
		second.WaitBlocked(t) // it waits for the first (it is joined)
		if harness.MarkCount(dir, key) != 0 {
			t.Errorf("%s: the command ran before its start barrier was released", key)
		}
		harness.RemoveFile(t, gate)
		r1 := first.Reply(t, harness.PollTimeout)
		r2 := second.Reply(t, harness.PollTimeout)
		if r1.Err != nil || r2.Err != nil {
			t.Fatalf("starts failed:\n%s\n%s", r1, r2)
		}
		s1, s2 := harness.CheckStart(t, r1, key), harness.CheckStart(t, r2, key)
		if s1.Reused || !s2.Reused || s1.Run != s2.Run || s1.Pane != s2.Pane || s1.Pid != s2.Pid {
			t.Errorf("a start joined while preparing: want the same run, reused false then true:\n%s\n%s", r1, r2)
		}
		harness.SameJSONExcept(t, "the joined start result", s1, s2, "reused")
		rec := d.WaitBoth(t, s1.Run)
		harness.WantOutcome(t, rec, "succeeded", harness.Ptr(0), "", "", 0)

		// After completion, through both transports.
		for _, tr2 := range harness.Both(d) {
			r := tr2.Start(t, spec)
			if r.Err != nil {
				t.Fatalf("repeat after completion via %s: %s", tr2.Name, r)
			}
			if s := harness.CheckStart(t, r, key); !s.Reused || s.Run != s1.Run {
				t.Errorf("repeat after completion via %s: want %s reused: %s", tr2.Name, s1.Run, r)
			}
			harness.SameJSONExcept(t, "the start result after completion", r.Body, s1, "reused")
		}

		// Defaults given explicitly and source (not part of the digest)
		// are the same parameters.
		explicit := spec
		explicit.Cols, explicit.Rows, explicit.OutputRows, explicit.OutputBytes = harness.Ptr(80), harness.Ptr(24), harness.Ptr(100), harness.Ptr(65536)
		explicit.Source = s1.Source
		if s := harness.CheckStart(t, tr.Start(t, explicit), key); !s.Reused || s.Run != s1.Run {
			t.Errorf("the request with its defaults spelled out and a source: %+v, want %s reused", s, s1.Run)
		}

		// The key with another argv.
		other := spec
		other.Shell, other.Argv = nil, []string{"sh", "-c", harness.Mark(dir, key)}
		w := d.TakeWorld(t)
		r := tr.Start(t, other)
		harness.WantError(t, r, "conflict.run_key", map[string]any{"run": s1.Run})
		w.Unchanged(t, "conflict.run_key")
		conflicts = append(conflicts, r)
		if c := harness.MarkCount(dir, key); c != 1 {
			t.Errorf("%s: the command ran %d times, want once", key, c)
		}
	}
	// A repeat is not checked against the target's state again: the run of
	// a split pane whose target exited since is returned.
	t.Run("target gone", func(t *testing.T) {
		for _, tr := range harness.Both(d) {
			target := d.Spawn(t, []string{"--workspace", ws}, "sleep", "100")
			spec := harness.RunSpec{Key: "split-" + tr.Short(), Pane: target.ID, Axis: "cols", Shell: harness.Ptr("exit 0")}
			st := tr.MustStart(t, spec)
			d.WaitBoth(t, st.Run)
			d.Kill(t, target.ID, "--grace-ms", "200")
			harness.WantError(t, tr.Start(t, harness.RunSpec{Key: "other-" + tr.Short(), Pane: target.ID, Axis: "cols", Shell: harness.Ptr("exit 0")}), "conflict.pane_exited", nil)
			r := tr.Start(t, spec)
			if r.Err != nil {
				t.Fatalf("repeat after the target exited via %s: %s", tr.Name, r)
			}
			if s := harness.CheckStart(t, r, spec.Key); !s.Reused || s.Run != st.Run {
				t.Errorf("repeat after the target exited: %+v, want %s reused", s, st.Run)
			}
		}
	})
	for _, r := range conflicts { // the keys and runs differ
		r.Err.Data, r.Err.Message = nil, ""
	}
	harness.SameErrors(t, "conflict.run_key", conflicts...)
	t.Run("key from another principal starts an independent run", func(t *testing.T) {
		owner := harness.CLIOf(d).MustStart(t, harness.ShellSpec("shared-key", ws, "exit 0"))
		d.WaitBoth(t, owner.Run)
		p := d.NewInPane(t, "--workspace", ws, "--grant", "spawn:workspace:"+ws, "--grant", "read:self", "--grant", "write:self")
		var st harness.RunStart
		p.JSON(t, &st, "run", "--key", "shared-key", "--workspace", ws, "--shell", "exit 0")
		if st.Reused || st.Run == owner.Run || st.Principal != "pane:"+p.Pane.ID {
			t.Errorf("the same key from another principal: %+v, want a new run of pane:%s (the owner's is %s)", st, p.Pane.ID, owner.Run)
		}
		// each principal's key names its own run
		var again harness.RunStart
		p.JSON(t, &again, "run", "--key", "shared-key", "--workspace", ws, "--shell", "exit 0")
		if !again.Reused || again.Run != st.Run {
			t.Errorf("the pane's repeat: %+v, want %s reused", again, st.Run)
		}
		var l struct {
			Runs []harness.RunRecord `json:"runs"`
		}
		p.JSON(t, &l, "run", "list", "--key", "shared-key")
		if len(l.Runs) != 1 || l.Runs[0].Run != st.Run {
			t.Errorf("the pane's list --key: %+v, want only its own %s", l.Runs, st.Run)
		}
		if s := harness.CheckStart(t, harness.CLIOf(d).Start(t, harness.ShellSpec("shared-key", ws, "exit 0")), "shared-key"); !s.Reused || s.Run != owner.Run {
			t.Errorf("the owner's repeat: %+v, want %s reused", s, owner.Run)
		}
	})
}

// After a daemon restart, the repeat of a start with --source of the old
// daemon fails conflict.source with the new source and no side effects;
// runs are not kept across the restart and the command does not run again.
func TestRunKeyRepeatAfterRestartFailsSource(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "restart").ID
	dir := harness.TempDir(t)
	specs := map[string]harness.RunSpec{}
	var old string
	for _, tr := range harness.Both(d) {
		key := "restart-" + tr.Short()
		spec := harness.ShellSpec(key, ws, harness.Mark(dir, key)+"; exit 0")
		st := tr.MustStart(t, spec)
		d.WaitBoth(t, st.Run)
		old = st.Source
		spec.Source = old
		specs[tr.Name] = spec
		// Before the restart the source matches: the run is returned.
		if again := harness.CheckStart(t, tr.Start(t, spec), key); !again.Reused || again.Run != st.Run {
			t.Errorf("a repeat with the current source: %+v, want %s reused", again, st.Run)
		}
	}
	d.Stop(t)
	d2 := harness.Start(t, harness.Options{Dir: d.Dir})
	fresh := d2.Status(t).Source
	if fresh == old || !strings.HasPrefix(fresh, "signaltty/") {
		t.Fatalf("source after restart %q (before %q)", fresh, old)
	}
	// Runs are memory-only and nothing is re-run by a restore.
	for _, tr := range harness.Both(d2) {
		if l := tr.List(t, harness.RunListOptions{}); l.Err != nil || len(l.List(t).Runs) != 0 {
			t.Errorf("runs after a restart via %s: %s", tr.Name, l)
		}
	}
	if st := d2.Status(t); st.LivePanes != 0 {
		t.Errorf("%d live panes after a restart: a command was started again", st.LivePanes)
	}
	var errs []harness.Reply
	for _, tr := range harness.Both(d2) {
		w := d2.TakeWorld(t)
		r := tr.Start(t, specs[tr.Name])
		harness.WantError(t, r, "conflict.source", map[string]any{"source": fresh})
		w.Unchanged(t, "conflict.source")
		errs = append(errs, r)
	}
	harness.SameErrors(t, "conflict.source", errs...)
	for _, tr := range harness.Both(d2) {
		if c := harness.MarkCount(dir, "restart-"+tr.Short()); c != 1 {
			t.Errorf("the command of %s ran %d times, want once", tr.Name, c)
		}
	}
}

// The key's digest covers the grants of the run's pane: the same key with
// other grants is another request (conflict.run_key), with the default
// grants written out it is the same one.
func TestRunKeyCoversGrants(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "key-grants").ID
	start := func(extra ...string) harness.Result {
		args := append([]string{"--json", "run", "--key", "grants-key", "--workspace", ws}, extra...)
		return d.CLI(t, append(args, "--", "sleep", "100")...)
	}
	first := start()
	var st struct{ Run string }
	if err := json.Unmarshal([]byte(first.Stdout), &st); err != nil || st.Run == "" {
		t.Fatalf("start: %v\n%s", err, first)
	}
	t.Cleanup(func() { d.CLI(t, "run", "cancel", "--run", st.Run, "--grace-ms", "200") })
	d.Fail(t, "conflict.run_key", exitConflict, "run", "--key", "grants-key", "--workspace", ws, "--grant", "read:*", "--", "sleep", "100")
	same := start("--grant", "spawn:home", "--grant", "spawn:self", "--grant", "read:self", "--grant", "write:self", "--grant", "read:self")
	var again struct {
		Run    string
		Reused bool
	}
	if err := json.Unmarshal([]byte(same.Stdout), &again); err != nil || again.Run != st.Run || !again.Reused {
		t.Errorf("the default grants written out (another order, a repeat) did not return run %s reused:\n%s", st.Run, same)
	}
}

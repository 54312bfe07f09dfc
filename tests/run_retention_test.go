package tests

// Limits on runs: how many may run at once (max_active), and how long,
// how many and how many bytes of completed records are retained before
// they expire (docs/run-wait.md).

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// With max_active 4, 50 concurrent starts with distinct keys: exactly 4
// succeed while they run, the others fail unavailable.run_limit with no
// side effects; each run's record, pane and output are its own. Repeated
// $SIGNALTTY_RUN_REPEAT times, through each transport.
func TestRunActiveLimit(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "active-limit").ID
	dir := harness.TempDir(t)
	var all []string
	d.CancelAtEnd(t, &all)
	const n, limit = 50, 4
	var limitErrs []harness.Reply
	for i := 0; i < harness.RunRepeat(t); i++ {
		for _, tr := range harness.Both(d) {
			tr.SetRunConfig(t, harness.RunConfigChange{MaxActive: harness.Ptr(limit)})
			round := fmt.Sprintf("%d%s", i, tr.Short())
			before, _ := d.EventsSnapshot(t)
			seq0 := d.Status(t).Seq
			kids0 := d.ChildPids()
			events := d.Subscribe(t, nil, nil)
			procs := make([]*harness.Background, n)
			keys := make([]string, n)
			for j := range procs {
				keys[j] = fmt.Sprintf("lim-%s-%02d", round, j)
				spec := harness.ShellSpec(keys[j], ws, "echo "+keys[j]+"; "+harness.Mark(dir, keys[j])+"; exec sleep 100000")
				procs[j] = tr.BackgroundStart(t, spec)
			}
			var ok []harness.RunStart
			okKey := map[string]bool{}
			for j, p := range procs {
				r := p.Reply(t, harness.CallTimeout)
				if r.Err != nil {
					harness.WantError(t, r, "unavailable.run_limit", map[string]any{"max_active": float64(limit)})
					limitErrs = append(limitErrs, r)
					continue
				}
				st := harness.CheckStart(t, r, keys[j])
				ok = append(ok, st)
				okKey[keys[j]] = true
				all = append(all, st.Run)
			}
			if len(ok) != limit {
				t.Errorf("round %s: %d of %d concurrent starts succeeded with max_active %d, want exactly %d", round, len(ok), n, limit, limit)
			}
			// No side effects of the refused ones: only the started runs' resources changed.
			mine := map[string]bool{}
			for _, st := range ok {
				mine[st.Run], mine[st.Pane], mine[st.Tab] = true, true, true
			}
			after, _ := d.EventsSnapshot(t)
			harness.CheckOnlyAdded(t, before, after, mine)
			for _, e := range events.Seen() {
				if !mine[e.Resource] && e.Resource != ws {
					t.Errorf("round %s: an event about a resource of no started run: %s", round, e.Raw)
				}
			}
			if got, want := d.Status(t).Seq-seq0, int64(len(ok)*4); got < want {
				t.Errorf("round %s: %d events for %d started runs", round, got, len(ok))
			}
			kids := d.ChildPids()
			if len(kids) != len(kids0)+len(ok) {
				t.Errorf("round %s: the daemon has %d children, had %d before %d runs started", round, len(kids), len(kids0), len(ok))
			}
			lr := tr.List(t, harness.RunListOptions{Limit: 1024})
			for _, x := range lr.List(t).Runs {
				if strings.HasPrefix(x.Key, "lim-"+round+"-") && !okKey[x.Key] {
					t.Errorf("a refused key is bound: %s", x.Raw)
				}
			}
			// Each run's pane shows its own output; each started command ran once.
			for _, st := range ok {
				d.WaitLine(t, st.Pane, st.Key)
				harness.WaitMarker(t, dir, st.Key)
			}
			for j, k := range keys {
				if c := harness.MarkCount(dir, k); c != map[bool]int{true: 1, false: 0}[okKey[k]] {
					t.Errorf("command %d (%s) ran %d times", j, k, c)
				}
			}
			// While the 4 run, one more is refused; once one completes, it starts.
			var refused string
			for _, k := range keys {
				if !okKey[k] {
					refused = k
					break
				}
			}
			if refused != "" && len(ok) > 0 {
				spec := harness.ShellSpec(refused, ws, "echo "+refused+"; "+harness.Mark(dir, refused)+"; exec sleep 100000")
				harness.WantError(t, tr.Start(t, spec), "unavailable.run_limit", nil)
				r := tr.Cancel(t, ok[0].Run, "", harness.Ptr(200))
				if r.Err != nil {
					t.Fatalf("cancel: %s", r)
				}
				st := tr.MustStart(t, spec)
				all = append(all, st.Run)
				ok = append(ok, st)
				d.WaitLine(t, st.Pane, st.Key)
			}
			var recs []harness.RunRecord
			for _, st := range ok {
				r := tr.Cancel(t, st.Run, "", harness.Ptr(200))
				if r.Err != nil {
					t.Fatalf("cancel %s: %s", st.Run, r)
				}
				rec := r.Record(t)
				harness.WantOutcome(t, rec, "terminated", nil, "SIGHUP", "cancel", 125)
				if ls := harness.TrimLines(rec.MustOutput(t).Lines); len(ls) != 1 || ls[0] != st.Key {
					c := d.Capture(t, st.Pane)
					t.Errorf("run %s (%s): output %q, want only its own line; record %s; the pane's screen now:\n%s", st.Run, st.Key, ls, rec.Raw, c.Dump())
				}
				if rec.Pane != st.Pane || rec.Key != st.Key {
					t.Errorf("record %s does not belong to %+v", rec.Raw, st)
				}
				recs = append(recs, rec)
			}
			for _, rec := range recs[1:] {
				harness.SameJSONExcept(t, "the records of the limited runs (apart from ids and output)",
					recs[0], rec, append(harness.Volatile, "output")...)
			}
			events.Close()
		}
	}
	// The refusals are identical through both transports.
	for _, r := range limitErrs[1:] {
		harness.SameErrors(t, "unavailable.run_limit", limitErrs[0], r)
	}

	// Deterministically: a start still preparing (held at its start
	// barrier) is not a run yet (there is no visible starting state) and
	// does not count toward max_active; it is refused at its own limit
	// check.
	t.Run("preparing start is not a run", func(t *testing.T) {
		dh, hooks := harness.StartHooks(t)
		ws := dh.CreateWorkspace(t, "active-limit-preparing").ID
		var runs []string
		dh.CancelAtEnd(t, &runs)
		for _, tr := range harness.Both(dh) {
			tr.SetRunConfig(t, harness.RunConfigChange{MaxActive: harness.Ptr(2)})
			held := "held-" + tr.Short()
			gate := filepath.Join(hooks, "barrier-before-"+held)
			harness.Touch(t, gate)
			p := tr.BackgroundStart(t, harness.ShellSpec(held, ws, "exec sleep 30"))
			harness.WaitFile(t, filepath.Join(hooks, "reached-before-"+held))
			var cur []string
			for _, k := range []string{"b", "c"} {
				r := tr.Start(t, harness.ShellSpec("free-"+k+"-"+tr.Short(), ws, "exec sleep 30"))
				if r.Err != nil {
					t.Errorf("start %s while one start is preparing and %d run(s) exist (max_active 2): %s", k, len(cur), r)
					continue
				}
				cur = append(cur, harness.CheckStart(t, r, "free-"+k+"-"+tr.Short()).Run)
			}
			harness.RemoveFile(t, gate)
			r := p.Reply(t, harness.PollTimeout)
			if len(cur) == 2 { // the held start is over the limit at its own check
				harness.WantError(t, r, "unavailable.run_limit", map[string]any{"max_active": float64(2)})
			} else if r.Err == nil {
				cur = append(cur, harness.CheckStart(t, r, held).Run)
			}
			runs = append(runs, cur...)
			for _, run := range cur {
				if c := tr.Cancel(t, run, "", harness.Ptr(200)); c.Err != nil {
					t.Errorf("cancel %s: %s", run, c)
				}
			}
		}
	})
}

// Retention: retain_count 2, then retain_ms 100, then a small
// retain_bytes: the oldest completed record is evicted first with
// run.expired; an evicted run is not_found.run (expired), an unknown one
// not_found.run (unknown); its key starts a new run; running records are
// never evicted; run list --limit 2 pages through all retained records via
// next.
func TestRunRetentionEvictsOldestCompleted(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	for _, mk := range []func(*harness.Daemon) harness.Transport{harness.CLIOf, harness.VarlinkctlOf} {
		d := harness.Start(t)
		tr := mk(d)
		t.Run(tr.Name, func(t *testing.T) {
			t.Parallel()
			retention(t, d, tr)
		})
	}
}

func retention(t *testing.T, d *harness.Daemon, tr harness.Transport) {
	ws := d.CreateWorkspace(t, "retention").ID
	events := d.Subscribe(t, []string{"run.expired"}, nil)
	tr.SetRunConfig(t, harness.RunConfigChange{RetainCount: harness.Ptr(2)})
	long := tr.MustStart(t, harness.ArgvSpec("long", ws, "sleep", "100"))
	var running []string = []string{long.Run}
	d.CancelAtEnd(t, &running)
	done := func(key, text string) harness.RunStart {
		t.Helper()
		st := tr.MustStart(t, harness.ShellSpec(key, ws, text))
		if r := tr.Wait(t, st.Run, nil, nil); r.Err != nil {
			t.Fatalf("wait %s: %s", st.Run, r)
		}
		return st
	}
	expired := func(runs ...string) {
		t.Helper()
		for _, run := range runs {
			events.WaitSeen(t, "run.expired of "+run, func(e harness.Event) bool { return e.Resource == run })
			for _, tr2 := range harness.Both(d) {
				r := tr2.Get(t, run, nil)
				harness.WantError(t, r, "not_found.run", nil)
				if r.Err != nil && r.Err.Data["reason"] != "expired" {
					t.Errorf("get %s: reason %v, want expired", run, r.Err.Data["reason"])
				}
			}
		}
	}
	retained := func(want ...string) {
		t.Helper()
		var got []string
		after := ""
		pages := 0
		for {
			r := tr.List(t, harness.RunListOptions{After: after, Limit: 2})
			if r.Err != nil {
				t.Fatalf("list: %s", r)
			}
			l := r.List(t)
			for _, x := range l.Runs {
				got = append(got, x.Run)
				if x.Has("output") {
					t.Errorf("run.list returned output")
				}
			}
			pages++
			if l.Next == nil {
				break
			}
			if len(l.Runs) != 2 || *l.Next != got[len(got)-1] {
				t.Errorf("page %d: %d runs, next %v: want 2 and next = the last one", pages, len(l.Runs), *l.Next)
			}
			after = *l.Next
			if pages > 20 {
				t.Fatal("run.list pages do not end")
			}
		}
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("retained runs (paged by 2) %v, want %v", got, want)
		}
		if len(want) > 0 && pages != (len(want)+1)/2 {
			t.Errorf("%d runs in %d pages of 2", len(want), pages)
		}
	}

	// retain_count 2: a, b, c complete; a goes.
	a := done("a", "echo a")
	b := done("b", "echo b")
	c := done("c", "echo c")
	expired(a.Run)
	retained(long.Run, b.Run, c.Run)
	unknown := tr.Get(t, "r999", nil)
	harness.WantError(t, unknown, "not_found.run", nil)
	if unknown.Err != nil && unknown.Err.Data["reason"] != "unknown" {
		t.Errorf("get r999: reason %v, want unknown", unknown.Err.Data["reason"])
	}
	// a's key is free again: the identical request starts a new run; b goes.
	a2 := done("a", "echo a")
	if a2.Run == a.Run || a2.Reused {
		t.Errorf("the key of an expired run returned %+v, want a new run", a2)
	}
	expired(b.Run)
	retained(long.Run, c.Run, a2.Run)

	// retain_ms 100: completed records go 100 ms after completion.
	tr.SetRunConfig(t, harness.RunConfigChange{RetainMs: harness.Ptr(100), RetainCount: harness.Ptr(100)})
	expired(c.Run, a2.Run)
	// (not waited for: it may be gone 100 ms after it completed)
	e := tr.MustStart(t, harness.ShellSpec("e", ws, "echo e"))
	expired(e.Run)
	retained(long.Run)

	// retain_bytes 200: rows of 80 bytes; the third record pushes the first out.
	tr.SetRunConfig(t, harness.RunConfigChange{RetainMs: harness.Ptr(3600000), RetainBytes: harness.Ptr(200)})
	p := done("p", "echo p")
	q := done("q", "echo q")
	retained(long.Run, p.Run, q.Run)
	r := done("r", "echo r")
	expired(p.Run)
	retained(long.Run, q.Run, r.Run)
	if rec := d.GetBoth(t, long.Run, nil); rec.State != "running" {
		t.Errorf("the running record: %s", rec.Raw)
	}
	seen := events.Seen()
	var order []string
	for _, e := range seen {
		order = append(order, e.Resource)
	}
	want := []string{a.Run, b.Run, c.Run, a2.Run, e.Run, p.Run}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Errorf("run.expired order %v, want %v (oldest completed first)", order, want)
	}
	t.Run("pane-scoped callers get denied.read for expired runs", func(t *testing.T) {
		p := d.NewInPane(t, "--workspace", ws, "--grant", "read:workspace:"+ws)
		p.Fail(t, "denied.read", 4, "run", "get", "--run", b.Run)
		p.JSON(t, nil, "run", "get", "--run", long.Run) // a retained one of its workspace
		all := d.NewInPane(t, "--workspace", ws, "--grant", "read:run:*")
		all.Fail(t, "not_found.run", 3, "run", "get", "--run", b.Run)
	})
}

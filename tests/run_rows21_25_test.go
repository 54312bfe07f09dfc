package tests

// Conformance matrix of the trusted run/wait spec (§13), rows 21–25:
// delegation and read authority (owner parts), the active limit,
// retention and the event sequence.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// Row 21: spawn grants beyond the caller's own fail denied.delegation.
// Runs take no grants yet and every caller is the owner.
func TestRunRow21Delegation(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := newWorkspace(t, d, "row21")
	t.Run("owner's run is owned by the caller", func(t *testing.T) {
		for _, st := range startBoth(t, d, argvSpec("own", ws, "true")) {
			rec := mustWaitBoth(t, d, st.Run)
			if rec["principal"] != st.Principal || st.Principal == "" {
				t.Errorf("record principal %v, start principal %q", rec["principal"], st.Principal)
			}
		}
	})
	authSkip(t, "grants beyond the caller's fail denied.delegation with no side effects", "the grants parameter of Run.Start and denied.delegation (RFC-0005 §6.2)")
}

// Row 22 (owner and the run's own pane): the owner reads, lists, cancels
// and sees events of a run; the command inside the run's pane reads its
// own run (SIGNALTTY_RUN) and cancels itself.
func TestRunRow22ReadAuthority(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := newWorkspace(t, d, "row22")
	dir := markers(t)
	cli := harness.Bin(t, "signaltty")
	events := d.Subscribe(t, []string{"run"}, nil)
	for _, tr := range both(d) {
		got := filepath.Join(dir, "get-"+tr.short())
		// The command reads its own run, then cancels it: the cancel
		// stops its own process group, the CLI inside included.
		self := fmt.Sprintf(`export SIGNALTTY_NO_AUTOSTART=1; '%s' --json run get --run "$SIGNALTTY_RUN" > '%s'; '%s' --json run cancel --run "$SIGNALTTY_RUN" --grace-ms 200; sleep 100`, cli, got, cli)
		st := tr.mustStart(t, shellSpec("self-"+tr.short(), ws, self))
		rec := mustWaitBoth(t, d, st.Run)
		wantOutcome(t, rec, "terminated", nil, "SIGHUP", "cancel", 125)
		b, err := os.ReadFile(got)
		if err != nil {
			t.Fatalf("the run could not read its own record: %v", err)
		}
		var own struct {
			Record map[string]any `json:"record"`
		}
		if err := json.Unmarshal(b, &own); err != nil || field(own.Record, "run") != st.Run || own.Record["state"] != "running" {
			t.Errorf("the run's own get: %s", b)
		}
		// The owner lists it (by pane and by key) and saw its events.
		for _, tr2 := range both(d) {
			for _, l := range []reply{tr2.list(t, st.Pane, "", "", 0), tr2.list(t, "", st.Key, "", 0)} {
				runs, _ := l.obj["runs"].([]any)
				if len(runs) != 1 || field(runs[0].(map[string]any), "run") != st.Run {
					t.Errorf("list via %s: want only %s: %s", tr2.name, st.Run, l)
				}
			}
		}
		waitSeen(t, events, "run.completed of "+st.Run, func(e harness.Event) bool {
			return e.Type == "run.completed" && e.Resource == st.Run
		})
	}
	authSkip(t, "read pane:* is denied.read and filtered", "principals with scoped grants; pane:* does not cover run:<id>")
	authSkip(t, "read session scope allows", "principals with scoped grants (session:<id> covers its runs)")
	authSkip(t, "pane principal reads and cancels its run", "a distinct pane principal (today the pane's command resolves to the owner; the owner case passes above)")
	authSkip(t, "read run:<id> only: read allowed, cancel denied.write", "principals with scoped grants and denied.write")
}

// Row 23: with max_active 4, 50 concurrent starts with distinct keys:
// exactly 4 succeed while they run, the others fail unavailable.run_limit
// with no side effects; each run's record, pane and output are its own.
// Repeated $SIGNALTTY_RUN_REPEAT times, through each transport.
func TestRunRow23ActiveLimit(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := newWorkspace(t, d, "row23")
	dir := markers(t)
	var all []string
	cancelAtEnd(t, d, &all)
	const n, limit = 50, 4
	var limitErrs []reply
	for i := 0; i < runRepeat(t); i++ {
		for _, tr := range both(d) {
			tr.setConfig(t, map[string]int{"max_active": limit})
			round := fmt.Sprintf("%d%s", i, tr.short())
			before, _ := snapshot(t, d)
			seq0 := d.Status(t).Seq
			kids0 := daemonChildren(d)
			events := d.Subscribe(t, nil, nil)
			procs := make([]*bgProc, n)
			keys := make([]string, n)
			for j := range procs {
				keys[j] = fmt.Sprintf("lim-%s-%02d", round, j)
				spec := shellSpec(keys[j], ws, "echo "+keys[j]+"; "+mark(dir, keys[j])+"; exec sleep 30")
				if tr.name == "cli" {
					procs[j] = bgCLI(t, d, spec.cliArgs()...)
				} else {
					procs[j] = bgVL(t, d, "dev.signaltty.Run.Start", spec.params())
				}
			}
			var ok []startResult
			okKey := map[string]bool{}
			for j, p := range procs {
				r := p.reply(t, tr.name, harness.CallTimeout)
				if r.err != nil {
					wantError(t, r, "unavailable.run_limit", map[string]any{"max_active": float64(limit)})
					limitErrs = append(limitErrs, r)
					continue
				}
				st := checkStart(t, r, keys[j])
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
			after, _ := snapshot(t, d)
			checkOnlyAdded(t, before, after, mine)
			for _, e := range events.Seen() {
				if !mine[e.Resource] && e.Resource != ws {
					t.Errorf("round %s: an event about a resource of no started run: %s", round, e.Raw)
				}
			}
			if got, want := d.Status(t).Seq-seq0, int64(len(ok)*4); got < want {
				t.Errorf("round %s: %d events for %d started runs", round, got, len(ok))
			}
			kids := daemonChildren(d)
			if len(kids) != len(kids0)+len(ok) {
				t.Errorf("round %s: the daemon has %d children, had %d before %d runs started", round, len(kids), len(kids0), len(ok))
			}
			lr := tr.list(t, "", "", "", 1024)
			runs, _ := lr.obj["runs"].([]any)
			for _, x := range runs {
				k := field(x.(map[string]any), "key")
				if strings.HasPrefix(k, "lim-"+round+"-") && !okKey[k] {
					t.Errorf("a refused key is bound: %v", x)
				}
			}
			// Each run's pane shows its own output; each started command ran once.
			for _, st := range ok {
				d.WaitLine(t, st.Pane, st.Key)
				waitMarker(t, dir, st.Key)
			}
			for j, k := range keys {
				if c := count(dir, k); c != map[bool]int{true: 1, false: 0}[okKey[k]] {
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
				spec := shellSpec(refused, ws, "echo "+refused+"; "+mark(dir, refused)+"; exec sleep 30")
				wantError(t, tr.start(t, spec), "unavailable.run_limit", nil)
				r := tr.cancel(t, ok[0].Run, "", ptr(200))
				if r.err != nil {
					t.Fatalf("cancel: %s", r)
				}
				st := tr.mustStart(t, spec)
				all = append(all, st.Run)
				ok = append(ok, st)
				d.WaitLine(t, st.Pane, st.Key)
			}
			var recs []map[string]any
			for _, st := range ok {
				r := tr.cancel(t, st.Run, "", ptr(200))
				if r.err != nil {
					t.Fatalf("cancel %s: %s", st.Run, r)
				}
				rec := r.record(t)
				wantOutcome(t, rec, "terminated", nil, "SIGHUP", "cancel", 125)
				if ls := trimmed(linesOf(t, outputOf(t, rec))); len(ls) != 1 || ls[0] != st.Key {
					c := d.Capture(t, st.Pane)
					t.Errorf("run %s (%s): output %q, want only its own line; record %v; the pane's screen now:\n%s", st.Run, st.Key, ls, rec, c.Dump())
				}
				if field(rec, "pane") != st.Pane || field(rec, "key") != st.Key {
					t.Errorf("record %v does not belong to %+v", rec, st)
				}
				recs = append(recs, rec)
			}
			for _, rec := range recs[1:] {
				sameJSON(t, "the records of the limited runs (apart from ids and output)",
					strip(recs[0], append(volatile, "output")...), strip(rec, append(volatile, "output")...))
			}
			events.Close()
		}
	}
	// The refusals are identical through both transports.
	for _, r := range limitErrs[1:] {
		sameErrors(t, "unavailable.run_limit", limitErrs[0], r)
	}

	// Deterministically: a start still preparing (held at its start
	// barrier) is not a run yet (§2: no visible starting state) and does
	// not count toward max_active; it is refused at its own limit check.
	t.Run("preparing start is not a run", func(t *testing.T) {
		dh, hooks := harness.StartHooks(t)
		ws := newWorkspace(t, dh, "row23-preparing")
		var runs []string
		cancelAtEnd(t, dh, &runs)
		for _, tr := range both(dh) {
			tr.setConfig(t, map[string]int{"max_active": 2})
			held := "held-" + tr.short()
			gate := filepath.Join(hooks, "barrier-before-"+held)
			touch(t, gate)
			var p *bgProc
			spec := shellSpec(held, ws, "exec sleep 30")
			if tr.name == "cli" {
				p = bgCLI(t, dh, spec.cliArgs()...)
			} else {
				p = bgVL(t, dh, "dev.signaltty.Run.Start", spec.params())
			}
			waitFile(t, filepath.Join(hooks, "reached-before-"+held))
			var cur []string
			for _, k := range []string{"b", "c"} {
				r := tr.start(t, shellSpec("free-"+k+"-"+tr.short(), ws, "exec sleep 30"))
				if r.err != nil {
					t.Errorf("start %s while one start is preparing and %d run(s) exist (max_active 2): %s", k, len(cur), r)
					continue
				}
				cur = append(cur, checkStart(t, r, "free-"+k+"-"+tr.short()).Run)
			}
			remove(t, gate)
			r := p.reply(t, tr.name, harness.PollTimeout)
			if len(cur) == 2 { // the held start is over the limit at its own check
				wantError(t, r, "unavailable.run_limit", map[string]any{"max_active": float64(2)})
			} else if r.err == nil {
				cur = append(cur, checkStart(t, r, held).Run)
			}
			runs = append(runs, cur...)
			for _, run := range cur {
				if c := tr.cancel(t, run, "", ptr(200)); c.err != nil {
					t.Errorf("cancel %s: %s", run, c)
				}
			}
		}
	})
}

// checkOnlyAdded requires the snapshot after to equal before plus entities
// whose ids are in mine (states of old entities may not change).
func checkOnlyAdded(t *testing.T, before, after map[string]any, mine map[string]bool) {
	t.Helper()
	for _, kind := range []string{"workspaces", "tabs", "panes", "runs"} {
		idKey := strings.TrimSuffix(kind, "s")
		old := map[string]string{}
		for _, x := range before[kind].([]any) {
			b, _ := json.Marshal(x)
			old[field(x.(map[string]any), idKey)] = string(b)
		}
		for _, x := range after[kind].([]any) {
			id := field(x.(map[string]any), idKey)
			b, _ := json.Marshal(x)
			if prev, ok := old[id]; ok {
				if prev != string(b) && kind != "workspaces" {
					t.Errorf("%s %s changed: %s → %s", idKey, id, prev, b)
				}
				delete(old, id)
			} else if !mine[id] {
				t.Errorf("a new %s %s belongs to no started run: %s", idKey, id, b)
			}
		}
		for id := range old {
			t.Errorf("%s %s disappeared", idKey, id)
		}
	}
}

// Row 24: retention. retain_count 2, then retain_ms 100, then a small
// retain_bytes: the oldest completed record is evicted first with
// run.expired; an evicted run is not_found.run (expired); its key starts a
// new run; running records are never evicted; run.list --limit 2 pages
// through all retained records via next.
func TestRunRow24Retention(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	for _, mk := range []func(*harness.Daemon) transport{cliOf, vlOf} {
		d := harness.Start(t)
		tr := mk(d)
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			retention(t, d, tr)
		})
	}
}

func retention(t *testing.T, d *harness.Daemon, tr transport) {
	ws := newWorkspace(t, d, "row24")
	events := d.Subscribe(t, []string{"run.expired"}, nil)
	tr.setConfig(t, map[string]int{"retain_count": 2})
	long := tr.mustStart(t, argvSpec("long", ws, "sleep", "100"))
	var running []string = []string{long.Run}
	cancelAtEnd(t, d, &running)
	done := func(key, text string) startResult {
		t.Helper()
		st := tr.mustStart(t, shellSpec(key, ws, text))
		if r := tr.wait(t, st.Run, nil, nil); r.err != nil {
			t.Fatalf("wait %s: %s", st.Run, r)
		}
		return st
	}
	expired := func(runs ...string) {
		t.Helper()
		for _, run := range runs {
			waitSeen(t, events, "run.expired of "+run, func(e harness.Event) bool { return e.Resource == run })
			for _, tr2 := range both(d) {
				r := tr2.get(t, run, nil)
				wantError(t, r, "not_found.run", nil)
				if r.err != nil && r.err.Data["reason"] != "expired" {
					t.Errorf("get %s: reason %v, want expired", run, r.err.Data["reason"])
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
			r := tr.list(t, "", "", after, 2)
			if r.err != nil {
				t.Fatalf("list: %s", r)
			}
			runs, _ := r.obj["runs"].([]any)
			for _, x := range runs {
				got = append(got, field(x.(map[string]any), "run"))
				if _, ok := x.(map[string]any)["output"]; ok {
					t.Errorf("run.list returned output")
				}
			}
			pages++
			next, more := r.obj["next"]
			if !more {
				break
			}
			if len(runs) != 2 || field(r.obj, "next") != got[len(got)-1] {
				t.Errorf("page %d: %d runs, next %v: want 2 and next = the last one", pages, len(runs), next)
			}
			after = field(r.obj, "next")
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
	unknown := tr.get(t, "r999", nil)
	wantError(t, unknown, "not_found.run", nil)
	if unknown.err != nil && unknown.err.Data["reason"] != "unknown" {
		t.Errorf("get r999: reason %v, want unknown", unknown.err.Data["reason"])
	}
	// a's key is free again: the identical request starts a new run; b goes.
	a2 := done("a", "echo a")
	if a2.Run == a.Run || a2.Reused {
		t.Errorf("the key of an expired run returned %+v, want a new run", a2)
	}
	expired(b.Run)
	retained(long.Run, c.Run, a2.Run)

	// retain_ms 100: completed records go 100 ms after completion.
	tr.setConfig(t, map[string]int{"retain_ms": 100, "retain_count": 100})
	expired(c.Run, a2.Run)
	// (not waited for: it may be gone 100 ms after it completed)
	e := tr.mustStart(t, shellSpec("e", ws, "echo e"))
	expired(e.Run)
	retained(long.Run)

	// retain_bytes 200: rows of 80 bytes; the third record pushes the first out.
	tr.setConfig(t, map[string]int{"retain_ms": 3600000, "retain_bytes": 200})
	p := done("p", "echo p")
	q := done("q", "echo q")
	retained(long.Run, p.Run, q.Run)
	r := done("r", "echo r")
	expired(p.Run)
	retained(long.Run, q.Run, r.Run)
	if rec := mustGetBoth(t, d, long.Run, nil); rec["state"] != "running" {
		t.Errorf("the running record: %v", rec)
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
	authSkip(t, "pane-scoped callers get denied.read for expired runs", "principals with pane-scoped grants")
}

// Row 25: a subscriber from before the run and fresh snapshots: start,
// cancel, completion, pane removal and expiry each publish their events in
// one turn in the order of §9; the snapshot holds the run until expiry; a
// subscription to the run keeps its events after the pane is removed.
func TestRunRow25Events(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := newWorkspace(t, d, "row25")
	live := d.Spawn(t, []string{"--workspace", ws}, "sleep", "100")
	t.Cleanup(func() { d.CLI(t, "pane", "kill", "--pane", live.ID, "--grace-ms", "200") })

	var sequences [][]string
	for _, tr := range both(d) {
		all := d.Subscribe(t, nil, nil)
		st := tr.mustStart(t, shellSpec("ev-"+tr.short(), ws, "exec sleep 100"))
		byRun := d.Subscribe(t, nil, []string{st.Run})
		turn := func(what string, last string, types ...string) []harness.Event {
			t.Helper()
			match := func(e harness.Event) bool {
				return e.Type == last && (e.Resource == st.Run || e.Resource == st.Pane || e.Resource == st.Tab)
			}
			waitSeen(t, all, last+" of "+what, match)
			es := all.Seen()
			// The turn: the len(types) events up to that one, consecutive, in this order.
			var idx int
			for i, e := range es {
				if match(e) {
					idx = i
				}
			}
			if idx+1 < len(types) {
				t.Fatalf("%s: too few events:\n%s", what, harness.DumpEvents(es))
			}
			group := es[idx+1-len(types) : idx+1]
			for i, e := range group {
				if e.Type != types[i] || (i > 0 && e.Seq != group[i-1].Seq+1) {
					t.Errorf("%s: want %v in one turn, got:\n%s", what, types, harness.DumpEvents(es))
					break
				}
			}
			return group
		}
		entity := func() map[string]any {
			snap, _ := snapshot(t, d)
			for _, x := range snap["runs"].([]any) {
				if field(x.(map[string]any), "run") == st.Run {
					return x.(map[string]any)
				}
			}
			return nil
		}
		g := turn("start", "run.started", "tab.created", "pane.created", "tab.layout_changed", "run.started")
		if g[3].Data["run"] != st.Run || g[3].Data["pane"] != st.Pane {
			t.Errorf("run.started data %s", g[3].Raw)
		}
		sameJSON(t, "the run entity after start", entity(), map[string]any{"run": st.Run, "pane": st.Pane, "state": "running"})

		r := tr.cancel(t, st.Run, "TERM", ptr(200))
		if r.err != nil {
			t.Fatalf("cancel: %s", r)
		}
		turn("cancel", "run.terminating", "pane.terminating", "run.terminating")
		g = turn("completion", "run.completed", "pane.exited", "run.completed")
		sameJSON(t, "run.completed data", g[1].Data, map[string]any{"run": st.Run, "pane": st.Pane, "outcome": "terminated", "signal": "SIGTERM", "cause": "cancel"})
		want := map[string]any{"run": st.Run, "pane": st.Pane, "state": "completed", "outcome": "terminated", "signal": "SIGTERM", "cause": "cancel"}
		sameJSON(t, "the run entity after completion", entity(), want)

		rm := tr.call(t, "dev.signaltty.Mux.RemovePane", map[string]any{"pane": st.Pane}, "pane", "remove", "--pane", st.Pane)
		if rm.err != nil {
			t.Fatalf("pane remove: %s", rm)
		}
		turn("pane removal", "tab.removed", "pane.removed", "tab.removed")
		sameJSON(t, "the run entity after its pane's removal", entity(), want)
		mustGetBoth(t, d, st.Run, nil)

		tr.setConfig(t, map[string]int{"retain_count": 0})
		turn("expiry", "run.expired", "run.expired")
		if e := entity(); e != nil {
			t.Errorf("the snapshot still has the expired run: %v", e)
		}
		tr.setConfig(t, map[string]int{"retain_count": 256})
		waitSeen(t, byRun, "run.expired on the run's own subscription", func(e harness.Event) bool {
			return e.Type == "run.expired"
		})
		var types []string
		for _, e := range byRun.Seen() {
			types = append(types, e.Type)
		}
		if strings.Join(types, " ") != "run.terminating run.completed run.expired" {
			t.Errorf("events about %s: %v", st.Run, types)
		}
		var seq []string
		for _, e := range all.Seen() {
			seq = append(seq, e.Type)
		}
		sequences = append(sequences, seq)
		all.Close()
		byRun.Close()
	}
	sameJSON(t, "event sequences of the CLI-driven and the varlinkctl-driven run", sequences[0], sequences[1])

	t.Run("open command at exit", func(t *testing.T) {
		all := d.Subscribe(t, nil, nil)
		for _, tr := range both(d) {
			st := tr.mustStart(t, shellSpec("open-"+tr.short(), ws, `printf '\033]133;C\007'; exec sleep 100`))
			waitSeen(t, all, "command.started of "+st.Pane, func(e harness.Event) bool {
				return e.Type == "command.started" && e.Resource == st.Pane
			})
			if r := tr.cancel(t, st.Run, "", ptr(200)); r.err != nil {
				t.Fatalf("cancel: %s", r)
			}
			done := waitSeen(t, all, "run.completed of "+st.Run, func(e harness.Event) bool {
				return e.Type == "run.completed" && e.Resource == st.Run
			})
			var got []string
			for _, e := range all.Seen() {
				if e.Seq >= done.Seq-2 && e.Seq <= done.Seq {
					got = append(got, e.Type+":"+fmt.Sprint(e.Data["reason"]))
				}
			}
			if want := "command.finished:pane_exit pane.exited:<nil> run.completed:<nil>"; strings.Join(got, " ") != want {
				t.Errorf("completion turn %v, want %s:\n%s", got, want, harness.DumpEvents(all.Seen()))
			}
		}
	})

	t.Run("split and deadline", func(t *testing.T) {
		all := d.Subscribe(t, nil, nil)
		for _, tr := range both(d) {
			st := tr.mustStart(t, runSpec{Key: "split-" + tr.short(), Pane: live.ID, Axis: "cols", Argv: []string{"sleep", "100"}, DeadlineMs: ptr(300)})
			term := waitSeen(t, all, "run.terminating of "+st.Run, func(e harness.Event) bool {
				return e.Type == "run.terminating" && e.Resource == st.Run
			})
			var got []string
			for _, e := range all.Seen() {
				if e.Seq > term.Seq {
					break
				}
				if e.Resource == st.Run || e.Resource == st.Pane || e.Resource == live.ID || e.Resource == st.Tab {
					got = append(got, e.Type)
				}
			}
			want := "pane.created pane.resized tab.layout_changed run.started pane.terminating run.terminating"
			if strings.Join(got, " ") != want {
				t.Errorf("split run with a deadline: %v, want %s", got, want)
			}
			wantOutcome(t, mustWaitBoth(t, d, st.Run), "terminated", nil, "SIGHUP", "deadline", 124)
			all = d.Subscribe(t, nil, nil)
		}
	})
}

package tests

// Conformance matrix of the trusted run/wait spec (§13), rows 16–20:
// idempotency keys, restarts, parameter validation and authorization
// (owner parts; the rest waits for principals and grants).

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// authSkip marks a sub-case that needs principals and grants other than
// the owner, which signaltty does not have yet.
func authSkip(t *testing.T, name, what string) {
	t.Run(name, func(t *testing.T) {
		t.Skip("needs principals and grants (not implemented yet): " + what)
	})
}

// Row 16: the same key and parameters from a second connection while the
// first start is preparing joins it (reused: true, same run), and after
// completion returns the run again; the key with another argv fails
// conflict.run_key. The command runs once.
func TestRunRow16SameKey(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d, hooks := harness.StartHooks(t)
	ws := newWorkspace(t, d, "row16")
	dir := markers(t)
	var conflicts []reply
	for _, tr := range both(d) {
		key := "same-" + tr.short()
		spec := shellSpec(key, ws, mark(dir, key)+"; exit 0")
		bg := func() (*bgProc, string) {
			if tr.name == "cli" {
				return bgCLI(t, d, spec.cliArgs()...), "cli"
			}
			return bgVL(t, d, "dev.signaltty.Run.Start", spec.params()), "varlinkctl"
		}
		gate := filepath.Join(hooks, "barrier-after-"+key)
		touch(t, gate)
		first, via := bg()
		waitFile(t, filepath.Join(hooks, "reached-after-"+key))
		second, _ := bg()
		second.waitBlocked(t) // it waits for the first (it is joined)
		if count(dir, key) != 0 {
			t.Errorf("%s: the command ran before its start barrier was released", key)
		}
		remove(t, gate)
		r1 := first.reply(t, via, harness.PollTimeout)
		r2 := second.reply(t, via, harness.PollTimeout)
		if r1.err != nil || r2.err != nil {
			t.Fatalf("starts failed:\n%s\n%s", r1, r2)
		}
		s1, s2 := checkStart(t, r1, key), checkStart(t, r2, key)
		if s1.Reused || !s2.Reused || s1.Run != s2.Run || s1.Pane != s2.Pane || s1.Pid != s2.Pid {
			t.Errorf("a start joined while preparing: want the same run, reused false then true:\n%s\n%s", r1, r2)
		}
		sameJSON(t, "the joined start result", strip(s1.obj, "reused"), strip(s2.obj, "reused"))
		rec := mustWaitBoth(t, d, s1.Run)
		wantOutcome(t, rec, "succeeded", ptr(0), "", "", 0)

		// After completion, through both transports.
		for _, tr2 := range both(d) {
			r := tr2.start(t, spec)
			if r.err != nil {
				t.Fatalf("repeat after completion via %s: %s", tr2.name, r)
			}
			if s := checkStart(t, r, key); !s.Reused || s.Run != s1.Run {
				t.Errorf("repeat after completion via %s: want %s reused: %s", tr2.name, s1.Run, r)
			}
			sameJSON(t, "the start result after completion", strip(r.obj, "reused"), strip(s1.obj, "reused"))
		}

		// Defaults given explicitly and source (not part of the digest)
		// are the same parameters.
		explicit := spec
		explicit.Cols, explicit.Rows, explicit.OutputRows, explicit.OutputBytes = ptr(80), ptr(24), ptr(100), ptr(65536)
		explicit.Source = s1.Source
		if s := checkStart(t, tr.start(t, explicit), key); !s.Reused || s.Run != s1.Run {
			t.Errorf("the request with its defaults spelled out and a source: %+v, want %s reused", s, s1.Run)
		}

		// The key with another argv.
		other := spec
		other.Shell, other.Argv = nil, []string{"sh", "-c", mark(dir, key)}
		w := takeWorld(t, d)
		r := tr.start(t, other)
		wantError(t, r, "conflict.run_key", map[string]any{"run": s1.Run})
		w.unchanged(t, d, "conflict.run_key")
		conflicts = append(conflicts, r)
		if c := count(dir, key); c != 1 {
			t.Errorf("%s: the command ran %d times, want once", key, c)
		}
	}
	// A repeat is not checked against the target's state again: the run of
	// a split pane whose target exited since is returned.
	t.Run("target gone", func(t *testing.T) {
		for _, tr := range both(d) {
			target := d.Spawn(t, []string{"--workspace", ws}, "sleep", "100")
			spec := runSpec{Key: "split-" + tr.short(), Pane: target.ID, Axis: "cols", Shell: ptr("exit 0")}
			st := tr.mustStart(t, spec)
			mustWaitBoth(t, d, st.Run)
			d.Kill(t, target.ID, "--grace-ms", "200")
			wantError(t, tr.start(t, runSpec{Key: "other-" + tr.short(), Pane: target.ID, Axis: "cols", Shell: ptr("exit 0")}), "conflict.pane_exited", nil)
			r := tr.start(t, spec)
			if r.err != nil {
				t.Fatalf("repeat after the target exited via %s: %s", tr.name, r)
			}
			if s := checkStart(t, r, spec.Key); !s.Reused || s.Run != st.Run {
				t.Errorf("repeat after the target exited: %+v, want %s reused", s, st.Run)
			}
		}
	})
	for _, r := range conflicts { // the keys and runs differ
		r.err.Data, r.err.Message = nil, ""
	}
	sameErrors(t, "conflict.run_key", conflicts...)
	authSkip(t, "key from another principal starts an independent run", "a second principal using the same key")
}

// Row 17: after a daemon restart, the repeat of a start with --source of
// the old daemon fails conflict.source with the new source; the command
// does not run again.
func TestRunRow17Restart(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := newWorkspace(t, d, "row17")
	dir := markers(t)
	specs := map[string]runSpec{}
	var old string
	for _, tr := range both(d) {
		key := "restart-" + tr.short()
		spec := shellSpec(key, ws, mark(dir, key)+"; exit 0")
		st := tr.mustStart(t, spec)
		mustWaitBoth(t, d, st.Run)
		old = st.Source
		spec.Source = old
		specs[tr.name] = spec
		// Before the restart the source matches: the run is returned.
		if again := checkStart(t, tr.start(t, spec), key); !again.Reused || again.Run != st.Run {
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
	for _, tr := range both(d2) {
		if l := tr.list(t, "", "", "", 0); l.err != nil || len(l.obj["runs"].([]any)) != 0 {
			t.Errorf("runs after a restart via %s: %s", tr.name, l)
		}
	}
	if st := d2.Status(t); st.LivePanes != 0 {
		t.Errorf("%d live panes after a restart: a command was started again", st.LivePanes)
	}
	var errs []reply
	for _, tr := range both(d2) {
		w := takeWorld(t, d2)
		r := tr.start(t, specs[tr.name])
		wantError(t, r, "conflict.source", map[string]any{"source": fresh})
		w.unchanged(t, d2, "conflict.source")
		errs = append(errs, r)
	}
	sameErrors(t, "conflict.source", errs...)
	for _, tr := range both(d2) {
		if c := count(dir, "restart-"+tr.short()); c != 1 {
			t.Errorf("the command of %s ran %d times, want once", tr.name, c)
		}
	}
}

// Row 18: bad keys, a 129-byte key among them, fail invalid_params.key
// (syntax) with no side effects; 128 bytes of every allowed character pass.
func TestRunRow18Key(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := newWorkspace(t, d, "row18")
	for _, key := range []string{"", "has space", "slash/key", "é", "semi;colon", "tab\tkey", "star*", strings.Repeat("k", 129)} {
		var errs []reply
		for _, tr := range both(d) {
			w := takeWorld(t, d)
			r := tr.start(t, argvSpec(key, ws, "true"))
			wantError(t, r, "invalid_params.key", map[string]any{"param": "key", "reason": "syntax"})
			w.unchanged(t, d, fmt.Sprintf("key %q", key))
			errs = append(errs, r)
		}
		sameErrors(t, fmt.Sprintf("invalid_params.key of %q", key), errs...)
	}
	allowed := "azAZ09._:-"
	for _, tr := range both(d) {
		key := strings.Repeat(allowed, 12) + "12345" + tr.short() + "xx" // 128 bytes
		if len(key) != 128 {
			t.Fatalf("key of %d bytes", len(key))
		}
		wantOutcome(t, mustWaitBoth(t, d, tr.mustStart(t, argvSpec(key, ws, "true")).Run), "succeeded", ptr(0), "", "", 0)
	}
}

// Row 19: invalid_params.command and .target with their reasons (neither
// or both of argv and shell, of workspace and pane; axis with a workspace;
// a NUL in shell), with no side effects; validation order of §11.
func TestRunRow19Params(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := newWorkspace(t, d, "row19")
	live := d.Spawn(t, []string{"--workspace", ws}, "sleep", "100")
	t.Cleanup(func() { d.CLI(t, "pane", "kill", "--pane", live.ID, "--grace-ms", "200") })
	sh := ptr("true")
	cases := []struct {
		name, code, reason string
		spec               runSpec
	}{
		{"neither argv nor shell", "invalid_params.command", "missing", runSpec{Key: "k", Workspace: ws}},
		{"both argv and shell", "invalid_params.command", "exclusive", runSpec{Key: "k", Workspace: ws, Argv: []string{"true"}, Shell: sh}},
		{"empty shell", "invalid_params.command", "size", runSpec{Key: "k", Workspace: ws, Shell: ptr("")}},
		{"shell over 65536 bytes", "invalid_params.command", "size", runSpec{Key: "k", Workspace: ws, Shell: ptr(strings.Repeat(":", 65537))}},
		{"neither workspace nor pane", "invalid_params.target", "missing", runSpec{Key: "k", Shell: sh}},
		{"both workspace and pane", "invalid_params.target", "exclusive", runSpec{Key: "k", Workspace: ws, Pane: live.ID, Axis: "cols", Shell: sh}},
		{"axis with workspace", "invalid_params.target", "misplaced", runSpec{Key: "k", Workspace: ws, Axis: "cols", Shell: sh}},
		{"pane without axis", "invalid_params.target", "missing", runSpec{Key: "k", Pane: live.ID, Shell: sh}},
		{"name with pane", "invalid_params.target", "misplaced", runSpec{Key: "k", Pane: live.ID, Axis: "rows", Name: ptr("n"), Shell: sh}},
		// §11: the target form is checked first, the source before the other parameters.
		{"no target and a bad key", "invalid_params.target", "missing", runSpec{Key: "bad key", Argv: []string{"true"}}},
		{"bad source and no command", "conflict.source", "", runSpec{Key: "k", Workspace: ws, Source: "signaltty/00000000-0000-4000-8000-000000000000"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var errs []reply
			for _, tr := range both(d) {
				w := takeWorld(t, d)
				r := tr.start(t, c.spec)
				wantError(t, r, c.code, nil)
				if c.reason != "" && r.err != nil {
					if r.err.Data["reason"] != c.reason || field(r.err.Data, "param") == "" {
						t.Errorf("data %v, want reason %q and a param", r.err.Data, c.reason)
					}
				}
				w.unchanged(t, d, c.name)
				errs = append(errs, r)
			}
			sameErrors(t, c.name, errs...)
		})
	}
	// A NUL can be passed neither in a command-line argument nor to
	// varlinkctl (its JSON parser refuses \u0000): the Go varlink client and
	// a hand-made message carry it.
	t.Run("NUL in shell", func(t *testing.T) {
		spec := shellSpec("k", ws, "echo a\x00b")
		w := takeWorld(t, d)
		raw := rawStart(t, d, spec)
		wantError(t, raw, "invalid_params.command", map[string]any{"param": "shell", "reason": "nul"})
		if raw.err != nil && raw.err.Data["reason"] != "nul" {
			t.Errorf("data %v, want reason nul", raw.err.Data)
		}
		hand := handMade(t, d, "dev.signaltty.Run.Start", spec.params())
		if hand == nil {
			t.Fatal("a hand-made start with a NUL in shell succeeded")
		}
		sameJSON(t, "the errors via the Go client and a hand-made message", raw.err, hand)
		w.unchanged(t, d, "NUL in shell")
	})
}

// Row 20 (owner parts): a start at an existing target succeeds, at a
// missing one fails not_found with no side effects; invalid parameters at
// a missing target fail invalid_params (parameters before lookup, §11).
func TestRunRow20Targets(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := newWorkspace(t, d, "row20")
	live := d.Spawn(t, []string{"--workspace", ws}, "sleep", "100")
	t.Cleanup(func() { d.CLI(t, "pane", "kill", "--pane", live.ID, "--grace-ms", "200") })
	for _, c := range []struct {
		name, code string
		spec       runSpec
	}{
		{"missing workspace", "not_found.workspace", argvSpec("t1", "ws_000000000000", "true")},
		{"missing pane", "not_found.pane", runSpec{Key: "t2", Pane: "pane_000000000000", Axis: "cols", Argv: []string{"true"}}},
		{"missing workspace, bad key", "invalid_params.key", argvSpec("bad key", "ws_000000000000", "true")},
		{"missing pane, no command", "invalid_params.command", runSpec{Key: "t3", Pane: "pane_000000000000", Axis: "cols"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var errs []reply
			for _, tr := range both(d) {
				w := takeWorld(t, d)
				r := tr.start(t, c.spec)
				wantError(t, r, c.code, nil)
				w.unchanged(t, d, c.name)
				keyFree(t, d, c.spec.Key)
				errs = append(errs, r)
			}
			sameErrors(t, c.name, errs...)
		})
	}
	t.Run("existing targets", func(t *testing.T) {
		rec := runBoth(t, d, argvSpec("at-ws", ws, "true"))
		wantOutcome(t, rec, "succeeded", ptr(0), "", "", 0)
		var recs []map[string]any
		for _, tr := range both(d) { // a pane of its own for each: a split halves its target
			target := d.Spawn(t, []string{"--workspace", ws}, "sleep", "100")
			t.Cleanup(func() { d.CLI(t, "pane", "kill", "--pane", target.ID, "--grace-ms", "200") })
			st := tr.mustStart(t, runSpec{Key: "at-pane-" + tr.short(), Pane: target.ID, Axis: "rows", Argv: []string{"true"}})
			rec := mustWaitBoth(t, d, st.Run)
			wantOutcome(t, rec, "succeeded", ptr(0), "", "", 0)
			if st.Tab != target.Tab {
				t.Errorf("the split run is in tab %s, want %s", st.Tab, target.Tab)
			}
			recs = append(recs, rec)
		}
		sameRecords(t, "records of split runs via the CLI and via varlinkctl", recs...)
	})
	authSkip(t, "caller without spawn gets denied.spawn", "a principal without spawn (existing and missing targets, invalid params: identical denied.spawn)")
	authSkip(t, "spawn self on another's pane gets denied.spawn", "grants with scope self")
	authSkip(t, "audit record per denial", "the RFC-0005 §10 audit log")
}

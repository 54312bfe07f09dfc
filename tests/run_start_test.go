package tests

// What Run.Start returns: its target forms (a new tab of a workspace, a
// split of a live pane), the validation of its parameters in their order,
// and failed execs, all without side effects when they fail
// (docs/run-wait.md).

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// A missing program, a non-executable file and a script without #! fail
// unavailable.spawn (exit 6) with no side effects; the key stays free and
// the program never ran (its marker file is never written).
func TestRunStartExecFailureLeavesNoTrace(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "exec-failure").ID
	dir := harness.TempDir(t)
	noExec := filepath.Join(dir, "not-executable")
	if err := os.WriteFile(noExec, []byte("#!/bin/sh\n"+harness.Mark(dir, "noexec")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	noShebang := filepath.Join(dir, "no-shebang")
	if err := os.WriteFile(noShebang, []byte(harness.Mark(dir, "noshebang")+"\n"), 0o755); err != nil {
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
			var errs []harness.Reply
			for _, tr := range harness.Both(d) {
				key := fmt.Sprintf("spawnfail-%d-%s", i, tr.Short())
				spec := harness.ArgvSpec(key, ws, c.argv...)
				w := d.TakeWorld(t)
				r := tr.Start(t, spec)
				harness.WantError(t, r, "unavailable.spawn", nil)
				w.Unchanged(t, "after a failed exec via "+tr.Name)
				d.KeyFree(t, key)
				// The identical request fails again (nothing was bound) …
				harness.WantError(t, tr.Start(t, spec), "unavailable.spawn", nil)
				// … and the key starts another command.
				st := tr.MustStart(t, harness.ArgvSpec(key, ws, "true"))
				if st.Reused {
					t.Errorf("the key of a failed start was bound: %+v", st)
				}
				harness.WantOutcome(t, d.WaitBoth(t, st.Run), "succeeded", harness.Ptr(0), "", "", 0)
				errs = append(errs, r)
			}
			harness.SameErrors(t, "unavailable.spawn", errs...)
			if c.marker != "" && harness.MarkCount(dir, c.marker) != 0 {
				t.Errorf("the program ran %d times", harness.MarkCount(dir, c.marker))
			}
		})
	}
}

// Bad keys, a 129-byte key among them, fail invalid_params.key (syntax)
// with no side effects; 128 bytes of every allowed character pass.
func TestRunStartKeySyntax(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "key-syntax").ID
	for _, key := range []string{"", "has space", "slash/key", "é", "semi;colon", "tab\tkey", "star*", strings.Repeat("k", 129)} {
		var errs []harness.Reply
		for _, tr := range harness.Both(d) {
			w := d.TakeWorld(t)
			r := tr.Start(t, harness.ArgvSpec(key, ws, "true"))
			harness.WantError(t, r, "invalid_params.key", map[string]any{"param": "key", "reason": "syntax"})
			w.Unchanged(t, fmt.Sprintf("key %q", key))
			errs = append(errs, r)
		}
		harness.SameErrors(t, fmt.Sprintf("invalid_params.key of %q", key), errs...)
	}
	allowed := "azAZ09._:-"
	for _, tr := range harness.Both(d) {
		key := strings.Repeat(allowed, 12) + "12345" + tr.Short() + "xx" // 128 bytes
		if len(key) != 128 {
			t.Fatalf("key of %d bytes", len(key))
		}
		harness.WantOutcome(t, d.WaitBoth(t, tr.MustStart(t, harness.ArgvSpec(key, ws, "true")).Run), "succeeded", harness.Ptr(0), "", "", 0)
	}
}

// invalid_params.command and .target with their reasons (neither or both
// of argv and shell, of workspace and pane; axis with a workspace; a NUL
// in shell), with no side effects, in the validation order of
// docs/run-wait.md.
func TestRunStartParamValidation(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "params").ID
	live := d.Spawn(t, []string{"--workspace", ws}, "sleep", "100")
	t.Cleanup(func() { d.CLI(t, "pane", "kill", "--pane", live.ID, "--grace-ms", "200") })
	sh := harness.Ptr("true")
	cases := []struct {
		name, code, reason string
		spec               harness.RunSpec
	}{
		{"neither argv nor shell", "invalid_params.command", "missing", harness.RunSpec{Key: "k", Workspace: ws}},
		{"both argv and shell", "invalid_params.command", "exclusive", harness.RunSpec{Key: "k", Workspace: ws, Argv: []string{"true"}, Shell: sh}},
		{"empty shell", "invalid_params.command", "size", harness.RunSpec{Key: "k", Workspace: ws, Shell: harness.Ptr("")}},
		{"shell over 65536 bytes", "invalid_params.command", "size", harness.RunSpec{Key: "k", Workspace: ws, Shell: harness.Ptr(strings.Repeat(":", 65537))}},
		{"neither workspace nor pane", "invalid_params.target", "missing", harness.RunSpec{Key: "k", Shell: sh}},
		{"both workspace and pane", "invalid_params.target", "exclusive", harness.RunSpec{Key: "k", Workspace: ws, Pane: live.ID, Axis: "cols", Shell: sh}},
		{"axis with workspace", "invalid_params.target", "misplaced", harness.RunSpec{Key: "k", Workspace: ws, Axis: "cols", Shell: sh}},
		{"pane without axis", "invalid_params.target", "missing", harness.RunSpec{Key: "k", Pane: live.ID, Shell: sh}},
		{"name with pane", "invalid_params.target", "misplaced", harness.RunSpec{Key: "k", Pane: live.ID, Axis: "rows", Name: harness.Ptr("n"), Shell: sh}},
		// The target form is checked first, the source before the other parameters.
		{"no target and a bad key", "invalid_params.target", "missing", harness.RunSpec{Key: "bad key", Argv: []string{"true"}}},
		{"bad source and no command", "conflict.source", "", harness.RunSpec{Key: "k", Workspace: ws, Source: "signaltty/00000000-0000-4000-8000-000000000000"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var errs []harness.Reply
			for _, tr := range harness.Both(d) {
				w := d.TakeWorld(t)
				r := tr.Start(t, c.spec)
				harness.WantError(t, r, c.code, nil)
				if c.reason != "" && r.Err != nil {
					if r.Err.Data["reason"] != c.reason || dataString(r.Err.Data, "param") == "" {
						t.Errorf("data %v, want reason %q and a param", r.Err.Data, c.reason)
					}
				}
				w.Unchanged(t, c.name)
				errs = append(errs, r)
			}
			harness.SameErrors(t, c.name, errs...)
		})
	}
	// A NUL can be passed neither in a command-line argument nor to
	// varlinkctl (its JSON parser refuses \u0000): the Go varlink client and
	// a hand-made message carry it.
	t.Run("NUL in shell", func(t *testing.T) {
		spec := harness.ShellSpec("k", ws, "echo a\x00b")
		w := d.TakeWorld(t)
		raw := d.RawStart(t, spec)
		harness.WantError(t, raw, "invalid_params.command", map[string]any{"param": "shell", "reason": "nul"})
		if raw.Err != nil && raw.Err.Data["reason"] != "nul" {
			t.Errorf("data %v, want reason nul", raw.Err.Data)
		}
		hand := d.HandMadeCall(t, "dev.signaltty.Run.Start", spec.Params())
		if hand == nil {
			t.Fatal("a hand-made start with a NUL in shell succeeded")
		}
		harness.SameJSON(t, "the errors via the Go client and a hand-made message", raw.Err, hand)
		w.Unchanged(t, "NUL in shell")
	})
}

// dataString returns data[k] as a string ("" when absent).
func dataString(data map[string]any, k string) string {
	v, ok := data[k]
	if !ok {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// A start at an existing target (a workspace, a live pane to split)
// succeeds, at a missing one fails not_found with no side effects and the
// key free; invalid parameters at a missing target fail invalid_params
// (parameters are checked before the target is looked up). The split run's
// pane is in its target's tab.
func TestRunStartTargets(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "targets").ID
	live := d.Spawn(t, []string{"--workspace", ws}, "sleep", "100")
	t.Cleanup(func() { d.CLI(t, "pane", "kill", "--pane", live.ID, "--grace-ms", "200") })
	for _, c := range []struct {
		name, code string
		spec       harness.RunSpec
	}{
		{"missing workspace", "not_found.workspace", harness.ArgvSpec("t1", "ws_000000000000", "true")},
		{"missing pane", "not_found.pane", harness.RunSpec{Key: "t2", Pane: "pane_000000000000", Axis: "cols", Argv: []string{"true"}}},
		{"missing workspace, bad key", "invalid_params.key", harness.ArgvSpec("bad key", "ws_000000000000", "true")},
		{"missing pane, no command", "invalid_params.command", harness.RunSpec{Key: "t3", Pane: "pane_000000000000", Axis: "cols"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var errs []harness.Reply
			for _, tr := range harness.Both(d) {
				w := d.TakeWorld(t)
				r := tr.Start(t, c.spec)
				harness.WantError(t, r, c.code, nil)
				w.Unchanged(t, c.name)
				d.KeyFree(t, c.spec.Key)
				errs = append(errs, r)
			}
			harness.SameErrors(t, c.name, errs...)
		})
	}
	t.Run("existing targets", func(t *testing.T) {
		rec := d.RunBoth(t, harness.ArgvSpec("at-ws", ws, "true"))
		harness.WantOutcome(t, rec, "succeeded", harness.Ptr(0), "", "", 0)
		var recs []harness.RunRecord
		for _, tr := range harness.Both(d) { // a pane of its own for each: a split halves its target
			target := d.Spawn(t, []string{"--workspace", ws}, "sleep", "100")
			t.Cleanup(func() { d.CLI(t, "pane", "kill", "--pane", target.ID, "--grace-ms", "200") })
			st := tr.MustStart(t, harness.RunSpec{Key: "at-pane-" + tr.Short(), Pane: target.ID, Axis: "rows", Argv: []string{"true"}})
			rec := d.WaitBoth(t, st.Run)
			harness.WantOutcome(t, rec, "succeeded", harness.Ptr(0), "", "", 0)
			if st.Tab != target.Tab {
				t.Errorf("the split run is in tab %s, want %s", st.Tab, target.Tab)
			}
			recs = append(recs, rec)
		}
		harness.SameRecords(t, "records of split runs via the CLI and via varlinkctl", recs...)
	})
	t.Run("caller without spawn gets denied.spawn", func(t *testing.T) { authNoSpawn(t, d, ws) })
	t.Run("spawn self on another's pane gets denied.spawn", func(t *testing.T) { authSpawnSelfElsewhere(t, d, ws) })
	t.Run("audit record per denial", func(t *testing.T) { authAudit(t, d, ws) })
}

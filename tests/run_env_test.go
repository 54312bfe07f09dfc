package tests

// A run's working directory and environment (docs/run-wait.md, "Start"):
// cwd, env and env_unset of Run.Start mean, check and fail exactly as
// those of Mux.SpawnPane, through the CLI, varlinkctl and MCP alike.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// envProbe prints what a run's program sees: its working directory, a
// variable the request added, one it removed and one it left alone.
const envProbe = `pwd; echo "added=${RUNENV_ADDED-none}"; echo "removed=${RUNENV_REMOVED-none}"; echo "kept=${RUNENV_KEPT-none}"`

func envDaemon(t *testing.T) *harness.Daemon {
	return harness.Start(t, harness.Options{Env: []string{"RUNENV_REMOVED=inherited", "RUNENV_KEPT=inherited"}})
}

// The program of a run starts in the run's cwd, with env added to the
// inherited environment and the env_unset names removed from it; the
// CLI, varlinkctl and MCP start the same run.
func TestRunProgramSeesItsCwdAndEnv(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := envDaemon(t)
	ws := d.CreateWorkspace(t, "run-env").ID
	dir := filepath.Join(harness.TempDir(t), "work dir")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	want := []string{dir, "added=a b=c", "removed=none", "kept=inherited"}
	for _, tr := range harness.Both(d) {
		spec := harness.ShellSpec("env-"+tr.Short(), ws, envProbe)
		spec.Cwd = dir + "/./"
		spec.Env = map[string]string{"RUNENV_ADDED": "a b=c"}
		spec.EnvUnset = []string{"RUNENV_REMOVED"}
		st := tr.MustStart(t, spec)
		rec := d.WaitBoth(t, st.Run)
		harness.WantOutcome(t, rec, "succeeded", harness.Ptr(0), "", "", 0)
		if got := harness.TrimLines(rec.MustOutput(t).Lines); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("via %s the program saw %q, want %q", tr.Name, got, want)
		}
		if p := d.GetPane(t, st.Pane); p.Cwd != dir {
			t.Errorf("via %s the run's pane has cwd %q, want %q", tr.Name, p.Cwd, dir)
		}
	}
	t.Run("without them, the workspace's directory and the daemon's environment", func(t *testing.T) {
		st := harness.CLIOf(d).MustStart(t, harness.ShellSpec("env-none", ws, envProbe))
		rec := d.WaitBoth(t, st.Run)
		w, _, _ := d.GetWorkspace(t, ws)
		want := []string{w.Cwd, "added=none", "removed=inherited", "kept=inherited"}
		if got := harness.TrimLines(rec.MustOutput(t).Lines); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("the program saw %q, want %q", got, want)
		}
	})
	t.Run("MCP", func(t *testing.T) {
		m := d.StartMCP(t, nil, "--wait-cap-ms", fmt.Sprint(mcpWaitCap))
		args := func(key string) map[string]any {
			return map[string]any{"key": key, "workspace": ws, "shell": envProbe, "cwd": dir,
				"env": map[string]any{"RUNENV_ADDED": "a b=c"}, "env_unset": []any{"RUNENV_REMOVED"}}
		}
		cli := []string{"run", "--key", "cli-1", "--workspace", ws, "--shell", envProbe, "--cwd", dir,
			"--env", "RUNENV_ADDED=a b=c", "--unset-env", "RUNENV_REMOVED"}
		var started harness.RunStart
		decodeText(t, same(t, d, m, cli, "run", args("mcp-1")), &started)
		rec := d.WaitBoth(t, started.Run)
		if got := harness.TrimLines(rec.MustOutput(t).Lines); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("via MCP the program saw %q, want %q", got, want)
		}
		// The same errors too.
		bad := args("mcp-2")
		bad["cwd"] = filepath.Join(dir, "missing")
		same(t, d, m, []string{"run", "--key", "cli-2", "--workspace", ws, "--shell", envProbe, "--cwd", filepath.Join(dir, "missing")}, "run", bad)
		bad = args("mcp-3")
		bad["env_unset"] = []any{"TERM"}
		same(t, d, m, []string{"run", "--key", "cli-3", "--workspace", ws, "--shell", envProbe, "--unset-env", "TERM"}, "run", bad)
	})
}

// A cwd that is not an existing absolute directory fails
// invalid_params.cwd and leaves nothing behind: no tab, pane or run, and
// the key is free for a start that works.
func TestRunWithBadCwdLeavesNothing(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := envDaemon(t)
	ws := d.CreateWorkspace(t, "run-bad-cwd").ID
	root := harness.TempDir(t)
	file := filepath.Join(root, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, cwd, reason string
		varlinkOnly       bool // the CLI makes a relative --cwd absolute
	}{
		{"missing", filepath.Join(root, "missing"), "not_a_directory", false},
		{"a file", file, "not_a_directory", false},
		{"relative", "some/dir", "relative", true},
	}
	for _, tr := range harness.Both(d) {
		for _, c := range cases {
			if c.varlinkOnly && tr.Name == "cli" {
				continue
			}
			key := "bad-cwd-" + strings.ReplaceAll(c.name, " ", "-") + "-" + tr.Short()
			spec := harness.ArgvSpec(key, ws, "true")
			spec.Cwd = c.cwd
			before := len(d.ListPanes(t))
			_, tabs, _ := d.GetWorkspace(t, ws)
			r := tr.Start(t, spec)
			harness.WantError(t, r, "invalid_params.cwd", nil)
			if r.Err != nil && r.Err.Data["reason"] != c.reason {
				t.Errorf("%s via %s: reason %v, want %s", c.name, tr.Name, r.Err.Data["reason"], c.reason)
			}
			sp := harness.VarlinkctlOf(d).Call(t, "dev.signaltty.Mux.SpawnPane", map[string]any{"workspace": ws, "argv": []string{"true"}, "cwd": c.cwd})
			if r.Err != nil && sp.Err != nil {
				harness.SameJSON(t, c.name+": the errors of Run.Start and SpawnPane", r.Err, sp.Err)
			}
			if n := len(d.ListPanes(t)); n != before {
				t.Errorf("%s via %s: %d panes after the failed start, %d before", c.name, tr.Name, n, before)
			}
			if _, after, _ := d.GetWorkspace(t, ws); len(after) != len(tabs) {
				t.Errorf("%s via %s: %d tabs after the failed start, %d before", c.name, tr.Name, len(after), len(tabs))
			}
			if l := tr.List(t, harness.RunListOptions{Key: key}).List(t); len(l.Runs) != 0 {
				t.Errorf("%s via %s: a run is bound to the key: %+v", c.name, tr.Name, l.Runs)
			}
			spec.Cwd = root
			if st := tr.MustStart(t, spec); st.Reused {
				t.Errorf("%s via %s: the key was bound by the failed start", c.name, tr.Name)
			}
		}
	}
}

// Names in env and env_unset are checked alike by Run.Start and
// Mux.SpawnPane, with the same codes and reasons; the variables the
// daemon sets can be neither set nor unset.
func TestRunAndSpawnRefuseTheSameEnvNames(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := envDaemon(t)
	ws := d.CreateWorkspace(t, "run-env-names").ID
	cases := []struct {
		name   string
		env    map[string]string
		unset  []string
		code   string
		reason string
	}{
		{"a name starting with a digit", map[string]string{"1BAD": "x"}, nil, "invalid_params.env", "name"},
		{"an empty name", map[string]string{"": "x"}, nil, "invalid_params.env", "name"},
		{"a NUL in a value", map[string]string{"GOOD": "a\x00b"}, nil, "invalid_params.env", "nul"},
		{"SIGNALTTY_PANE set", map[string]string{"SIGNALTTY_PANE": "p"}, nil, "invalid_params.env", "reserved"},
		{"SIGNALTTY_RUN set", map[string]string{"SIGNALTTY_RUN": "r99"}, nil, "invalid_params.env", "reserved"},
		{"an empty name unset", nil, []string{""}, "invalid_params.env_unset", "name"},
		{"a name with = unset", nil, []string{"A=B"}, "invalid_params.env_unset", "name"},
		{"a name with NUL unset", nil, []string{"A\x00B"}, "invalid_params.env_unset", "name"},
		{"SIGNALTTY_ADDRESS unset", nil, []string{"SIGNALTTY_ADDRESS"}, "invalid_params.env_unset", "reserved"},
		{"TERM unset", nil, []string{"TERM"}, "invalid_params.env_unset", "reserved"},
		{"a name set and unset", map[string]string{"BOTH": "x"}, []string{"BOTH"}, "invalid_params.env_unset", "exclusive"},
	}
	vc := harness.VarlinkctlOf(d)
	// call goes through varlinkctl, or the raw client for a NUL byte
	// (which varlinkctl refuses to send).
	call := func(method string, params map[string]any) harness.Reply {
		if !strings.ContainsRune(fmt.Sprint(params), 0) {
			return vc.Call(t, method, params)
		}
		r := harness.Reply{Via: "raw"}
		if err := d.CallOnce(t, method, params, nil); err != nil {
			r.Err, r.ErrName = &err.ErrorReply, err.Name
		}
		return r
	}
	for i, c := range cases {
		spec := harness.ArgvSpec(fmt.Sprintf("names-%d", i), ws, "true")
		spec.Env, spec.EnvUnset = c.env, c.unset
		run := call("dev.signaltty.Run.Start", spec.Params())
		spawn := map[string]any{"workspace": ws, "argv": []string{"true"}}
		if c.env != nil {
			spawn["env"] = c.env
		}
		if c.unset != nil {
			spawn["env_unset"] = c.unset
		}
		sp := call("dev.signaltty.Mux.SpawnPane", spawn)
		for _, r := range []harness.Reply{run, sp} {
			harness.WantError(t, r, c.code, nil)
			if r.Err != nil && r.Err.Data["reason"] != c.reason {
				t.Errorf("%s: reason %v, want %s: %s", c.name, r.Err.Data["reason"], c.reason, r)
			}
		}
		if run.Err != nil && sp.Err != nil {
			harness.SameJSON(t, c.name+": the errors of Run.Start and SpawnPane", run.Err, sp.Err)
		}
		// The CLI, where an argument can say it (no NUL).
		if strings.ContainsRune(fmt.Sprint(c.env, c.unset), 0) {
			continue
		}
		cr := harness.CLIOf(d).Start(t, spec)
		harness.WantError(t, cr, c.code, nil)
		if cr.Err != nil && run.Err != nil {
			harness.SameJSON(t, c.name+": the errors of the CLI and varlinkctl", cr.Err, run.Err)
		}
	}
	if n := len(d.ListPanes(t, "--workspace", ws)); n != 0 {
		t.Errorf("%d panes after refused starts", n)
	}
}

// A key used again with another cwd, env or env_unset fails
// conflict.run_key naming the bound run; the same ones written another
// way (a cwd with "/./", env_unset in another order or repeated) return
// the bound run.
func TestRunKeyCoversCwdAndEnv(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := envDaemon(t)
	ws := d.CreateWorkspace(t, "run-env-key").ID
	dir, other := harness.TempDir(t), harness.TempDir(t)
	for _, tr := range harness.Both(d) {
		base := harness.ArgvSpec("env-key-"+tr.Short(), ws, "sleep", "100")
		base.Cwd, base.Env, base.EnvUnset = dir, map[string]string{"A": "1", "B": "2"}, []string{"RUNENV_REMOVED", "RUNENV_KEPT"}
		st := tr.MustStart(t, base)
		t.Cleanup(func() { d.CLI(t, "run", "cancel", "--run", st.Run, "--grace-ms", "200") })
		conflicts := map[string]func(s *harness.RunSpec){
			"another env value": func(s *harness.RunSpec) { s.Env = map[string]string{"A": "1", "B": "3"} },
			"one env less":      func(s *harness.RunSpec) { s.Env = map[string]string{"A": "1"} },
			"no env":            func(s *harness.RunSpec) { s.Env = nil },
			"another env_unset": func(s *harness.RunSpec) { s.EnvUnset = []string{"RUNENV_REMOVED"} },
			"another cwd":       func(s *harness.RunSpec) { s.Cwd = other },
			"no cwd":            func(s *harness.RunSpec) { s.Cwd = "" },
		}
		for name, change := range conflicts {
			s := base
			change(&s)
			r := tr.Start(t, s)
			if r.Err == nil || r.Err.Code != "conflict.run_key" {
				t.Errorf("via %s with %s: want conflict.run_key, got %s", tr.Name, name, r)
				continue
			}
			harness.WantError(t, r, "conflict.run_key", map[string]any{"run": st.Run})
		}
		same := base
		same.Cwd = dir + "/./"
		same.EnvUnset = []string{"RUNENV_KEPT", "RUNENV_REMOVED", "RUNENV_KEPT"}
		if again := tr.MustStart(t, same); !again.Reused || again.Run != st.Run {
			t.Errorf("via %s the same cwd and env written another way started %+v, want %s reused", tr.Name, again, st.Run)
		}
	}
}

// SpawnPane's env_unset removes inherited variables from the pane's
// program, and a relaunch of the pane keeps them removed.
func TestSpawnEnvUnsetRemovesInheritedVariables(t *testing.T) {
	t.Parallel()
	d := envDaemon(t)
	ws := d.CreateWorkspace(t, "spawn-env-unset").ID
	p := d.Spawn(t, []string{"--workspace", ws, "--unset-env", "RUNENV_REMOVED", "--env", "RUNENV_ADDED=x"}, "sleep", "100")
	check := func(when string, pid int) {
		env := harness.Environ(t, pid)
		if _, ok := env["RUNENV_REMOVED"]; ok {
			t.Errorf("%s: RUNENV_REMOVED is in the pane's environment", when)
		}
		if env["RUNENV_KEPT"] != "inherited" || env["RUNENV_ADDED"] != "x" {
			t.Errorf("%s: RUNENV_KEPT %q RUNENV_ADDED %q, want inherited and x", when, env["RUNENV_KEPT"], env["RUNENV_ADDED"])
		}
	}
	check("spawned", p.PID())
	d.CLI(t, "pane", "kill", "--pane", p.ID, "--grace-ms", "200")
	var r struct {
		Pane harness.Pane `json:"pane"`
	}
	d.JSON(t, &r, "pane", "relaunch", "--pane", p.ID)
	t.Cleanup(func() { d.CLI(t, "pane", "kill", "--pane", p.ID, "--grace-ms", "200") })
	check("relaunched", r.Pane.PID())
}

// The names a spawn removed are saved (never a value) and removed again
// when the restored pane is relaunched after a restart.
func TestEnvUnsetSurvivesARestart(t *testing.T) {
	t.Parallel()
	opts := harness.Options{Env: []string{"RUNENV_REMOVED=inherited", "RUNENV_KEPT=inherited"}}
	d := harness.Start(t, opts)
	ws := d.CreateWorkspace(t, "env-unset-restart").ID
	p := d.Spawn(t, []string{"--workspace", ws, "--unset-env", "RUNENV_REMOVED"}, "sleep", "100")
	d.Stop(t)
	b, err := os.ReadFile(filepath.Join(stateDir(d), "snapshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "inherited") {
		t.Errorf("a value of the environment was saved:\n%s", b)
	}
	opts.Dir = d.Dir
	d2 := harness.Start(t, opts)
	var r struct {
		Pane harness.Pane `json:"pane"`
	}
	d2.JSON(t, &r, "pane", "relaunch", "--pane", p.ID)
	t.Cleanup(func() { d2.CLI(t, "pane", "kill", "--pane", p.ID, "--grace-ms", "200") })
	env := harness.Environ(t, r.Pane.PID())
	if _, ok := env["RUNENV_REMOVED"]; ok || env["RUNENV_KEPT"] != "inherited" {
		t.Errorf("relaunched after a restart: RUNENV_REMOVED present %v, RUNENV_KEPT %q; want absent and inherited", ok, env["RUNENV_KEPT"])
	}
}

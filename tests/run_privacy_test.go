package tests

// Nothing secret about a run leaves the results that return it: command
// lines, keys and output never appear in events, the Events snapshot, the
// daemon's log or doctor's report (docs/events.md).

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// Canaries in argv (beyond argv[0], and argv[0]'s directory), in argv[0]'s
// basename, in shell text, in the key and in the output appear only in
// results that return them (key, output), never in events or the daemon's
// log; the basename only as argv0 of pane.created; a shell run's argv0 is
// sh.
func TestRunSecretsStayOutOfEventsAndLogs(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "canaries").ID
	root := harness.TempDir(t)
	const (
		dirC   = "cnrydirQ7"
		baseC  = "cnrybaseQ7"
		argC   = "cnryargQ7"
		shellC = "cnryshellQ7"
		keyC   = "cnrykeyQ7"
		outC   = "cnryoutQ7"
	)
	prog := filepath.Join(root, dirC, baseC)
	if err := os.MkdirAll(filepath.Dir(prog), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prog, []byte("#!/bin/sh\necho "+outC+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	events := d.Subscribe(t, nil, nil)
	var argvPanes, shellPanes []string
	for _, tr := range harness.Both(d) {
		st := tr.MustStart(t, harness.ArgvSpec(keyC+"-argv-"+tr.Short(), ws, prog, argC))
		rec := d.WaitBoth(t, st.Run)
		if !strings.HasPrefix(rec.Key, keyC) {
			t.Errorf("the record does not return its key: %s", rec.Raw)
		}
		if ls := harness.TrimLines(rec.MustOutput(t).Lines); len(ls) != 1 || ls[0] != outC {
			t.Errorf("output %q, want the canary the program printed", ls)
		}
		argvPanes = append(argvPanes, st.Pane)

		st = tr.MustStart(t, harness.ShellSpec(keyC+"-shell-"+tr.Short(), ws, ": "+shellC+"; echo "+outC))
		d.WaitBoth(t, st.Run)
		shellPanes = append(shellPanes, st.Pane)

		// A failed exec with canaries too.
		harness.WantError(t, tr.Start(t, harness.ArgvSpec(keyC+"-fail-"+tr.Short(), ws, filepath.Join(root, dirC, baseC+"-missing"), argC)), "unavailable.spawn", nil)
		if l := tr.List(t, harness.RunListOptions{Key: keyC + "-argv-" + tr.Short()}); !strings.Contains(l.Raw, keyC) {
			t.Errorf("run.list --key does not return the key: %s", l)
		}
	}
	for _, p := range append(append([]string{}, argvPanes...), shellPanes...) {
		events.WaitSeen(t, "pane.exited of "+p, func(e harness.Event) bool { return e.Type == "pane.exited" && e.Resource == p })
	}
	snap, _ := d.EventsSnapshot(t)
	sb, _ := json.Marshal(snap)

	// Events: nothing but argv0 of pane.created.
	created := map[string]string{}
	for _, e := range events.Seen() {
		raw := string(e.Raw)
		if e.Type == "pane.created" {
			created[e.Resource] = fmt.Sprint(e.Data["argv0"])
			data := map[string]any{}
			for k, v := range e.Data {
				if k != "argv0" {
					data[k] = v
				}
			}
			b, _ := json.Marshal(data)
			raw = string(b) + e.Type + e.Resource
		}
		for _, c := range []string{dirC, baseC, argC, shellC, keyC, outC} {
			if strings.Contains(raw, c) {
				t.Errorf("canary %s in an event: %s", c, e.Raw)
			}
		}
	}
	for _, p := range argvPanes {
		if created[p] != baseC {
			t.Errorf("pane.created of %s: argv0 %q, want the basename %q", p, created[p], baseC)
		}
	}
	for _, p := range shellPanes {
		if created[p] != "sh" {
			t.Errorf("pane.created of the shell run %s: argv0 %q, want sh", p, created[p])
		}
	}
	for _, c := range []string{dirC, baseC, argC, shellC, keyC, outC} {
		if strings.Contains(string(sb), c) {
			t.Errorf("canary %s in the event snapshot: %s", c, sb)
		}
		if strings.Contains(d.Stderr(), c) {
			t.Errorf("canary %s in the daemon's log:\n%s", c, grepLines(d.Stderr(), c))
		}
	}
	for _, p := range argvPanes {
		if got := d.GetPane(t, p); got.Argv0 != baseC {
			t.Errorf("pane %s: argv0 %q, want %q", p, got.Argv0, baseC)
		}
	}
	t.Run("doctor", func(t *testing.T) {
		r := d.CLI(t, "doctor")
		j := d.CLI(t, "--json", "doctor")
		for _, c := range []string{dirC, baseC, argC, shellC, keyC, outC} {
			if strings.Contains(r.Stdout+r.Stderr+j.Stdout, c) {
				t.Errorf("canary %s in doctor's output", c)
			}
		}
	})
	t.Run("audit log", func(t *testing.T) {
		// Denied starts, sends and cancels carrying canaries: audited, and
		// no canary in any audit line, the log, status or doctor.
		reader := d.NewInPane(t, "--workspace", ws, "--grant", "read:*")
		before := strings.Count(d.Stderr(), "msg=denied")
		reader.Fail(t, "denied.spawn", 4, "run", "--key", keyC+"-denied", "--workspace", ws, "--", prog, argC)
		reader.Fail(t, "denied.spawn", 4, "run", "--key", keyC+"-denied2", "--workspace", ws, "--shell", ": "+shellC)
		reader.Fail(t, "denied.write", 4, "pane", "send", "--pane", argvPanes[0], "--text", outC)
		harness.Eventually(t, harness.PollTimeout, "three audit lines", func() (bool, string) {
			return strings.Count(d.Stderr(), "msg=denied")-before >= 3, d.Stderr()
		})
		status := d.CLI(t, "--json", "status").Stdout + d.CLI(t, "doctor").Stdout
		if !strings.Contains(status, "dev.signaltty.Run.Start") {
			t.Errorf("doctor and status do not count the denials:\n%s", status)
		}
		for _, c := range []string{dirC, baseC, argC, shellC, keyC, outC} {
			if strings.Contains(d.Stderr(), c) {
				t.Errorf("canary %s in the daemon's log (audit lines included):\n%s", c, grepLines(d.Stderr(), c))
			}
			if strings.Contains(status, c) {
				t.Errorf("canary %s in GetStatus or doctor", c)
			}
		}
	})
	t.Run("env and cwd canaries", func(t *testing.T) {
		envCanaries(t, d, ws)
	})
}

// envCanaries: canaries in a run's cwd (a directory's name), in env names
// and values and in env_unset names, of runs that succeed and of starts
// that fail (a missing cwd, a reserved name, a missing program, a key
// conflict, a denied start), appear in no event, nor the Events snapshot,
// the daemon's log (its audit lines included), GetStatus or doctor. The
// program does get them.
func envCanaries(t *testing.T, d *harness.Daemon, ws string) {
	const (
		cwdC      = "cnrycwdQ8"
		badCwdC   = "cnrybadcwdQ8"
		nameC     = "cnryenvnameQ8"
		valueC    = "cnryenvvalQ8"
		unsetC    = "cnryunsetQ8"
		keyPrefix = "envcnry"
	)
	canaries := []string{cwdC, badCwdC, nameC, valueC, unsetC}
	root := harness.TempDir(t)
	dir := filepath.Join(root, cwdC)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The probe checks what it was given without printing it: exit 0 only
	// with the cwd, the variable and without the removed ones.
	probe := filepath.Join(root, "probe")
	script := "#!/bin/sh\ncase \"$(pwd)\" in */" + cwdC + ") ;; *) exit 3;; esac\n" +
		"[ \"$" + nameC + "\" = " + valueC + " ] || exit 4\n[ -z \"${HOME+x}\" ] || exit 5\n"
	if err := os.WriteFile(probe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	events := d.Subscribe(t, nil, nil)
	var panes []string
	for _, tr := range harness.Both(d) {
		spec := harness.ArgvSpec(keyPrefix+"-"+tr.Short(), ws, probe)
		spec.Cwd, spec.Env, spec.EnvUnset = dir, map[string]string{nameC: valueC}, []string{unsetC, "HOME"}
		st := tr.MustStart(t, spec)
		harness.WantOutcome(t, d.WaitBoth(t, st.Run), "succeeded", harness.Ptr(0), "", "", 0)
		panes = append(panes, st.Pane)

		changed := spec
		changed.Env = map[string]string{nameC: valueC + "-other"}
		harness.WantError(t, tr.Start(t, changed), "conflict.run_key", nil)
		bad := spec.WithKey(keyPrefix + "-badcwd-" + tr.Short())
		bad.Cwd = filepath.Join(root, badCwdC)
		harness.WantError(t, tr.Start(t, bad), "invalid_params.cwd", nil)
		bad = spec.WithKey(keyPrefix + "-reserved-" + tr.Short())
		bad.Env = map[string]string{"SIGNALTTY_RUN": valueC}
		harness.WantError(t, tr.Start(t, bad), "invalid_params.env", nil)
		bad = spec.WithKey(keyPrefix + "-missing-" + tr.Short())
		bad.Argv = []string{filepath.Join(root, "missing-program")}
		harness.WantError(t, tr.Start(t, bad), "unavailable.spawn", nil)
	}
	reader := d.NewInPane(t, "--workspace", ws, "--grant", "read:*")
	before := strings.Count(d.Stderr(), "msg=denied")
	reader.Fail(t, "denied.spawn", 4, "run", "--key", keyPrefix+"-denied", "--workspace", ws, "--cwd", dir,
		"--env", nameC+"="+valueC, "--unset-env", unsetC, "--", probe)
	harness.Eventually(t, harness.PollTimeout, "the audit line of the denied start", func() (bool, string) {
		return strings.Count(d.Stderr(), "msg=denied") > before, d.Stderr()
	})
	for _, p := range panes {
		events.WaitSeen(t, "pane.exited of "+p, func(e harness.Event) bool { return e.Type == "pane.exited" && e.Resource == p })
	}
	snap, _ := d.EventsSnapshot(t)
	sb, _ := json.Marshal(snap)
	status := d.CLI(t, "--json", "status").Stdout
	doctor := d.CLI(t, "doctor")
	doctorJSON := d.CLI(t, "--json", "doctor").Stdout
	for _, c := range canaries {
		for _, e := range events.Seen() {
			if strings.Contains(string(e.Raw), c) {
				t.Errorf("canary %s in an event: %s", c, e.Raw)
			}
		}
		if strings.Contains(string(sb), c) {
			t.Errorf("canary %s in the event snapshot: %s", c, sb)
		}
		if strings.Contains(d.Stderr(), c) {
			t.Errorf("canary %s in the daemon's log (audit lines included):\n%s", c, grepLines(d.Stderr(), c))
		}
		if strings.Contains(status, c) {
			t.Errorf("canary %s in GetStatus: %s", c, status)
		}
		if strings.Contains(doctor.Stdout+doctor.Stderr+doctorJSON, c) {
			t.Errorf("canary %s in doctor's output", c)
		}
	}
	// The run records carry none of them either.
	for _, tr := range harness.Both(d) {
		l := tr.List(t, harness.RunListOptions{Key: keyPrefix + "-" + tr.Short()})
		for _, c := range canaries {
			if strings.Contains(l.Raw, c) {
				t.Errorf("canary %s in Run.List: %s", c, l.Raw)
			}
		}
	}
}

// grepLines returns the lines of text that contain s.
func grepLines(text, s string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

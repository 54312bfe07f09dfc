package tests

// Authorization of runs (docs/security.md; docs/run-wait.md): who may start,
// read and cancel a run, checked before anything is looked up or changed.
// The sub-cases are called from the run tests they belong to.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// runArgs is `run --key key <target> -- argv...` for the CLI.
func runArgs(key string, target []string, argv ...string) []string {
	return append(append(append([]string{"run", "--key", key}, target...), "--"), argv...)
}

// sameDenials requires errors that are equal in code, message and data.
func sameDenials(t *testing.T, what string, es ...harness.ErrorReply) {
	t.Helper()
	for _, e := range es[1:] {
		a, _ := json.Marshal(es[0])
		b, _ := json.Marshal(e)
		if string(a) != string(b) {
			t.Errorf("%s: denials differ:\n  %s\n  %s", what, a, b)
		}
	}
}

// A caller holding no spawn gets denied.spawn at an existing target, a
// missing one and with invalid parameters alike, with nothing changed.
func authNoSpawn(t *testing.T, d *harness.Daemon, ws string) {
	reader := d.NewInPane(t, "--workspace", ws, "--grant", "read:*")
	w := d.TakeWorld(t)
	es := []harness.ErrorReply{
		reader.Fail(t, "denied.spawn", 4, runArgs("ns-1", []string{"--workspace", ws}, "true")...),
		reader.Fail(t, "denied.spawn", 4, runArgs("ns-2", []string{"--workspace", "ws_000000000000"}, "true")...),
		reader.Fail(t, "denied.spawn", 4, runArgs("ns-3", []string{"--pane", reader.Pane.ID, "--axis", "rows"}, "true")...),
		reader.Fail(t, "denied.spawn", 4, "run", "--key", "bad key!", "--workspace", ws, "--argv", "[]"),
	}
	w.Unchanged(t, "denied.spawn")
	sameDenials(t, "denied.spawn", es...)
	for _, k := range []string{"ns-1", "ns-2", "ns-3"} {
		d.KeyFree(t, k)
	}
}

// Spawn on self does not reach another principal's pane, existing or not.
func authSpawnSelfElsewhere(t *testing.T, d *harness.Daemon, ws string) {
	a := d.NewInPane(t, "--workspace", ws)
	b := d.Spawn(t, []string{"--workspace", ws}, "sleep", "100")
	t.Cleanup(func() { d.CLI(t, "pane", "kill", "--pane", b.ID, "--grace-ms", "200") })
	w := d.TakeWorld(t)
	es := []harness.ErrorReply{
		a.Fail(t, "denied.spawn", 4, runArgs("se-1", []string{"--pane", b.ID, "--axis", "rows"}, "true")...),
		a.Fail(t, "denied.spawn", 4, runArgs("se-2", []string{"--pane", "pane_000000000000", "--axis", "rows"}, "true")...),
	}
	w.Unchanged(t, "spawn self elsewhere")
	sameDenials(t, "spawn self elsewhere", es...)
	// Its own pane is in its scope.
	var st harness.RunStart
	a.JSON(t, &st, runArgs("se-own", []string{"--pane", a.Pane.ID, "--axis", "rows"}, "true")...)
	if st.Principal != "pane:"+a.Pane.ID {
		t.Errorf("the run's owner is %q, want the pane's principal", st.Principal)
	}
	d.WaitBoth(t, st.Run)
}

// Every denial is an audit line (principal, verb, resource, never an
// argument) and doctor counts them by verb.
func authAudit(t *testing.T, d *harness.Daemon, ws string) {
	a := d.NewInPane(t, "--workspace", ws, "--grant", "read:*")
	before := strings.Count(d.Stderr(), "msg=denied")
	a.Fail(t, "denied.spawn", 4, runArgs("audit-1", []string{"--workspace", ws}, "echo", "audit-canary-arg")...)
	a.Fail(t, "denied.write", 4, "pane", "send", "--pane", a.Pane.ID, "--text", "audit-canary-text")
	harness.Eventually(t, harness.PollTimeout, "two audit lines", func() (bool, string) {
		return strings.Count(d.Stderr(), "msg=denied")-before >= 2, d.Stderr()
	})
	var line string
	for _, l := range strings.Split(d.Stderr(), "\n") {
		if strings.Contains(l, "msg=denied") && strings.Contains(l, "verb=dev.signaltty.Run.Start") && strings.Contains(l, "principal=pane:"+a.Pane.ID) {
			line = l
		}
	}
	if line == "" || !strings.Contains(line, "level=INFO+2") || !strings.Contains(line, "resource=workspace:"+ws) {
		t.Errorf("no notice-level audit line with principal, verb and resource:\n%s", d.Stderr())
	}
	if strings.Contains(d.Stderr(), "audit-canary") {
		t.Errorf("an argument reached the log")
	}
	r := d.CLI(t, "doctor")
	if !strings.Contains(r.Stdout, "dev.signaltty.Run.Start: ") || !strings.Contains(r.Stdout, "dev.signaltty.Mux.SendInput: ") {
		t.Errorf("doctor does not count denials by verb:\n%s", r.Stdout)
	}
}

// Grants beyond the caller's own fail denied.delegation, with nothing
// started; grants within them are accepted.
func authDelegation(t *testing.T, d *harness.Daemon, ws string) {
	a := d.NewInPane(t, "--workspace", ws)
	self := []string{"--pane", a.Pane.ID, "--axis", "rows"}
	w := d.TakeWorld(t)
	for _, g := range []string{"read:*", "admin:*", "write:workspace:" + ws, "spawn:pane:*"} {
		a.Fail(t, "denied.delegation", 4, append([]string{"run", "--key", "dl-" + strings.ReplaceAll(g, "*", "x"), "--grant", g}, append(self, "--", "true")...)...)
		a.Fail(t, "denied.delegation", 4, "pane", "spawn", "--split", a.Pane.ID, "--axis", "cols", "--grant", g, "--", "true")
	}
	w.Unchanged(t, "denied.delegation")
	var st harness.RunStart
	a.JSON(t, &st, append([]string{"run", "--key", "dl-ok", "--grant", "read:self"}, append(self, "--", "true")...)...)
	d.WaitBoth(t, st.Run)
	// the owner may give anything
	d.JSON(t, nil, "run", "--key", "dl-owner", "--workspace", ws, "--grant", "admin:*", "--", "true")
}

// Who reads and cancels the owner's run: read on pane:* does not cover
// runs; read on its workspace does; read on run:<id> alone reads but does
// not cancel; the run's own pane principal does both.
func authRunReaders(t *testing.T, d *harness.Daemon, ws string) {
	st := harness.CLIOf(d).MustStart(t, harness.ShellSpec("readers", ws, "sleep 100"))
	t.Cleanup(func() { d.CLI(t, "run", "cancel", "--run", st.Run, "--grace-ms", "200") })
	listed := func(ip *harness.InPane) bool {
		var l struct {
			Runs []harness.RunRecord `json:"runs"`
		}
		ip.JSON(t, &l, "run", "list")
		for _, r := range l.Runs {
			if r.Run == st.Run {
				return true
			}
		}
		return false
	}
	t.Run("read pane:* is denied.read and filtered", func(t *testing.T) {
		p := d.NewInPane(t, "--workspace", ws, "--grant", "read:pane:*")
		p.Fail(t, "denied.read", 4, "run", "get", "--run", st.Run)
		p.Fail(t, "denied.read", 4, "run", "wait", "--run", st.Run, "--timeout-ms", "1")
		if listed(p) {
			t.Errorf("run list shows the run to a pane:* reader")
		}
		// but it reads panes
		p.JSON(t, nil, "pane", "get", "--pane", st.Pane)
	})
	t.Run("read workspace scope allows", func(t *testing.T) {
		p := d.NewInPane(t, "--workspace", ws, "--grant", "read:workspace:"+ws)
		p.JSON(t, nil, "run", "get", "--run", st.Run)
		if !listed(p) {
			t.Errorf("run list hides the run from a reader of its workspace")
		}
		p.Fail(t, "denied.write", 4, "run", "cancel", "--run", st.Run)
	})
	t.Run("read run:<id> only: read allowed, cancel denied.write", func(t *testing.T) {
		p := d.NewInPane(t, "--workspace", ws, "--grant", "read:run:"+st.Run)
		p.JSON(t, nil, "run", "get", "--run", st.Run)
		p.Fail(t, "denied.write", 4, "run", "cancel", "--run", st.Run)
		p.Fail(t, "denied.read", 4, "pane", "get", "--pane", st.Pane)
		if rec := d.GetBoth(t, st.Run, nil); rec.State != "running" {
			t.Errorf("the run was stopped: %s", rec.Raw)
		}
	})
	t.Run("pane principal reads and cancels its run", func(t *testing.T) {
		dir := harness.TempDir(t)
		cli := harness.Bin(t, "signaltty")
		who, got := filepath.Join(dir, "who"), filepath.Join(dir, "get")
		self := fmt.Sprintf(`export SIGNALTTY_NO_AUTOSTART=1; '%s' --json whoami > '%s'; '%s' --json run get --run "$SIGNALTTY_RUN" > '%s'; '%s' --json run cancel --run "$SIGNALTTY_RUN" --grace-ms 200; sleep 100`, cli, who, cli, got, cli)
		own := harness.CLIOf(d).MustStart(t, harness.ShellSpec("own-cancel", ws, self))
		rec := d.WaitBoth(t, own.Run)
		harness.WantOutcome(t, rec, "terminated", nil, "SIGHUP", "cancel", 125)
		var w harness.WhoAmI
		b, _ := os.ReadFile(who)
		if json.Unmarshal(b, &w); w.Principal != "pane:"+own.Pane {
			t.Errorf("the run's command is %q, want its pane's principal pane:%s", w.Principal, own.Pane)
		}
		if b, _ := os.ReadFile(got); !strings.Contains(string(b), own.Run) {
			t.Errorf("the run's command could not read its run: %s", b)
		}
	})
}

// An unknown caller (outside_callers = "unknown") reads but never starts
// or cancels; SIGNALTTY_TOKEN=@owner makes it the owner.
func TestUnknownCallersReadButNeverStartOrCancel(t *testing.T) {
	t.Parallel()
	d := harness.Start(t, harness.Options{Env: []string{"SIGNALTTY_OUTSIDE_CALLERS=unknown"}})
	ownerEnv := append(d.ClientEnv(), "SIGNALTTY_TOKEN=@owner")
	owner := func(args ...string) harness.Result {
		return harness.Run(t, ownerEnv, harness.Bin(t, "signaltty"), append([]string{"--json"}, args...)...)
	}
	var w harness.WhoAmI
	d.JSON(t, &w, "whoami")
	if w.Principal != "unknown" || len(w.Grants) != 1 || w.Grants[0].Right != "read" || w.Grants[0].Scope != "*" {
		t.Errorf("an outside caller: %+v", w)
	}
	r := owner("whoami")
	if r.Code != 0 || !strings.Contains(r.Stdout, `"principal":"owner"`) {
		t.Fatalf("with SIGNALTTY_TOKEN=@owner:\n%s", r)
	}
	r = owner("workspace", "create", "--name", "u")
	var ws struct{ Workspace harness.Workspace }
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &ws) != nil {
		t.Fatalf("owner create:\n%s", r)
	}
	r = owner("run", "--key", "long", "--workspace", ws.Workspace.ID, "--", "sleep", "100")
	var st harness.RunStart
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &st) != nil {
		t.Fatalf("owner run:\n%s", r)
	}
	t.Cleanup(func() { owner("run", "cancel", "--run", st.Run, "--grace-ms", "200") })
	// reads
	d.JSON(t, nil, "status")
	d.JSON(t, nil, "run", "get", "--run", st.Run)
	d.JSON(t, nil, "pane", "capture", "--pane", st.Pane)
	// never starts, cancels, drives or administers
	d.Fail(t, "denied.spawn", 4, runArgs("u1", []string{"--workspace", ws.Workspace.ID}, "true")...)
	d.Fail(t, "denied.write", 4, "run", "cancel", "--run", st.Run)
	d.Fail(t, "denied.write", 4, "pane", "send", "--pane", st.Pane, "--text", "x")
	d.Fail(t, "denied.spawn", 4, "workspace", "create", "--name", "no")
	d.Fail(t, "denied.admin", 4, "config", "set", "--run-max-active", "3")
	d.Fail(t, "denied.admin", 4, "shutdown")
	if r := owner("run", "get", "--run", st.Run); !strings.Contains(r.Stdout, `"state":"running"`) {
		t.Errorf("the run was touched:\n%s", r)
	}
}

// SIGNALTTY_UNKNOWN_GRANTS changes what unknown callers hold.
func TestUnknownCallersGrantsAreConfigured(t *testing.T) {
	t.Parallel()
	d := harness.Start(t, harness.Options{Env: []string{"SIGNALTTY_OUTSIDE_CALLERS=unknown", "SIGNALTTY_UNKNOWN_GRANTS="}})
	var w harness.WhoAmI
	d.JSON(t, &w, "whoami")
	if w.Principal != "unknown" || len(w.Grants) != 0 {
		t.Errorf("with no grants configured: %+v", w)
	}
	d.Fail(t, "denied.read", 4, "status")
	d2 := harness.Start(t, harness.Options{Env: []string{"SIGNALTTY_OUTSIDE_CALLERS=unknown", "SIGNALTTY_UNKNOWN_GRANTS=read:*, spawn:workspace:*"}})
	d2.JSON(t, &w, "whoami")
	if len(w.Grants) != 2 || w.Grants[1].Right != "spawn" || w.Grants[1].Scope != "workspace:*" {
		t.Errorf("with read:* and spawn:workspace:*: %+v", w)
	}
	d2.JSON(t, nil, "workspace", "create", "--name", "by-unknown")
}

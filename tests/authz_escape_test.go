package tests

// A process that was ever inside a pane is never the owner nor another
// pane, whatever it did with its session, parent or process group
// (docs/security.md, "The pane mark"): it double-forks and calls setsid,
// its pane's program exits, the daemon restarts.

import (
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
	"golang.org/x/sys/unix"
)

// wantUnattributed requires the escapee's whoami to be unknown, with no
// grants and reason unattributed, and its run to be denied for that reason.
func wantUnattributed(t *testing.T, e *harness.InPane, ws, when string) {
	t.Helper()
	for _, prefix := range []string{"", "env SIGNALTTY_TOKEN=@owner SIGNALTTY_PANE=" + e.Pane.ID} {
		r := e.CLI(t, prefix, "--json", "whoami")
		var w harness.WhoAmI
		if r.Code != 0 {
			t.Fatalf("%s: whoami in the escapee:\n%s", when, r)
		}
		harness.DecodeLine(t, r, &w)
		if w.Principal != "unknown" || w.Pane != nil || len(w.Grants) != 0 || harness.Deref(w.Reason) != "unattributed" {
			t.Errorf("%s (%s): a process that left its pane is %+v, want unknown, no grants, reason unattributed", when, prefix, w)
		}
	}
	er := e.Fail(t, "denied.spawn", 4, runArgs("escapee-"+strings.ReplaceAll(when, " ", "-"), []string{"--workspace", ws}, "true")...)
	if er.Data["reason"] != "unattributed" {
		t.Errorf("%s: the denial does not say why: %+v", when, er)
	}
}

func TestAProcessThatLeftItsPaneIsNeverTheOwnerWithoutCgroups(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "escape").ID
	a := d.NewInPane(t, "--workspace", ws)
	d.NewInPane(t, "--workspace", ws) // another pane, whose identity is not to be taken
	e, pid := a.Escape(t)
	// Its pane's end stops what carries the pane's own mark
	// (pane_escapee_test.go). A process may lower its limit further: it
	// then carries no pane's value, the stop misses it, and it stays
	// marked (docs/security.md, "The pane mark").
	var l unix.Rlimit
	if err := unix.Prlimit(pid, unix.RLIMIT_RTTIME, nil, &l); err != nil {
		t.Fatal(err)
	}
	l.Max -= 1 << 20
	l.Cur = min(l.Cur, l.Max)
	if err := unix.Prlimit(pid, unix.RLIMIT_RTTIME, &l, nil); err != nil {
		t.Fatal(err)
	}

	wantUnattributed(t, e, ws, "while its pane runs")
	d.Kill(t, a.Pane.ID)
	if !alive(pid) {
		t.Fatalf("without cgroups a process that left its pane's session and mark survives its pane's kill; the test needs it alive")
	}
	wantUnattributed(t, e, ws, "after its pane's program exited")

	d.Stop(t)
	d2 := harness.Start(t, harness.Options{Dir: d.Dir})
	wantUnattributed(t, e, ws, "after a daemon restart")
	var w harness.WhoAmI
	d2.JSON(t, &w, "whoami")
	if w.Principal != "owner" {
		t.Errorf("the owner's CLI resolves to %+v after the restart", w)
	}
	// doctor names what came from a pane and acts for none.
	if r := d2.CLI(t, "doctor"); !strings.Contains(r.Stdout, "processes from panes that no live pane claims") || !strings.Contains(r.Stdout, "    signaltty (pid ") {
		t.Errorf("doctor does not name the unattributed process:\n%s", r)
	}
}

// cgroupEscapee starts a user manager with delegated cgroups, a workspace,
// two request-loop panes a and b in it, and an escapee of a (Escape).
func cgroupEscapee(t *testing.T) (m *harness.UserManager, ws string, a, b, e *harness.InPane, pid int) {
	t.Helper()
	m = harness.StartUserManager(t)
	if cg := managerCgroups(t, m); cg.Mode != "delegated" {
		t.Fatalf("the user manager runs signaltty.service with Delegate=yes, yet cgroups are %q (%s)", cg.Mode, cg.Reason)
	}
	ws = managerWorkspace(t, m, "escape")
	spawn := func(argv []string) harness.Pane {
		var r struct {
			Pane harness.Pane `json:"pane"`
		}
		mjson(t, m, &r, append([]string{"pane", "spawn", "--workspace", ws, "--"}, argv...)...)
		return r.Pane
	}
	a = harness.NewInPaneWith(t, spawn)
	b = harness.NewInPaneWith(t, spawn) // another pane
	e, pid = a.Escape(t)
	return m, ws, a, b, e, pid
}

func TestAProcessThatLeftItsPaneStaysItsPaneWithCgroups(t *testing.T) {
	t.Parallel()
	m, ws, a, _, e, pid := cgroupEscapee(t)
	var w harness.WhoAmI
	e.JSON(t, &w, "whoami")
	if w.Principal != "pane:"+a.Pane.ID {
		t.Errorf("in its pane's cgroup the escapee is %+v, want pane:%s", w, a.Pane.ID)
	}
	var st harness.RunStart
	e.JSON(t, &st, runArgs("escapee-run", []string{"--workspace", ws}, "true")...)
	if st.Principal != "pane:"+a.Pane.ID {
		t.Errorf("the escapee's run belongs to %s, want pane:%s", st.Principal, a.Pane.ID)
	}
	// The pane's end stops it: its cgroup is killed.
	if r := m.CLI(t, "pane", "kill", "--pane", a.Pane.ID); r.Code != 0 {
		t.Fatalf("pane kill:\n%s", r)
	}
	waitGone(t, pid, "the process that left the killed pane")
}

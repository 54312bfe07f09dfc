package tests

import (
	"strconv"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// TestServiceUnderAUserManager: the shipped units in a real user manager.
// A CLI call activates the socket and the service (Type=notify reaches
// active), a run through it completes, `systemctl --user stop` saves and
// leaves no pane process, and the next start restores the panes as
// tombstones.
func TestServiceUnderAUserManager(t *testing.T) {
	t.Parallel()
	m := harness.StartUserManager(t)
	var ws struct {
		Workspace struct {
			ID string `json:"id"`
		} `json:"workspace"`
	}
	mjson(t, m, &ws, "workspace", "create", "--name", "svc")
	for unit, want := range map[string]string{"signaltty.socket": "active", "signaltty.service": "active"} {
		if got := m.Show(t, unit, "ActiveState"); got != want {
			t.Fatalf("%s is %s after the first CLI call, want %s", unit, got, want)
		}
	}
	if got := m.Show(t, "signaltty.service", "Type"); got != "notify" {
		t.Fatalf("signaltty.service Type=%s", got)
	}
	var run struct {
		Run string `json:"run"`
	}
	mjson(t, m, &run, "run", "--key", "svc-1", "--workspace", ws.Workspace.ID, "--shell", "echo ran; exit 0")
	if r := m.CLI(t, "run", "wait", "--run", run.Run); r.Code != 0 {
		t.Fatalf("run wait:\n%s", r)
	}
	var sp struct {
		Pane struct {
			ID  string `json:"id"`
			Pid int    `json:"pid"`
		} `json:"pane"`
	}
	mjson(t, m, &sp, "pane", "spawn", "--workspace", ws.Workspace.ID, "--", "sleep", "1000")

	m.Systemctl(t, "stop", "signaltty.service")
	waitGone(t, sp.Pane.Pid, "the pane's process after systemctl --user stop")
	if n := len(m.Daemons()); n != 0 {
		t.Fatalf("%d signalttyd left after stop", n)
	}

	m.Systemctl(t, "start", "signaltty.service")
	got := getPaneCgroup(t, m, sp.Pane.ID)
	var p struct {
		Pane struct {
			RestoreState string `json:"restore_state"`
			State        string `json:"state"`
		} `json:"pane"`
	}
	mjson(t, m, &p, "pane", "get", "--pane", sp.Pane.ID)
	if p.Pane.RestoreState != "RESTORED" || p.Pane.State != "exited" || got.Cgroup != nil {
		t.Fatalf("after the restart pane %s is %s/%s (cgroup %v), want a RESTORED tombstone without a process",
			sp.Pane.ID, p.Pane.RestoreState, p.Pane.State, got.Cgroup)
	}
	t.Logf("pane %s (pid %s before the stop) restored as a tombstone", sp.Pane.ID, strconv.Itoa(sp.Pane.Pid))
}

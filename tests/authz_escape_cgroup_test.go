package tests

import (
	"syscall"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// With per-pane cgroups, a process that double-forked and called setsid
// out of a pane whose program then exited on its own (not a termination:
// the cgroup is not killed, docs/termination.md, "Cgroup") is still
// never the owner nor another pane: its cgroup names its pane; and the
// service's restart ends it (docs/security.md, "The pane mark").
func TestAProcessThatLeftItsPaneIsNeverTheOwnerWithCgroupsAfterItsProgramExited(t *testing.T) {
	t.Parallel()
	m, ws, a, b, e, pid := cgroupEscapee(t)
	// The pane's program exits on its own (a signal from outside the
	// daemon is no termination of the daemon's).
	if err := syscall.Kill(a.Pane.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, harness.PollTimeout, "pane A exited", func() (bool, string) {
		var r struct {
			Pane harness.Pane `json:"pane"`
		}
		mjson(t, m, &r, "pane", "get", "--pane", a.Pane.ID)
		return r.Pane.State == "exited", r.Pane.State
	})
	if !alive(pid) {
		t.Fatalf("the escapee did not outlive its pane's program; the test needs it alive")
	}
	var w harness.WhoAmI
	e.JSON(t, &w, "whoami")
	if w.Principal != "pane:"+a.Pane.ID && w.Principal != "unknown" {
		t.Errorf("after its pane's program exited the escapee is %+v, want pane:%s (its cgroup) or unknown, never the owner or pane:%s", w, a.Pane.ID, b.Pane.ID)
	}
	r := e.CLI(t, "", append([]string{"--json"}, runArgs("escapee-after-exit", []string{"--workspace", ws}, "true")...)...)
	var st harness.RunStart
	if r.Code == 0 {
		harness.DecodeLine(t, r, &st)
		if st.Principal != "pane:"+a.Pane.ID {
			t.Errorf("the escapee's run belongs to %s, want pane:%s", st.Principal, a.Pane.ID)
		}
	}
	m.Systemctl(t, "restart", "signaltty.service")
	waitGone(t, pid, "the escapee after the service's restart")
}

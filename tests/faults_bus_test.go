package tests

import (
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// The system bus goes away (its dbus-daemon stopped, logind with it) while
// the daemon holds logind's inhibitor: the daemon keeps serving varlink,
// status and doctor report the loss, panes and runs keep their records, a
// save still succeeds and loads; when a bus and logind come back the
// monitor reconnects within its backoff and takes the inhibitor again.
func TestSystemBusGoneDaemonKeepsServing(t *testing.T) {
	t.Parallel()
	l := harness.StartLogind(t, harness.LogindOptions{})
	d := lgStart(t, l.Address)
	l.WaitInhibitor(t, d.Pid(), harness.PollTimeout)
	w := d.CreateWorkspace(t, "bus-gone")
	before := sleeper(t, d, w)
	var run1 struct{ Run string }
	d.JSON(t, &run1, "run", "--key", "before-bus-gone", "--workspace", w.ID, "--", "true")

	l.Stop(t)
	st := d.WaitLogind(t, harness.PollTimeout, "backoff after the bus went away", func(s harness.LogindReport) bool {
		return s.State == "backoff" && !s.Holding && s.NextRetryAt != nil && s.LastError != nil
	})
	t.Logf("while the bus is gone: %s", *st.LastError)
	if r := d.CLI(t, "doctor"); r.Code != 0 || !strings.Contains(r.Stdout, "logind shutdown monitor: backoff") {
		t.Errorf("doctor without a bus:\n%s", r)
	}
	// The daemon serves meanwhile: a pane, a run, a save.
	during := sleeper(t, d, w)
	var run2 struct{ Run string }
	d.JSON(t, &run2, "run", "--key", "while-bus-gone", "--workspace", w.ID, "--", "true")
	c := d.Dial(t)
	var saved map[string]any
	harness.MustCall(t, c, "dev.signaltty.Server.Save", nil, &saved)
	snap := d.ReadSnapshot(t)
	inSnap := map[string]bool{}
	for _, p := range snap.Panes {
		inSnap[p.ID] = true
	}
	if !inSnap[before.ID] || !inSnap[during.ID] {
		t.Errorf("the save without a bus has panes %v, want %s and %s", inSnap, before.ID, during.ID)
	}

	l.Start(t, false)
	l.WaitInhibitor(t, d.Pid(), 2*harness.PollTimeout)
	if st := d.Logind(t); st.State != "holding" || !st.Holding || st.Inhibits != 2 {
		t.Errorf("status after the bus came back: %+v", st)
	}
	for _, p := range []harness.Pane{before, during} {
		if g := d.GetPane(t, p.ID); g.State != "live" {
			t.Errorf("pane %s after the bus came back: %s", p.ID, g.State)
		}
	}
	for _, id := range []string{run1.Run, run2.Run} {
		var r struct {
			Record struct {
				Run     string `json:"run"`
				Outcome string `json:"outcome"`
			} `json:"record"`
		}
		d.JSON(t, &r, "run", "get", "--run", id)
		if r.Record.Run != id || r.Record.Outcome != "succeeded" {
			t.Errorf("run %s after the bus came back: %+v", id, r.Record)
		}
	}
}

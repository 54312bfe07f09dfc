package tests

import (
	"fmt"
	"syscall"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// An attached client killed (SIGKILL) while frames stream to it: the
// daemon keeps serving, the pane keeps running, the stream's goroutines
// and descriptors go away with the connection (without waiting for more
// output), and a new client attaches and takes over the pane's size.
func TestClientKilledMidAttach(t *testing.T) {
	t.Parallel()
	harness.NeedTmux(t)
	d, hooks := harness.StartHooks(t)
	w := d.CreateWorkspace(t, "attach-kill")
	p := bash(t, d, ws(w))
	run(t, d, p.ID, "echo ready", "ready")
	fdsBefore := len(harness.FDs(t, d.Pid()))
	goroutinesBefore := harness.Goroutines(t, hooks, "before")

	m := attached(t, d, p.ID, 100, 30)
	if got := d.GetPane(t, p.ID); got.Cols != 100 || got.Rows != 30 {
		t.Fatalf("attaching from 100x30 left the pane %dx%d", got.Cols, got.Rows)
	}
	// Output streams to the client while it is killed; it ends by itself,
	// so nothing wakes the stream after the kill.
	d.Send(t, p.ID, `for i in $(seq 1 60); do echo tick-$i; sleep 0.05; done; echo ticks-done\n`)
	m.WaitScreen(t, "the client receives the ticks", func(rows []string) bool {
		for _, r := range rows {
			if len(r) >= 7 && r[:7] == "tick-10" {
				return true
			}
		}
		return false
	})
	if err := syscall.Kill(m.Pid(t), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	d.WaitLine(t, p.ID, "ticks-done")
	harness.Eventually(t, harness.PollTimeout, "the killed client's stream is gone", func() (bool, string) {
		f := len(harness.FDs(t, d.Pid()))
		g := harness.Goroutines(t, hooks, "after")
		return f <= fdsBefore && g <= goroutinesBefore, fmt.Sprintf("%d descriptors (%d before), %d goroutines (%d before)", f, fdsBefore, g, goroutinesBefore)
	})
	if got := d.GetPane(t, p.ID); got.State != "live" {
		t.Fatalf("after the client was killed the pane is %s", got.State)
	}
	if st := d.Status(t); st.Pid != d.Pid() || st.LivePanes != 1 {
		t.Errorf("status after the client was killed: %+v", st)
	}
	// A new client attaches from another size: the size is its to set.
	m2 := attached(t, d, p.ID, 70, 20)
	harness.Eventually(t, harness.PollTimeout, "the new client sets the pane's size", func() (bool, string) {
		got := d.GetPane(t, p.ID)
		return got.Cols == 70 && got.Rows == 20, fmt.Sprintf("%dx%d", got.Cols, got.Rows)
	})
	m2.SendText(t, "echo after-$((3+4))")
	m2.SendKeys(t, "Enter")
	d.WaitLine(t, p.ID, "after-7")
	waitSame(t, d, m2, p.ID, "the new client shows the pane's screen")
}

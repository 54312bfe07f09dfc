package tests

import (
	"bufio"
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// A pane whose process is stopped (SIGSTOP) when its termination starts
// still ends: the daemon continues it and hangs it up, then kills it.
func TestStoppedChildIsTerminated(t *testing.T) {
	d := harness.Start(t)
	d.CreateWorkspace(t, "w")
	p := d.Spawn(t, []string{"--workspace", "w"}, "sh", "-c", "echo ready; exec sleep 1000")
	d.WaitLine(t, p.ID, "ready")
	if err := syscall.Kill(p.PID(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, harness.PollTimeout, "the child is stopped", func() (bool, string) {
		pr, ok := harness.ReadProc(p.PID())
		return ok && pr.State == 'T', fmt.Sprintf("%+v", pr)
	})
	if r := d.CLI(t, "pane", "kill", "--pane", p.ID); r.Code != 0 {
		t.Fatalf("pane kill of a stopped child:\n%s", r)
	}
	d.WaitExited(t, p.ID)
	harness.WaitGone(t, harness.PollTimeout, "the stopped child", p.PID())
}

// A pane that floods output while it is killed ends, and the daemon keeps
// answering meanwhile.
func TestFloodingPaneIsKilled(t *testing.T) {
	d := harness.Start(t)
	d.CreateWorkspace(t, "w")
	p := d.Spawn(t, []string{"--workspace", "w"}, "yes", "flood-line-of-output")
	d.WaitCapture(t, p.ID, "the flood is on screen", func(c harness.Capture) bool { return c.HasLine("flood-line-of-output") })
	if r := d.CLI(t, "pane", "kill", "--pane", p.ID); r.Code != 0 {
		t.Fatalf("pane kill of a flooding pane:\n%s", r)
	}
	d.WaitExited(t, p.ID)
	harness.WaitGone(t, harness.PollTimeout, "the flooding child", p.PID())
	if st := d.Status(t); st.Pid != d.Pid() {
		t.Errorf("status after the flood: %+v", st)
	}
}

// Clients that go away mid-stream (an event subscription) and mid-reply (a
// capture they never read) leave no connection or descriptor behind.
func TestClientDisconnectMidStreamAndMidReply(t *testing.T) {
	d := harness.Start(t)
	d.CreateWorkspace(t, "w")
	p := d.Spawn(t, []string{"--workspace", "w"}, "sh", "-c", "seq 1 5000; echo ready; exec sleep 1000")
	d.WaitLine(t, p.ID, "ready")
	d.Status(t)
	before := len(harness.FDs(t, d.Pid()))
	for i := 0; i < 20; i++ {
		s := d.Subscribe(t, nil, nil)
		s.Close()
		c := d.DialUnix(t)
		fmt.Fprintf(c, `{"method":"dev.signaltty.Mux.CaptureRows","parameters":{"pane":%q,"start":0}}`+"\x00", p.ID)
		c.Close()
	}
	harness.Eventually(t, harness.PollTimeout, "the daemon's descriptors are back to their count before", func() (bool, string) {
		n := len(harness.FDs(t, d.Pid()))
		return n <= before, fmt.Sprintf("%d descriptors, %d before", n, before)
	})
	if g := d.GetPane(t, p.ID); g.State != "live" {
		t.Errorf("pane after the disconnects: %+v", g)
	}
}

// A daemon stopped with SIGSTOP: a client's call with a deadline fails
// with it (no hang); after SIGCONT the daemon answers, the pane is live
// and its output went on.
func TestDaemonStoppedAndContinued(t *testing.T) {
	d := harness.Start(t)
	d.CreateWorkspace(t, "w")
	p := d.Spawn(t, []string{"--workspace", "w", "--env", "PS1=$ "}, "bash", "--norc", "--noprofile")
	d.Send(t, p.ID, `echo before-stop\n`)
	d.WaitLine(t, p.ID, "before-stop")
	c := d.Dial(t)
	if err := syscall.Kill(d.Pid(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := true
	defer func() {
		if stopped {
			syscall.Kill(d.Pid(), syscall.SIGCONT)
		}
	}()
	harness.Eventually(t, harness.PollTimeout, "the daemon is stopped", func() (bool, string) {
		pr, ok := harness.ReadProc(d.Pid())
		return ok && pr.State == 'T', fmt.Sprintf("%+v", pr)
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	var out map[string]any
	err := c.Call(ctx, "dev.signaltty.Server.GetStatus", nil, &out)
	cancel()
	if err == nil {
		t.Fatalf("a call to a stopped daemon answered: %v", out)
	}
	t.Logf("call while stopped: %v", err)
	time.Sleep(2 * time.Second) // the fault: the daemon stays stopped a while (not synchronisation)
	syscall.Kill(d.Pid(), syscall.SIGCONT)
	stopped = false
	if st := d.Status(t); st.Pid != d.Pid() || st.LivePanes != 1 {
		t.Errorf("status after SIGCONT: %+v", st)
	}
	d.Send(t, p.ID, `echo after-continue\n`)
	d.WaitLine(t, p.ID, "after-continue")
	// A new raw connection is served too.
	raw := d.DialUnix(t)
	raw.Write([]byte(`{"method":"dev.signaltty.Server.GetStatus"}` + "\x00"))
	if r, msg, err := readRaw(raw, bufio.NewReader(raw), 30*time.Second); err != nil || r.Error != "" {
		t.Errorf("a call after SIGCONT: %q %v", msg, err)
	}
}

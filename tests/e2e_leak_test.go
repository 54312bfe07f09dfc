package tests

import (
	"fmt"
	"sync"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
	vl "github.com/varlink/go/varlink"
)

// Spawning and killing many panes leaves no process (not even a zombie)
// and no descriptor behind.
func TestNoLeaks(t *testing.T) {
	t.Parallel()
	n := 200
	if testing.Short() {
		n = 50
	}
	const workers = 4
	d := harness.Start(t)
	conns := make([]*vl.Connection, workers)
	for i := range conns {
		conns[i] = d.Dial(t)
	}
	var cw struct {
		Workspace harness.Workspace `json:"workspace"`
	}
	harness.MustCall(t, conns[0], "dev.signaltty.Mux.CreateWorkspace", map[string]any{"name": "leaks"}, &cw)
	w := cw.Workspace.ID

	spawn := func(c *vl.Connection, argv ...string) harness.Pane {
		var r struct {
			Pane harness.Pane `json:"pane"`
		}
		harness.MustCall(t, c, "dev.signaltty.Mux.SpawnPane", map[string]any{"workspace": w, "argv": argv}, &r)
		return r.Pane
	}
	kill := func(c *vl.Connection, id string) harness.Pane {
		var r struct {
			Pane harness.Pane `json:"pane"`
		}
		harness.MustCall(t, c, "dev.signaltty.Mux.KillPane", map[string]any{"pane": id}, &r)
		return r.Pane
	}
	fdCount := func() (int, string) {
		fds := harness.FDs(t, d.Pid())
		return len(fds), fmt.Sprint(fds)
	}
	noChildren := func(what string) {
		t.Helper()
		if kids := harness.Children(d.Pid()); len(kids) != 0 {
			t.Errorf("%s: the daemon still has %d child processes (it must reap its own children):\n%s", what, len(kids), harness.DumpProcs(kids))
		}
	}

	// Warm up once so that descriptors the daemon makes lazily count in the baseline.
	p := spawn(conns[0], "sleep", "100")
	kill(conns[0], p.ID)
	harness.MustCall(t, conns[0], "dev.signaltty.Mux.RemovePane", map[string]any{"pane": p.ID}, nil)
	var baseline int
	var baseDetail string
	harness.Eventually(t, harness.PollTimeout, "the daemon's descriptor count settles", func() (bool, string) {
		a, _ := fdCount()
		b, detail := fdCount()
		baseline, baseDetail = b, detail
		return a == b, detail
	})

	// n × (spawn, kill), over several connections at once.
	var wg sync.WaitGroup
	ids := make(chan string, n)
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func(c *vl.Connection, count int) {
			defer wg.Done()
			for j := 0; j < count; j++ {
				var sp, kp struct {
					Pane harness.Pane `json:"pane"`
				}
				if err := harness.Call(t, c, "dev.signaltty.Mux.SpawnPane", map[string]any{"workspace": w, "argv": []string{"sleep", "100"}}, &sp); err != nil {
					t.Errorf("SpawnPane: %v", err)
					return
				}
				p := sp.Pane
				if err := harness.Call(t, c, "dev.signaltty.Mux.KillPane", map[string]any{"pane": p.ID}, &kp); err != nil {
					t.Errorf("KillPane: %v", err)
					return
				}
				k := kp.Pane
				if k.State != "exited" || k.Signal() != "SIGHUP" {
					t.Errorf("KillPane %s: state %s status %+v", p.ID, k.State, k.Status)
				}
				if !harness.Gone(p.PID()) {
					t.Errorf("pid %d of %s still runs after KillPane returned", p.PID(), p.ID)
				}
				ids <- p.ID
			}
		}(conns[i], n/workers+boolInt(i < n%workers))
	}
	wg.Wait()
	close(ids)
	if t.Failed() {
		t.FailNow()
	}
	noChildren(fmt.Sprintf("after spawning and killing %d panes", n))
	if st := d.Status(t); st.Panes != n || st.LivePanes != 0 {
		t.Errorf("status after %d kills: %d panes, %d live; want %d, 0 live", n, st.Panes, st.LivePanes, n)
	}
	// Exited panes hold no descriptors: no PTY, no pidfd.
	t.Logf("descriptors: baseline %d, right after %d spawns and kills %d", baseline, n, func() int { c, _ := fdCount(); return c }())
	if !harness.Poll(harness.PollTimeout, func() (bool, string) { c, _ := fdCount(); return c <= baseline+5, "" }) {
		c, detail := fdCount()
		t.Errorf("after %d panes were spawned and killed the daemon has %d descriptors, baseline %d:\nnow %s\nbaseline %s", n, c, baseline, detail, baseDetail)
	}

	// Programs that exit by themselves are reaped too.
	m := n / 4
	var own []harness.Pane
	for i := 0; i < m; i++ {
		own = append(own, spawn(conns[i%workers], "true"))
	}
	harness.Eventually(t, harness.PollTimeout, fmt.Sprintf("%d panes running true have exited", m), func() (bool, string) {
		var st harness.Status
		harness.MustCall(t, conns[0], "dev.signaltty.Server.GetStatus", nil, &struct {
			Status *harness.Status `json:"status"`
		}{&st})
		return st.LivePanes == 0, fmt.Sprintf("%+v", st)
	})
	noChildren(fmt.Sprintf("after %d panes exited by themselves", m))
	for _, p := range own {
		if !harness.Gone(p.PID()) {
			t.Errorf("pid %d of exited pane %s still runs", p.PID(), p.ID)
		}
	}

	// Removing everything brings the descriptors back to the baseline.
	harness.MustCall(t, conns[0], "dev.signaltty.Mux.RemoveWorkspace", map[string]any{"workspace": w}, nil)
	if !harness.Poll(harness.PollTimeout, func() (bool, string) { c, _ := fdCount(); return c <= baseline+5, "" }) {
		c, detail := fdCount()
		t.Errorf("after removing all panes the daemon has %d descriptors, baseline %d:\nnow %s\nbaseline %s", c, baseline, detail, baseDetail)
	}
	if st := d.Status(t); st.Panes != 0 || st.Tabs != 0 {
		t.Errorf("status after removal: %+v", st)
	}
	noChildren("at the end")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

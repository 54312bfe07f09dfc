package tests

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// Past SIGNALTTY_MAX_PANES panes holding a PTY, every way of starting a
// process (spawn, Run.Start, relaunch) fails unavailable.panes before
// anything is made; concurrent spawns never overshoot the limit.
func TestStartsPastThePaneLimitFailAndLeaveNothing(t *testing.T) {
	t.Parallel()
	const max = 3
	d := harness.Start(t, harness.Options{Env: []string{fmt.Sprintf("SIGNALTTY_MAX_PANES=%d", max)}})
	w := d.CreateWorkspace(t, "limits-panes")

	const tries = 7
	results := make([]harness.Result, tries)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = d.CLI(t, "--json", "pane", "spawn", "--workspace", w.ID, "--", "sleep", "100")
		}()
	}
	wg.Wait()
	spawned, refused := 0, 0
	var pids []int
	for _, r := range results {
		if r.Code == 0 {
			var out struct {
				Pane harness.Pane `json:"pane"`
			}
			if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
				t.Fatalf("spawn reply: %v\n%s", err, r)
			}
			pids = append(pids, out.Pane.PID())
			spawned++
			continue
		}
		e := harness.CheckFail(t, r, "unavailable.panes", exitUnavailable)
		if e.Data["max"] != float64(max) {
			t.Errorf("data %v, want max %d", e.Data, max)
		}
		refused++
	}
	if spawned != max || refused != tries-max {
		t.Fatalf("%d concurrent spawns with a limit of %d: %d spawned, %d refused", tries, max, spawned, refused)
	}
	_, tabs, panes := d.GetWorkspace(t, w.ID)
	if len(tabs) != max || len(panes) != max {
		t.Fatalf("refused spawns left tabs or panes: %d tabs, %d panes", len(tabs), len(panes))
	}

	world := d.TakeWorld(t)
	d.Fail(t, "unavailable.panes", exitUnavailable, "pane", "spawn", "--split", panes[0].ID, "--axis", "cols", "--", "sleep", "100")
	for _, tr := range harness.Both(d) {
		r := tr.Start(t, harness.ArgvSpec("limit-"+tr.Name, w.ID, "true"))
		if r.Err == nil || r.Err.Code != "unavailable.panes" {
			t.Errorf("Run.Start via %s at the limit: %s", tr.Name, r)
		}
	}
	d.Fail(t, "unavailable.panes", exitUnavailable, "workspace", "create", "--name", "with-a-pane", "--cwd", d.Home, "--", "sleep", "100")
	world.Unchanged(t, "starts refused at the pane limit")

	// An exited pane does not count; relaunching it would, so it is refused
	// once another pane took its place.
	d.Kill(t, panes[0].ID)
	d.Spawn(t, ws(w), "sleep", "100")
	world = d.TakeWorld(t)
	d.Fail(t, "unavailable.panes", exitUnavailable, "pane", "relaunch", "--pane", panes[0].ID)
	world.Unchanged(t, "a relaunch refused at the pane limit")
	if p := d.GetPane(t, panes[0].ID); p.State != "exited" {
		t.Errorf("the refused relaunch left the pane %s", p.State)
	}
}

package tests

// Runs of `true` started concurrently beside busy CPUs are never counted
// as having left processes behind: runs.escaped counts only processes that
// carry a run pane's mark and still run after its end (docs/termination.md,
// "Descendants outside the process group").

import (
	"context"
	"fmt"
	"os/exec"
	"sync"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

func TestConcurrentTrueRunsBesideCPUHogsCountNoEscapees(t *testing.T) {
	total, conns := 2000, 16
	if testing.Short() {
		total = 300
	}
	d := harness.Start(t, harness.Options{Env: []string{"SIGNALTTY_CGROUPS=off"}})
	ws := d.CreateWorkspace(t, "true-runs").ID
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	for range 2 {
		hog := exec.CommandContext(ctx, "sh", "-c", "while :; do :; done")
		if err := hog.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { stop(); hog.Wait() })
	}
	keys := make(chan int)
	var wg sync.WaitGroup
	for range conns {
		c := d.Dial(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range keys {
				var st struct{ Run string }
				if err := harness.Call(t, c, "dev.signaltty.Run.Start", harness.ArgvSpec(fmt.Sprint("true-", i), ws, "true").Params(), &st); err != nil {
					t.Errorf("run %d: %v", i, err)
					continue
				}
				var rec struct {
					Record struct{ State string }
				}
				if err := harness.Call(t, c, "dev.signaltty.Run.Wait", map[string]any{"run": st.Run, "output": false}, &rec); err != nil {
					t.Errorf("waiting for run %d: %v", i, err)
				} else if rec.Record.State != "completed" {
					t.Errorf("run %d ended %s", i, rec.Record.State)
				}
			}
		}()
	}
	for i := range total {
		keys <- i
	}
	close(keys)
	wg.Wait()
	stop()
	// The sweep after each end runs in the background: escaped is final
	// once no run is active and the count holds still.
	harness.Eventually(t, harness.PollTimeout, "no active run", func() (bool, string) {
		s := d.Status(t)
		return s.Runs.Active == 0, fmt.Sprint(s.Runs)
	})
	if s := d.Status(t); s.Runs.Escaped != 0 || s.Runs.Started < total {
		t.Fatalf("%d of %d runs of true counted as having escaped descendants (status runs %+v)", s.Runs.Escaped, total, s.Runs)
	}
}

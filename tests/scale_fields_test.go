package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// TestScaleListPaneFieldsAgainstListPanes (opt-in: SIGNALTTY_SCALE=N, e.g.
// 1000) fills one daemon with N idle panes and, on one connection,
// alternates 100 calls of Mux.ListPanes with 100 of Mux.ListPaneFields of
// an overview selection (docs/scale.md, "Selected fields"), each decoded by
// the client. It reports, side by side, each one's p50/p99 from call to
// decoded reply, reply bytes, and the CPU time per call of the daemon and
// of the client; it asserts no timings.
func TestScaleListPaneFieldsAgainstListPanes(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("SIGNALTTY_SCALE"))
	if n <= 0 {
		t.Skip("opt-in: set SIGNALTTY_SCALE to a number of panes (e.g. 1000)")
	}
	raiseFdLimit(t, uint64(4*n+4096))
	d := harness.Start(t)
	c := d.Dial(t)
	defer c.Close()
	var ws string
	for i := 0; i < n; i++ {
		if i%100 == 0 {
			var w struct{ Workspace struct{ ID string } }
			harness.MustCall(t, c, "dev.signaltty.Mux.CreateWorkspace", map[string]any{"name": fmt.Sprint("s", i/100)}, &w)
			ws = w.Workspace.ID
		}
		harness.MustCall(t, c, "dev.signaltty.Mux.SpawnPane", map[string]any{"workspace": ws, "argv": []string{"sleep", "infinity"}}, nil)
	}
	type variant struct {
		name, method string
		params       map[string]any
		ts           []time.Duration
		daemon, self time.Duration
		bytes        int
	}
	vs := []*variant{
		{name: "Mux.ListPanes (all fields)", method: "dev.signaltty.Mux.ListPanes", params: map[string]any{}},
		{name: "Mux.ListPaneFields (7 fields)", method: "dev.signaltty.Mux.ListPaneFields",
			params: map[string]any{"fields": []string{"id", "workspace", "tab", "title", "state", "lifecycle", "attention"}}},
	}
	const k = 100
	for i := 0; i < 2*k; i++ {
		v := vs[i%2]
		var r struct{ Panes []map[string]any }
		d0, s0 := cpuTime(d.Pid()), selfCPU()
		start := time.Now()
		harness.MustCall(t, c, v.method, v.params, &r)
		v.ts = append(v.ts, time.Since(start))
		v.daemon += cpuTime(d.Pid()) - d0
		v.self += selfCPU() - s0
		if len(r.Panes) != n {
			t.Fatalf("%s: %d panes, want %d", v.name, len(r.Panes), n)
		}
		if i < 2 {
			b, _ := json.Marshal(r.Panes)
			v.bytes = len(b)
		}
	}
	for _, v := range vs {
		t.Logf("%-30s %d panes  calls %d  p50 %8v  p99 %8v  reply ~%d KB  daemon CPU/call %v  client CPU/call %v", v.name, n, k,
			pct(v.ts, .5), pct(v.ts, .99), v.bytes/1000, (v.daemon / k).Round(10*time.Microsecond), (v.self / k).Round(10*time.Microsecond))
	}
}

// selfCPU is the test process's CPU time (user+system).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

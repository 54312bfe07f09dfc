package tests

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
)

// overviewFields is the selection the scale report compares with the whole
// listing: what an overview of many panes shows.
var overviewFields = []string{"id", "workspace", "tab", "title", "state", "lifecycle", "attention"}

// TestScaleListPaneFieldsAgainstListPanes (opt-in: SIGNALTTY_SCALE=N, e.g.
// 1000) fills one daemon with N idle panes and compares Mux.ListPanes with
// Mux.ListPaneFields of overviewFields (docs/scale.md, "Selected fields
// and pages: Mux.ListPaneFields") as three clients see them, each dialled
// once: raw (the call written to a socket, the reply read to its NUL),
// typed (the generated Go bindings, decoding into mux.Pane or
// mux.PaneFields) and maps (the harness's client, decoding into
// []map[string]any), and typed for a page of 100 panes
// (limit). Calls alternate, 100 of each. It reports each one's p50/p99
// from call to decoded reply, reply bytes, and the CPU time per call of
// the daemon and of the client; it asserts no timings.
func TestScaleListPaneFieldsAgainstListPanes(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("SIGNALTTY_SCALE"))
	if n <= 0 {
		t.Skip("opt-in: set SIGNALTTY_SCALE to a number of panes (e.g. 1000)")
	}
	raiseFdLimit(t, uint64(4*n+4096))
	d := harness.Start(t)
	c := d.Dial(t)
	var ws string
	for i := 0; i < n; i++ {
		if i%100 == 0 {
			var w struct{ Workspace struct{ ID string } }
			harness.MustCall(t, c, "dev.signaltty.Mux.CreateWorkspace", map[string]any{"name": fmt.Sprint("s", i/100)}, &w)
			ws = w.Workspace.ID
		}
		harness.MustCall(t, c, "dev.signaltty.Mux.SpawnPane", map[string]any{"workspace": ws, "argv": []string{"sleep", "infinity"}}, nil)
	}
	raw := d.DialUnix(t)
	rd := bufio.NewReaderSize(raw, 1<<20)
	rawCall := func(method string, params any) int {
		msg, _ := json.Marshal(map[string]any{"method": method, "parameters": params})
		if _, err := raw.Write(append(msg, 0)); err != nil {
			t.Fatal(err)
		}
		size := 0
		for {
			b, err := rd.ReadSlice(0)
			size += len(b)
			if err == nil {
				return size
			}
			if err != bufio.ErrBufferFull {
				t.Fatal(err)
			}
		}
	}
	sel := make([]mux.PaneField, len(overviewFields))
	for i, f := range overviewFields {
		sel[i] = mux.PaneField(f)
	}
	check := func(got int) {
		if got != n {
			t.Fatalf("%d panes listed, want %d", got, n)
		}
	}
	type variant struct {
		name         string
		call         func() int // reply bytes (raw) or panes (decoded)
		ts           []time.Duration
		daemon, self time.Duration
		bytes        int
	}
	vs := []*variant{
		{name: "ListPanes raw", call: func() int { return rawCall("dev.signaltty.Mux.ListPanes", map[string]any{}) }},
		{name: "ListPaneFields raw", call: func() int {
			return rawCall("dev.signaltty.Mux.ListPaneFields", map[string]any{"fields": overviewFields})
		}},
		{name: "ListPanes typed", call: func() int {
			ps, err := mux.ListPanes().Call(t.Context(), c, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			check(len(ps))
			return 0
		}},
		{name: "ListPaneFields typed", call: func() int {
			ps, _, err := mux.ListPaneFields().Call(t.Context(), c, nil, nil, sel, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			check(len(ps))
			return 0
		}},
		{name: "ListPaneFields typed 100", call: func() int { // a page: the first 100 panes
			limit := int64(100)
			ps, next, err := mux.ListPaneFields().Call(t.Context(), c, nil, nil, sel, nil, &limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) != min(n, 100) || (n > 100) != (next != nil) {
				t.Fatalf("a page of 100: %d panes, next %v", len(ps), next)
			}
			return 0
		}},
		{name: "ListPanes maps", call: func() int {
			var r struct{ Panes []map[string]any }
			harness.MustCall(t, c, "dev.signaltty.Mux.ListPanes", map[string]any{}, &r)
			check(len(r.Panes))
			return 0
		}},
		{name: "ListPaneFields maps", call: func() int {
			var r struct{ Panes []map[string]any }
			harness.MustCall(t, c, "dev.signaltty.Mux.ListPaneFields", map[string]any{"fields": overviewFields}, &r)
			check(len(r.Panes))
			return 0
		}},
	}
	const k = 100
	for i := 0; i < k*len(vs); i++ {
		v := vs[i%len(vs)]
		d0, s0 := cpuTime(d.Pid()), selfCPU()
		start := time.Now()
		size := v.call()
		v.ts = append(v.ts, time.Since(start))
		v.daemon += cpuTime(d.Pid()) - d0
		v.self += selfCPU() - s0
		if size > 0 {
			v.bytes = size
		}
	}
	t.Logf("%d live idle panes; ListPaneFields of %v", n, overviewFields)
	for _, v := range vs {
		kb := ""
		if v.bytes > 0 {
			kb = fmt.Sprintf("reply %d KB", v.bytes/1000)
		}
		t.Logf("%-25s calls %d  p50 %8v  p99 %8v  daemon CPU/call %6v  client CPU/call %7v  %s", v.name, k,
			pct(v.ts, .5), pct(v.ts, .99), (v.daemon / k).Round(10*time.Microsecond), (v.self / k).Round(10*time.Microsecond), kb)
	}
}

// selfCPU is the test process's CPU time (user+system).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

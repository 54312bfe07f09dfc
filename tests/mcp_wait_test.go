package tests

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/signaltty/signaltty/tests/harness"
)

// progressCounter collects the progress notifications of one token.
type progressCounter struct {
	mu    sync.Mutex
	token string
	got   []float64
}

func (p *progressCounter) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if fmt.Sprint(r.Params.ProgressToken) == p.token {
			p.got = append(p.got, r.Params.Progress)
		}
	}}
}

func (p *progressCounter) take() []float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	g := p.got
	p.got = nil
	return g
}

// waitResult is a run_wait result: the record and, when the wait ended
// first, wait_ended and next.
type waitResult struct {
	Record struct {
		State  string
		Status *int
		Output struct{ Lines []string }
	}
	OutputSoFar struct{ Lines []string } `json:"output_so_far"`
	WaitEnded   string                   `json:"wait_ended"`
	Next        string
}

// A wait longer than the cap, with a progress token: progress every 5 s
// (at least two in 12 s, each larger than the one before), then a normal
// result with the run as it is now.
func TestMCPWaitOverTheCapSendsProgressAndTheRunSoFar(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	pc := &progressCounter{token: "wait-1"}
	m := d.StartMCPClient(t, nil, pc.options(), "--wait-cap-ms", "12000")
	ws := d.CreateWorkspace(t, "progress")
	r := m.Call(t, "run", map[string]any{"key": "ticks", "workspace": ws.ID, "shell": "echo first-tick; exec sleep 300"})
	var st struct{ Run string }
	decodeText(t, r, &st)
	p := &mcp.CallToolParams{Name: "run_wait", Arguments: map[string]any{"run": st.Run, "timeout_ms": 600000}}
	p.SetProgressToken("wait-1")
	w := m.CallWith(t, p)
	var res waitResult
	decodeText(t, w, &res)
	if w.IsError || res.WaitEnded != "timeout" || res.Record.State != "running" || !strings.Contains(strings.Join(res.OutputSoFar.Lines, "\n"), "first-tick") {
		t.Fatalf("want the running record with its output so far: isError=%v %s", w.IsError, w.Text)
	}
	got := pc.take()
	if len(got) < 2 {
		t.Fatalf("%d progress notifications in a 12 s wait, want at least 2 (one every 5 s): %v", len(got), got)
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatalf("progress does not increase: %v", got)
		}
	}
	m.Call(t, "run_cancel", map[string]any{"run": st.Run, "grace_ms": 0})
}

// A long run is followed to its end through repeated waits, each with
// progress and the output so far. SIGNALTTY_TEST_LONG_RUN_S sets its length
// (default 20 s; 300 for the five-minute run of docs/mcp.md, "Long waits",
// with SIGNALTTY_TEST_LONG_RUN_CAP_MS 110000 for the default cap).
func TestMCPLongRunIsFollowedToItsEndThroughRepeatedWaits(t *testing.T) {
	t.Parallel()
	secs, capMs := 20, 6000
	if v, err := strconv.Atoi(os.Getenv("SIGNALTTY_TEST_LONG_RUN_S")); err == nil && v > 0 {
		secs = v
	}
	if v, err := strconv.Atoi(os.Getenv("SIGNALTTY_TEST_LONG_RUN_CAP_MS")); err == nil && v > 0 {
		capMs = v
	}
	d := harness.Start(t)
	pc := &progressCounter{token: "long"}
	m := d.StartMCPClient(t, nil, pc.options(), "--wait-cap-ms", fmt.Sprint(capMs))
	m.CallDeadline = harness.CallTimeout + time.Duration(capMs)*time.Millisecond
	ws := d.CreateWorkspace(t, "long")
	r := m.Call(t, "run", map[string]any{"key": "long", "workspace": ws.ID,
		"shell": fmt.Sprintf("i=0; while [ $i -lt %d ]; do i=$((i+1)); echo line-$i; sleep 1; done", secs)})
	var st struct{ Run string }
	decodeText(t, r, &st)
	waits, progress := 0, 0
	for {
		p := &mcp.CallToolParams{Name: "run_wait", Arguments: map[string]any{"run": st.Run}}
		p.SetProgressToken("long")
		w := m.CallWith(t, p)
		waits++
		progress += len(pc.take())
		var res waitResult
		decodeText(t, w, &res)
		if w.IsError {
			t.Fatalf("wait %d: %s", waits, w.Text)
		}
		if res.Record.State == "completed" {
			if res.WaitEnded != "" || res.Record.Status == nil || *res.Record.Status != 0 ||
				!strings.Contains(strings.Join(res.Record.Output.Lines, "\n"), fmt.Sprintf("line-%d", secs)) {
				t.Fatalf("the last wait: %s", w.Text)
			}
			break
		}
		if res.WaitEnded != "timeout" || !strings.Contains(res.Next, st.Run) || !strings.Contains(strings.Join(res.OutputSoFar.Lines, "\n"), "line-") {
			t.Fatalf("wait %d ended before the run but says not so, or lost output: %s", waits, w.Text)
		}
		if waits > 4*secs*1000/capMs+4 {
			t.Fatalf("%d waits and the %d-second run has not completed", waits, secs)
		}
	}
	if waits < 2 || progress == 0 {
		t.Fatalf("%d waits with %d progress notifications: want several waits with progress", waits, progress)
	}
	t.Logf("a %d-second run followed through %d waits of at most %d ms, %d progress notifications", secs, waits, capMs, progress)
}

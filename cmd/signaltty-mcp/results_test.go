package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/varlink/mcpschema"
)

func toolNamed(t *testing.T, name string) mcpschema.Tool {
	t.Helper()
	for _, tl := range mcpschema.Tools() {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return mcpschema.Tool{}
}

// A run record in MCP keeps what an agent uses, in the daemon's order, and
// leaves out the rest (docs/mcp.md, "Small results").
func TestRunRecordLeavesOutWhatAnAgentHasNoUseFor(t *testing.T) {
	in := `{"record":{"run":"r3","source":"signaltty/x","key":"k","pane":"pane_1","tab":"tab_1","workspace":"ws_1","principal":"owner","pid":9,"shell":true,` +
		`"state":"completed","outcome":"failed","exit_code":2,"status":2,"started_at":"t0","completed_at":"t1","duration_ms":5,` +
		`"output":{"screen":"primary","epoch":1,"offset":10,"cols":80,"rows":24,"oldest":0,"start":0,"end":1,"complete":false,"lines":["a <b> & c"]}}}`
	want := `{"record":{"run":"r3","pane":"pane_1","state":"completed","outcome":"failed","exit_code":2,"status":2,"duration_ms":5,` +
		`"output":{"epoch":1,"start":0,"end":1,"complete":false,"lines":["a <b> & c"]}}}`
	if got := string(smaller(toolNamed(t, "run_wait"), json.RawMessage(in))); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	start := `{"run":"r3","source":"signaltty/x","key":"k","pane":"pane_1","tab":"tab_1","workspace":"ws_1","principal":"owner","pid":9,"reused":false}`
	if got := string(smaller(toolNamed(t, "run"), json.RawMessage(start))); got != `{"run":"r3","source":"signaltty/x","pane":"pane_1","reused":false}` {
		t.Fatalf("run: %s", got)
	}
}

// A tail over the budget keeps its last rows and names the rest.
func TestATailOverTheBudgetKeepsItsLastRows(t *testing.T) {
	lines := make([]string, 100)
	for i := range lines {
		lines[i] = fmt.Sprintf("%099d", i)
	}
	lj, _ := json.Marshal(lines)
	in := `{"record":{"run":"r1","pane":"pane_1","state":"completed","output":{"start":50,"end":150,"complete":false,"lines":` + string(lj) + `}}}`
	got := fitRows("run_wait", json.RawMessage(in), "pane_1", true, 4000)
	var r struct {
		Record struct {
			Output struct {
				Start, End int
				Lines      []string
			}
		}
		Cut          bool
		ContinueWith map[string]any `json:"continue_with"`
	}
	if err := json.Unmarshal(got, &r); err != nil || len(got) > 4000 || !r.Cut {
		t.Fatalf("%d bytes, cut %v (%v): %s", len(got), r.Cut, err, got)
	}
	o := r.Record.Output
	if o.End != 150 || o.Start != 150-len(o.Lines) || o.Lines[len(o.Lines)-1] != lines[99] || !strings.HasSuffix(o.Lines[0], fmt.Sprint(o.Start-50)) {
		t.Fatalf("kept rows %d..%d: %v", o.Start, o.End, o.Lines)
	}
	if r.ContinueWith["start"] != float64(50) || r.ContinueWith["end"] != float64(o.Start) || r.ContinueWith["pane"] != "pane_1" {
		t.Fatalf("continue_with %v", r.ContinueWith)
	}
	if small := fitRows("run_wait", json.RawMessage(in), "pane_1", true, 1<<20); string(small) != in {
		t.Fatal("a result within the budget changed")
	}
}

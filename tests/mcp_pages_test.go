package tests

import (
	"encoding/json"
	"slices"
	"strconv"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// mcpResultBudget is the server's default budget for one result's text:
// Claude Code's default cap of 25,000 tokens at 2 bytes a token
// (docs/mcp.md, "Result size").
const mcpResultBudget = 25000 * 2

// A pane_capture of a 100,000-row history comes in pages, each under the
// result budget, each cut at a row and naming the arguments of the next;
// the pages join to what one capture of the whole history returns.
func TestMCPCaptureOfALongHistoryIsPagedUnderTheCap(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	m := d.StartMCP(t, nil)
	w := d.CreateWorkspace(t, "pages")
	p := d.Spawn(t, append(ws(w), "--history-rows", "100000"), "sh", "-c", "seq 1 100000; exec sleep 100")
	d.WaitLine(t, p.ID, "100000")
	whole := d.Capture(t, p.ID, "--history", "--trim")
	if whole.Oldest != 0 || len(whole.Lines) < 100000 {
		t.Fatalf("the whole history: oldest %d, %d lines", whole.Oldest, len(whole.Lines))
	}

	var joined []string
	pages := 0
	args := map[string]any{"pane": p.ID, "history": true}
	for {
		r := m.Call(t, "pane_capture", args)
		if r.IsError {
			t.Fatalf("page %d: %s", pages, r.Text)
		}
		pages++
		if len(r.Text) > mcpResultBudget {
			t.Fatalf("page %d is %d bytes, over the budget of %d", pages, len(r.Text), mcpResultBudget)
		}
		var page struct {
			First, Next  int64
			Lines        []string
			Cut          bool
			ContinueWith map[string]any `json:"continue_with"`
			Note         string
		}
		decodeText(t, r, &page)
		if page.First != int64(len(joined)) || page.Next != page.First+int64(len(page.Lines)) {
			t.Fatalf("page %d: rows %d..%d after %d joined", pages, page.First, page.Next, len(joined))
		}
		joined = append(joined, page.Lines...)
		if !page.Cut {
			if page.ContinueWith != nil {
				t.Fatalf("the last page names a next one: %v", page.ContinueWith)
			}
			break
		}
		if page.Note == "" || page.ContinueWith["start"] != float64(page.Next) {
			t.Fatalf("a cut page does not say how to go on: %q %v", page.Note, page.ContinueWith)
		}
		args = page.ContinueWith
		if pages > 1000 {
			t.Fatal("more than 1000 pages")
		}
	}
	if pages < 10 {
		t.Errorf("%d pages for %d rows; want each under %d bytes", pages, len(joined), mcpResultBudget)
	}
	if !slices.Equal(joined, whole.Lines) {
		t.Fatalf("the %d pages join to %d rows, not the %d of the whole history", pages, len(joined), len(whole.Lines))
	}
	for i, want := range []int{0, 1, 49999, 99999} {
		if joined[want] != strconv.Itoa(want+1) {
			t.Fatalf("check %d: row %d is %q", i, want, joined[want])
		}
	}
	// The screen fits in one result: not cut.
	var screen struct{ Cut bool }
	if err := json.Unmarshal([]byte(m.Call(t, "pane_capture", map[string]any{"pane": p.ID}).Text), &screen); err != nil || screen.Cut {
		t.Fatalf("the screen's capture: cut %v (%v)", screen.Cut, err)
	}
	d.Kill(t, p.ID, "--grace-ms", "200")
}

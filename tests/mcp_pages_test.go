package tests

import (
	"encoding/json"
	"slices"
	"strconv"
	"testing"
	"time"

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

// A run whose output tail is over the result budget comes back from
// run_wait and run_get with its last rows, cut true and continue_with: the
// pane_capture arguments of the rows left out, which page in turn. The
// pages and the tail join to the tail `signaltty run wait --trim` prints.
// A wait that ends first keeps its output_so_far under the budget the same
// way, and so does pane_wait_output.
func TestMCPRunResultsOverTheBudgetKeepTheLastRowsAndSayHowToReadTheRest(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	m := d.StartMCP(t, nil, "--wait-cap-ms", "20000")
	w := d.CreateWorkspace(t, "big-tail")
	row := func(n string) string { return `printf "%0190d\n" ` + n } // 190 digits, n at the end
	r := m.Call(t, "run", map[string]any{"key": "big", "workspace": w.ID, "cols": 200, "rows": 50, "output_rows": 1000, "output_bytes": 262144,
		"shell": "i=0; while [ $i -lt 1000 ]; do i=$((i+1)); " + row("$i") + "; done"})
	var st struct{ Run, Pane string }
	decodeText(t, r, &st)
	var whole struct {
		Record struct {
			Output struct {
				Start, End int64
				Lines      []string
			}
		}
	}
	if err := json.Unmarshal([]byte(d.CLI(t, "--json", "run", "wait", "--run", st.Run, "--trim", "--timeout-ms", "20000").Stdout), &whole); err != nil || len(whole.Record.Output.Lines) != 1000 {
		t.Fatalf("the whole tail: %d lines (%v)", len(whole.Record.Output.Lines), err)
	}
	for _, tool := range []string{"run_wait", "run_get"} {
		res := m.Call(t, tool, map[string]any{"run": st.Run})
		if res.IsError || len(res.Text) > mcpResultBudget {
			t.Fatalf("%s: isError %v, %d bytes (budget %d)", tool, res.IsError, len(res.Text), mcpResultBudget)
		}
		var got struct {
			Record struct {
				State  string
				Output struct {
					Start, End int64
					Complete   bool
					Lines      []string
				}
			}
			Cut          bool
			ContinueWith map[string]any `json:"continue_with"`
			Note         string
		}
		decodeText(t, res, &got)
		o := got.Record.Output
		if got.Record.State != "completed" || !got.Cut || o.Complete || o.End != whole.Record.Output.End || got.Note == "" ||
			got.ContinueWith["pane"] != st.Pane || got.ContinueWith["end"] != float64(o.Start) {
			t.Fatalf("%s: want the last rows, cut, and how to read the rest: %.600s", tool, res.Text)
		}
		var joined []string
		args := got.ContinueWith
		for pages := 0; ; pages++ {
			p := m.Call(t, "pane_capture", args)
			var page struct {
				Lines        []string
				Cut          bool
				ContinueWith map[string]any `json:"continue_with"`
			}
			decodeText(t, p, &page)
			if p.IsError || len(p.Text) > mcpResultBudget || pages > 100 {
				t.Fatalf("page %d: %d bytes, %.300s", pages, len(p.Text), p.Text)
			}
			joined = append(joined, page.Lines...)
			if !page.Cut {
				break
			}
			args = page.ContinueWith
		}
		joined = append(joined, o.Lines...)
		if !slices.Equal(joined, whole.Record.Output.Lines) {
			t.Fatalf("%s: the rows left out and the tail join to %d rows, not the %d of the tail", tool, len(joined), len(whole.Record.Output.Lines))
		}
	}

	// A wait that ends first: the screen so far, its last rows, without the
	// blank rows at its end.
	r = m.Call(t, "run", map[string]any{"key": "big-screen", "workspace": w.ID, "cols": 1000, "rows": 300,
		"shell": `i=0; while [ $i -lt 300 ]; do i=$((i+1)); printf "%0990d\n" $i; done; echo screen-done; exec sleep 100`})
	decodeText(t, r, &st)
	// A 1000×300 screen takes a while to capture on a loaded machine with
	// a -race daemon: a longer deadline than WaitLine's.
	harness.Eventually(t, time.Minute, "the pane shows screen-done", func() (bool, string) {
		c := d.Capture(t, st.Pane)
		return c.HasLine("screen-done"), ""
	})
	res := m.Call(t, "run_wait", map[string]any{"run": st.Run, "timeout_ms": 0})
	var sofar struct {
		WaitEnded   string `json:"wait_ended"`
		OutputSoFar struct {
			First int64
			Lines []string
		} `json:"output_so_far"`
		Cut          bool
		ContinueWith map[string]any `json:"continue_with"`
	}
	decodeText(t, res, &sofar)
	lines := sofar.OutputSoFar.Lines // without the blank rows below the output (the cursor's)
	if res.IsError || len(res.Text) > mcpResultBudget || sofar.WaitEnded != "timeout" || !sofar.Cut || len(lines) == 0 ||
		lines[len(lines)-1] != "screen-done" || sofar.ContinueWith["end"] != float64(sofar.OutputSoFar.First) {
		t.Fatalf("run_wait that ends first, %d bytes: %.600s … %s", len(res.Text), res.Text, res.Text[max(0, len(res.Text)-600):])
	}

	// pane_wait_output of rows that changed: its last rows.
	wo := m.Call(t, "pane_wait_output", map[string]any{"pane": st.Pane, "after": map[string]any{"epoch": 0, "row": 0, "digest": ""}, "quiet_ms": 100})
	var out struct {
		First, Omitted int64
		Lines          []string
		Cut            bool
	}
	decodeText(t, wo, &out)
	if wo.IsError || len(wo.Text) > mcpResultBudget || !out.Cut || len(out.Lines) == 0 {
		t.Fatalf("pane_wait_output, %d bytes: %.600s", len(wo.Text), wo.Text)
	}
	m.Call(t, "run_cancel", map[string]any{"run": st.Run, "grace_ms": 0})
}

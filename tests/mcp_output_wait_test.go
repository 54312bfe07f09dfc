package tests

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/signaltty/signaltty/tests/harness"
)

// outputWaitTool calls a tool that waits on output and decodes its
// result, which must not be a tool error and must carry the same
// structured content as its text.
func outputWaitTool(t *testing.T, m *harness.MCP, p *mcp.CallToolParams) outputWait {
	t.Helper()
	r := m.CallWith(t, p)
	if r.IsError {
		t.Fatalf("%s: a tool error: %s", p.Name, r.Text)
	}
	if sn, tn := harness.Normalize(t, r.Structured), harness.Normalize(t, r.Text); sn != tn {
		t.Fatalf("%s: structured content and text differ:\n%s\n%s", p.Name, sn, tn)
	}
	var w outputWait
	decodeText(t, r, &w)
	return w
}

// An agent answers an interactive prompt with one pane_send_wait call and
// drives a python3 REPL the same way.
func TestMCPSendWaitAnswersAPromptAndDrivesAREPL(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	m := d.StartMCP(t, nil)
	ws := d.CreateWorkspace(t, "mcp-prompt")
	p := d.Spawn(t, []string{"--workspace", ws.ID}, "bash", "--norc", "--noprofile", "-c", `read -r -p "Proceed? [y/N] " a; echo "answer: $a"; exec sleep 600`)
	asked := outputWaitTool(t, m, &mcp.CallToolParams{Name: "pane_wait_output", Arguments: map[string]any{"pane": p.ID, "match": `\[y/N\]$`, "after": json.RawMessage(fromStart)}})
	if asked.Outcome != "matched" {
		t.Fatalf("want the prompt: %+v", asked)
	}
	answered := outputWaitTool(t, m, &mcp.CallToolParams{Name: "pane_send_wait", Arguments: map[string]any{"pane": p.ID, "text": "y\n", "match": "^answer: "}})
	if answered.Outcome != "matched" || answered.matchedLine(t) != "answer: y" || answered.Written == nil || *answered.Written != 2 {
		t.Fatalf("want the answer: %+v", answered)
	}

	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	py := d.Spawn(t, []string{"--workspace", ws.ID, "--env", "PYTHONSTARTUP="}, "python3", "-q", "-i")
	if w := outputWaitTool(t, m, &mcp.CallToolParams{Name: "pane_wait_output", Arguments: map[string]any{"pane": py.ID, "match": "^>>>$", "after": json.RawMessage(fromStart)}}); w.Outcome != "matched" {
		t.Fatalf("want the first prompt: %+v", w)
	}
	two := outputWaitTool(t, m, &mcp.CallToolParams{Name: "pane_send_wait", Arguments: map[string]any{"pane": py.ID, "text": "1+1\n", "match": "^2$"}})
	if two.Outcome != "matched" || two.matchedLine(t) != "2" {
		t.Fatalf("want 2: %+v", two)
	}
	// The next prompt after the answer, from the baseline of the send.
	prompt := outputWaitTool(t, m, &mcp.CallToolParams{Name: "pane_send_wait", Arguments: map[string]any{"pane": py.ID, "text": "x = 5\n", "match": "^>>>$"}})
	if prompt.Outcome != "matched" || !slices.Contains(prompt.Lines, ">>> x = 5") {
		t.Fatalf("want the prompt after the statement: %+v", prompt)
	}
}

// An output wait that reaches the MCP cap is a normal result with the rows
// so far and next, with progress on the way; calling again with its
// baseline goes on and sees what came later.
func TestMCPOutputWaitAtTheCapIsANormalResult(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	pc := &progressCounter{token: "out-1"}
	m := d.StartMCPClient(t, nil, pc.options(), "--wait-cap-ms", "6000")
	ws := d.CreateWorkspace(t, "mcp-cap")
	p := d.Spawn(t, []string{"--workspace", ws.ID}, "cat")
	params := &mcp.CallToolParams{Name: "pane_send_wait", Arguments: map[string]any{"pane": p.ID, "text": "first\n", "match": "^done$", "timeout_ms": 600000}}
	params.SetProgressToken("out-1")
	w := outputWaitTool(t, m, params)
	if w.Outcome != "timeout" || !slices.Contains(w.Lines, "first") || !strings.Contains(w.Next, "pane_wait_output") || len(w.Baseline) == 0 {
		t.Fatalf("want outcome timeout with the rows so far and next: %+v", w)
	}
	if got := pc.take(); len(got) < 1 {
		t.Fatalf("no progress notification in a 6 s wait (one every 5 s)")
	}
	d.Send(t, p.ID, "done\n")
	more := outputWaitTool(t, m, &mcp.CallToolParams{Name: "pane_wait_output", Arguments: map[string]any{"pane": p.ID, "match": "^done$", "after": w.Baseline}})
	if more.Outcome != "matched" || slices.Contains(more.Lines, "first") {
		t.Fatalf("want done, and only rows changed after the baseline: %+v", more)
	}
	bad := m.Call(t, "pane_wait_output", map[string]any{"pane": p.ID, "match": "(unclosed"})
	if !bad.IsError || !strings.Contains(bad.Text, `"code":"invalid_params.match"`) {
		t.Fatalf("want invalid_params.match: %+v", bad)
	}
}

// pane_wait (agent states) at the MCP cap is a normal result too, whose
// baseline continues the wait.
func TestMCPPaneWaitAtTheCapIsANormalResult(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	m := d.StartMCP(t, nil, "--wait-cap-ms", "1500")
	ws := d.CreateWorkspace(t, "mcp-pane-cap")
	p := d.Spawn(t, []string{"--workspace", ws.ID}, "cat")
	var after json.RawMessage
	for i := range 2 {
		args := map[string]any{"pane": p.ID, "until": []string{"done"}}
		if i > 0 {
			args["after"] = after
		}
		r := m.Call(t, "pane_wait", args)
		var res struct {
			Outcome   string
			Lifecycle string
			Baseline  json.RawMessage
			WaitEnded string `json:"wait_ended"`
			Next      string
		}
		decodeText(t, r, &res)
		if r.IsError || res.Outcome != "timeout" || res.WaitEnded != "timeout" || len(res.Baseline) == 0 || res.Lifecycle == "" || !strings.Contains(res.Next, "pane_wait") {
			t.Fatalf("pane_wait %v: want a normal result at the cap; got isError=%v %s", args, r.IsError, r.Text)
		}
		after = res.Baseline
	}
}

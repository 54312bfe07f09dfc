package tests

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// Claude Code with signaltty's MCP server registered as the docs say
// (`claude mcp add -s user signaltty -- signaltty mcp`) runs a command
// with the MCP run tool in its own workspace, with the default grants, and
// gets its status back.
func TestRealClaudeRunsInItsOwnWorkspaceThroughMCP(t *testing.T) {
	t.Parallel()
	w := newRealWorld(t, "claude", nil)
	ws := w.workspace(t, "proj")
	env := append(w.d.ClientEnv(), w.env...)
	if r := harness.Run(t, env, filepath.Join(harness.AgentsBin(t, "claude"), "claude"), "mcp", "add", "-s", "user", "signaltty", "--", "signaltty", "mcp"); r.Code != 0 {
		t.Fatalf("claude mcp add: %s", r)
	}
	w.model.Script(harness.Turn{Prompt: "mcp-8c2a", Steps: []harness.Step{
		// MCP tools are deferred behind ToolSearch until selected.
		{Tool: "ToolSearch|mcp__signaltty__run", Input: map[string]any{"query": "select:mcp__signaltty__run", "key": "mcp-8c2a", "workspace": ws, "shell": "echo mcp-ran-$((6*7))"}},
		{Tool: "mcp__signaltty__run", Input: map[string]any{"key": "mcp-8c2a", "workspace": ws, "shell": "echo mcp-ran-$((6*7))"}},
		{Text: "mcp run finished"}}})
	p := w.start(t, ws)
	w.prompt(t, p.ID, "mcp-8c2a")
	r := w.model.WaitRequest(t, agentTimeout, "carrying the MCP run's result", func(r harness.ModelRequest) bool {
		for _, msg := range r.Messages {
			if msg.ToolCall == "mcp__signaltty__run" {
				return len(r.ToolResults()) >= 2 || !strings.Contains(r.Body, "ToolSearch")
			}
		}
		return false
	})
	// The run tool answers with the started run's record; its output comes
	// from the daemon's own record of that run.
	res := strings.Join(r.ToolResults(), "\n")
	m := regexp.MustCompile(`"run":"(r[0-9]+)"`).FindStringSubmatch(res)
	if strings.Contains(res, "denied") || m == nil || !strings.Contains(res, `"workspace":"`+ws+`"`) {
		t.Fatalf("the MCP run in the agent's own workspace came back:\n%s", res)
	}
	if out := w.d.CLI(t, "run", "wait", "--run", m[1], "--timeout-ms", "20000"); out.Code != 0 || !strings.Contains(out.Stdout, "mcp-ran-42") {
		t.Errorf("run wait of the agent's MCP run: %s", out)
	}
	w.waitScreen(t, p.ID, "mcp run finished")
}

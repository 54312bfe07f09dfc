package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// realAgentMCP is how an agent registers signaltty's MCP server as
// docs/mcp.md, "Registering the server", says, and the name it gives the
// server's run tool.
type realAgentMCP struct {
	register func(t *testing.T, w *realWorld)
	run      string // the run tool as the agent declares it to the model
	// search, when set, is the tool call that makes the run tool visible
	// first (Claude Code keeps MCP tools behind its tool search).
	search *harness.Step
}

var realAgentMCPs = map[string]realAgentMCP{
	"claude": {
		register: func(t *testing.T, w *realWorld) {
			w.agentCLI(t, "mcp", "add", "-s", "user", "signaltty", "--", "signaltty", "mcp")
		},
		run: "mcp__signaltty__run",
		search: &harness.Step{Tool: "ToolSearch|mcp__signaltty__run",
			Input: map[string]any{"query": "select:mcp__signaltty__run"}},
	},
	"gemini": {
		register: func(t *testing.T, w *realWorld) {
			w.agentCLI(t, "mcp", "add", "-s", "user", "signaltty", "signaltty", "mcp")
		},
		// Gemini CLI names an MCP tool mcp_SERVER_TOOL (generateValidName in
		// its bundle).
		run: "mcp_signaltty_run",
	},
	"opencode": {
		register: func(t *testing.T, w *realWorld) {
			editOpencodeConfig(t, w, func(conf map[string]any) {
				conf["mcp"] = map[string]any{"signaltty": map[string]any{
					"type": "local", "command": []string{"signaltty", "mcp"}, "enabled": true}}
			})
		},
		// opencode names an MCP tool SERVER_TOOL.
		run: "signaltty_run",
	},
	"pi": {},
}

// editOpencodeConfig changes opencode's opencode.json in the world's HOME.
func editOpencodeConfig(t *testing.T, w *realWorld, edit func(conf map[string]any)) {
	t.Helper()
	f := filepath.Join(w.d.Home, ".config", "opencode", "opencode.json")
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	var conf map[string]any
	if err := json.Unmarshal(b, &conf); err != nil {
		t.Fatal(err)
	}
	edit(conf)
	writeJSONFile(t, f, conf)
}

// agentCLI runs the agent's own command line (not in a pane) with the
// panes' environment and the daemon's address.
func (w *realWorld) agentCLI(t *testing.T, args ...string) {
	t.Helper()
	env := append(w.d.ClientEnv(), w.env...)
	bin := filepath.Join(harness.AgentsBin(t, w.agent.command), w.agent.command)
	if r := harness.Run(t, env, bin, args...); r.Code != 0 {
		t.Fatalf("%s %v: %s", w.agent.command, args, r)
	}
}

// unquoted undoes one level of JSON string quoting, for an agent that
// passes a tool's JSON result on inside a JSON string.
func unquoted(s string) string {
	return strings.ReplaceAll(s, `\"`, `"`)
}

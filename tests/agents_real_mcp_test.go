package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
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

// An agent with signaltty's MCP server registered as the docs say runs a
// command with the MCP run tool in its own workspace, with the default
// grants, and gets the run's record back.
func TestRealAgentRunsInItsOwnWorkspaceThroughMCP(t *testing.T) {
	forEachAgent(t, []string{"claude", "gemini", "opencode", "pi"}, func(t *testing.T, kind string) {
		m := realAgentMCPs[kind]
		w := newRealWorld(t, kind, nil)
		ws := w.workspace(t, "proj")
		m.register(t, w)
		args := map[string]any{"key": "mcp-8c2a", "workspace": ws, "shell": "echo mcp-ran-$((6*7))"}
		var steps []harness.Step
		if m.search != nil {
			s := *m.search
			s.Input = map[string]any{}
			for k, v := range m.search.Input {
				s.Input[k] = v
			}
			for k, v := range args {
				s.Input[k] = v
			}
			steps = append(steps, s)
		}
		steps = append(steps, harness.Step{Tool: m.run, Input: args}, harness.Step{Text: "mcp run finished"})
		w.model.Script(harness.Turn{Prompt: "mcp-8c2a", Steps: steps})
		p := w.start(t, ws)
		defer w.dumpOnFailure(t, p.ID)
		w.prompt(t, p.ID, "mcp-8c2a")
		// An agent that asks before an MCP tool call: allow it once.
		approve(t, w, p.ID)
		r := w.model.WaitRequest(t, agentTimeout, "carrying the MCP run's result", func(r harness.ModelRequest) bool {
			res := unquoted(strings.Join(r.ToolResults(), "\n"))
			return regexp.MustCompile(`"run":"r[0-9]+"`).MatchString(res) || strings.Contains(res, "denied")
		})
		// The run tool answers with the started run's record; its output
		// comes from the daemon's own record of that run.
		res := unquoted(strings.Join(r.ToolResults(), "\n"))
		mm := regexp.MustCompile(`"run":"(r[0-9]+)"`).FindStringSubmatch(res)
		if strings.Contains(res, "denied") || mm == nil {
			t.Fatalf("the MCP run in the agent's own workspace came back:\n%s", res)
		}
		// MCP leaves the workspace the agent sent out of the result
		// (docs/mcp.md, "Small results"); the daemon's record has it.
		if got := w.d.CLI(t, "--json", "run", "get", "--run", mm[1], "--output=false"); !strings.Contains(got.Stdout, `"workspace":"`+ws+`"`) {
			t.Fatalf("the MCP run is not in the agent's own workspace: %s", got.Stdout)
		}
		if out := w.d.CLI(t, "run", "wait", "--run", mm[1], "--timeout-ms", "20000"); out.Code != 0 || !strings.Contains(out.Stdout, "mcp-ran-42") {
			t.Errorf("run wait of the agent's MCP run: %s", out)
		}
		w.waitScreen(t, p.ID, "mcp run finished")
	})
}

// unquoted undoes one level of JSON string quoting, for an agent that
// passes a tool's JSON result on inside a JSON string.
func unquoted(s string) string {
	return strings.ReplaceAll(s, `\"`, `"`)
}

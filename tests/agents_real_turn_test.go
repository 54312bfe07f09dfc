package tests

import (
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// Each real agent starts in a pane, shows its UI, sends a typed prompt to
// the scripted model and renders the model's answer on the pane's screen.
func TestRealAgentAnswersAPromptInItsPane(t *testing.T) {
	forEachAgent(t, realAgentOrder, func(t *testing.T, kind string) {
		answer := "PONG from the scripted model for " + kind
		w := newRealWorld(t, kind, nil, harness.Say("ping-7f3a", answer))
		ws := w.workspace(t, "proj")
		p := w.start(t, ws)
		req := w.prompt(t, p.ID, "ping-7f3a")
		if req.Model == "" || len(req.Tools) == 0 {
			t.Errorf("the prompt's request names model %q and %d tools; want the configured model and the agent's tools", req.Model, len(req.Tools))
		}
		c := w.waitScreen(t, p.ID, answer)
		if strings.ContainsRune(strings.Join(c.Lines, "\n"), '\uFFFD') {
			t.Errorf("the screen holds U+FFFD:\n%s", c.Dump())
		}
	})
}

// Each real agent runs a shell command the model asks for through its own
// shell tool in the pane's working directory, and sends its output back.
func TestRealAgentRunsTheModelsShellToolCall(t *testing.T) {
	forEachAgent(t, realAgentOrder, func(t *testing.T, kind string) {
		a := realAgents[kind]
		w := newRealWorld(t, kind, nil)
		w.model.Script(harness.Turn{Prompt: "tool-5c1e", Steps: []harness.Step{
			// No $(( )): Gemini CLI refuses a command line holding "$(" as
			// command substitution. The output is not in the command line.
			{Tool: a.shell, Input: a.shellInput("printf 'shell-said-%s\\n' 42 > out.txt; cat out.txt")},
			{Text: "the command ran"}}})
		ws := w.workspace(t, "proj")
		p := w.start(t, ws, "--env", "SIGNALTTY_TEST_NONCE=1")
		defer w.dumpOnFailure(t, p.ID)
		w.prompt(t, p.ID, "tool-5c1e")
		// Agents that ask before a shell command: approve it.
		approve(t, w, p.ID)
		r := w.model.WaitRequest(t, agentTimeout, "carrying the shell tool's result", func(r harness.ModelRequest) bool {
			return strings.Contains(strings.Join(r.ToolResults(), "\n"), "shell-said-42")
		})
		_ = r
		w.waitScreen(t, p.ID, "the command ran")
	})
}

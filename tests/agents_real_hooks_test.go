package tests

import (
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// Through a turn, the hooks give the pane its agent kind and session id,
// idle once started, and done when the turn ended.
func TestRealAgentHooksGiveSessionAndLifecycleThroughATurn(t *testing.T) {
	forEachAgent(t, realAgentOrder, func(t *testing.T, kind string) {
		w := newRealWorld(t, kind, nil, harness.Say("turn-91b2", "turn answered"))
		ws := w.workspace(t, "proj")
		p := w.start(t, ws)
		if p.Agent == nil || p.Agent.Kind != kind {
			t.Errorf("spawned pane's agent %+v, want kind %s", p.Agent, kind)
		}
		if !w.agent.sessionAtFirstPrompt {
			w.waitPane(t, p.ID, "a session id from the agent's hooks", func(p agentPane) bool { return p.session() != "" })
		}
		w.prompt(t, p.ID, "turn-91b2")
		w.waitPane(t, p.ID, "a session id from the agent's hooks", func(p agentPane) bool { return p.session() != "" })
		w.waitScreen(t, p.ID, "turn answered")
		got := w.waitPane(t, p.ID, "lifecycle done after the turn", func(p agentPane) bool { return p.Lifecycle == "done" })
		if got.Attention == "permission_required" || got.Attention == "input_required" || got.Attention == "error" {
			t.Errorf("attention %s after a plain turn", got.Attention)
		}
	})
}

// A shell command the agent asks permission for makes the pane blocked
// with permission_required while the dialog is open; once it is answered
// the pane works again and the turn ends done with the permission gone.
func TestRealAgentPermissionDialogBlocksThenClears(t *testing.T) {
	forEachAgent(t, []string{"claude", "gemini", "opencode", "pi"}, func(t *testing.T, kind string) {
		a := realAgents[kind]
		w := newRealWorld(t, kind, nil, harness.Turn{Prompt: "perm-3d0c", Steps: []harness.Step{
			{Tool: a.shell, Input: a.shellInput("touch perm-file && echo perm-said-$((6*7))")}, {Text: "permission used"}}})
		if kind == "opencode" {
			// opencode asks only where its "permission" setting says "ask".
			editOpencodeConfig(t, w, func(conf map[string]any) { conf["permission"] = map[string]any{"bash": "ask"} })
		}
		ws := w.workspace(t, "proj")
		p := w.start(t, ws)
		w.prompt(t, p.ID, "perm-3d0c")
		w.waitPane(t, p.ID, "blocked with permission_required while the dialog is open", func(p agentPane) bool {
			return p.Lifecycle == "blocked" && p.Attention == "permission_required"
		})
		approve(t, w, p.ID)
		w.waitScreen(t, p.ID, "permission used")
		w.waitPane(t, p.ID, "done without permission_required after the answered dialog", func(p agentPane) bool {
			return p.Lifecycle == "done" && p.Attention != "permission_required"
		})
	})
}

// An API error that ends the turn shows: the pane is not left working.
func TestRealAgentAPIErrorEndsTheTurnFailed(t *testing.T) {
	forEachAgent(t, []string{"claude", "gemini", "opencode", "pi"}, func(t *testing.T, kind string) {
		w := newRealWorld(t, kind, nil, harness.Fail("fail-6a7e", 400, "scripted failure"))
		ws := w.workspace(t, "proj")
		p := w.start(t, ws)
		w.prompt(t, p.ID, "fail-6a7e")
		w.waitPane(t, p.ID, "failed or error attention after the API error", func(p agentPane) bool {
			return p.Lifecycle == "failed" || p.Attention == "error"
		})
	})
}

// The pane knows the model the agent talks to, as the hooks give it.
func TestRealAgentPaneKnowsItsModel(t *testing.T) {
	forEachAgent(t, realAgentOrder, func(t *testing.T, kind string) {
		w := newRealWorld(t, kind, nil, harness.Say("model-2f4d", "model answered"))
		ws := w.workspace(t, "proj")
		p := w.start(t, ws)
		req := w.prompt(t, p.ID, "model-2f4d")
		w.waitScreen(t, p.ID, "model answered")
		harness.Eventually(t, agentTimeout, "the pane's agent.model is "+req.Model, func() (bool, string) {
			var r struct {
				Pane struct {
					Agent struct {
						Model string `json:"model"`
					} `json:"agent"`
				} `json:"pane"`
			}
			out := w.d.JSON(t, &r, "pane", "get", "--pane", p.ID)
			return r.Pane.Agent.Model == req.Model, out
		})
	})
}

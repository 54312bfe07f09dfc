package tests

import (
	"path/filepath"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// resumeAgents are the agents with an official resume (docs/agents.md).
var resumeAgents = []string{"claude", "codex", "gemini", "pi"}

// firstTurn has the agent in pane answer prompt with answer and waits for
// its session id.
func (w *realWorld) firstTurn(t *testing.T, pane, prompt, answer string) string {
	t.Helper()
	w.prompt(t, pane, prompt)
	w.waitScreen(t, pane, answer)
	return w.waitPane(t, pane, "a session id", func(p agentPane) bool { return p.session() != "" }).session()
}

// resumeAndAsk checks pane is RESUMABLE with sid, resumes it (extra resume flags),
// waits for the agent's UI and checks that the next prompt reaches the
// model with the old conversation.
func (w *realWorld) resumeAndAsk(t *testing.T, pane, sid, oldPrompt, oldAnswer, next string, flags ...string) {
	t.Helper()
	if p := getAgentPane(t, w.d, pane); p.RestoreState != "RESUMABLE" || p.session() != sid {
		t.Fatalf("pane after the restart: restore_state %s session %q, want RESUMABLE with %q", p.RestoreState, p.session(), sid)
	}
	w.d.JSON(t, nil, append([]string{"resume"}, append(flags, pane)...)...)
	w.waitReady(t, pane)
	req := w.prompt(t, pane, next)
	if !req.Prompted(oldPrompt) || !req.Said(oldAnswer) {
		t.Errorf("the first prompt after the resume did not carry the old conversation (%q, %q):\n%s", oldPrompt, oldAnswer, w.model.Dump())
	}
}

// kill -9 of the daemon: the agent pane comes back RESUMABLE with its
// session id, `resume` starts the agent's own resume, and the next prompt
// reaches the model with the old conversation.
func TestRealAgentResumesItsConversationAfterDaemonKill9(t *testing.T) {
	forEachAgent(t, resumeAgents, func(t *testing.T, kind string) {
		w := newRealWorld(t, kind, nil, harness.Say("before-4e1a", "answer before the crash"),
			harness.Say("after-4e1a", "answer after the resume"))
		ws := w.workspace(t, "proj")
		p := w.start(t, ws)
		sid := w.firstTurn(t, p.ID, "before-4e1a", "answer before the crash")
		w.waitSaved(t, sid)
		w.d.Crash(t)
		w.restart(t)
		w.resumeAndAsk(t, p.ID, sid, "before-4e1a", "answer before the crash", "after-4e1a")
		w.waitScreen(t, p.ID, "answer after the resume")
	})
}

// Credentials given at spawn with --env are never saved: after a restart
// `resume --env` gives them to the resumed agent.
func TestRealClaudeResumeTakesTheCredentialsWithEnv(t *testing.T) {
	w := newRealWorld(t, "claude", nil, harness.Say("env-before-77c0", "env answer before"), harness.Say("env-after-77c0", "env answer after"))
	// No credentials in Claude's own settings: only the spawn's environment.
	writeJSONFile(t, filepath.Join(w.d.Home, ".claude", "settings.json"), map[string]any{
		"permissions": map[string]any{"defaultMode": "default"}})
	w.d.CLI(t, "agent", "setup", "claude", "--write", "--command", harness.Bin(t, "signaltty"))
	creds := []string{"--env", "ANTHROPIC_BASE_URL=" + w.model.URL, "--env", "ANTHROPIC_API_KEY=sk-scripted"}
	ws := w.workspace(t, "proj")
	p := w.start(t, ws, creds...)
	sid := w.firstTurn(t, p.ID, "env-before-77c0", "env answer before")
	w.d.Crash(t)
	w.restart(t)
	w.resumeAndAsk(t, p.ID, sid, "env-before-77c0", "env answer before", "env-after-77c0", creds...)
}

// Three Claude Code panes in three worktrees of one repository each resume
// their own session after kill -9 of the daemon.
func TestRealClaudeThreeWorktreesEachResumeTheirOwnSession(t *testing.T) {
	branches := []string{"b1", "b2", "b3"}
	w := newRealWorld(t, "claude", branches)
	panes := map[string]string{}
	sids := map[string]string{}
	for _, b := range branches {
		w.model.Script(harness.Say("first-"+b+"-c41d", "answer in "+b), harness.Say("again-"+b+"-c41d", "again in "+b))
		var r struct {
			Workspace harness.Workspace `json:"workspace"`
		}
		w.d.JSON(t, &r, "workspace", "create", "--name", b, "--worktree", b, "--repo", w.repo)
		p := w.start(t, r.Workspace.ID)
		panes[b] = p.ID
	}
	for _, b := range branches {
		sids[b] = w.firstTurn(t, panes[b], "first-"+b+"-c41d", "answer in "+b)
	}
	if sids["b1"] == sids["b2"] || sids["b2"] == sids["b3"] || sids["b1"] == sids["b3"] {
		t.Fatalf("three panes share a session id: %v", sids)
	}
	w.d.Crash(t)
	w.restart(t)
	for _, b := range branches {
		w.resumeAndAsk(t, panes[b], sids[b], "first-"+b+"-c41d", "answer in "+b, "again-"+b+"-c41d")
	}
	for _, r := range w.model.Requests() {
		for _, b := range branches {
			if r.Prompted("again-"+b+"-c41d") && r.Answer != "side" {
				for _, other := range branches {
					if other != b && r.Prompted("first-"+other+"-c41d") {
						t.Errorf("the resumed session of %s carried the conversation of %s", b, other)
					}
				}
			}
		}
	}
}

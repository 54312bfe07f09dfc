package tests

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// resumeAgents are the agents with an official resume (docs/agents.md).
var resumeAgents = []string{"claude", "codex", "gemini", "opencode", "pi"}

// firstTurn has the agent in pane answer prompt with answer and waits for
// its session id.
func (w *realWorld) firstTurn(t *testing.T, pane, prompt, answer string) string {
	t.Helper()
	w.prompt(t, pane, prompt)
	w.waitScreen(t, pane, answer)
	// The turn has ended and the agent has written its conversation down
	// before anything kills it: on a loaded machine the answer can be on
	// screen, and the turn reported done, well before the agent's own
	// session file holds it, and a pane's process dies with the daemon.
	sid := w.waitPane(t, pane, "a session id and the turn done", func(p agentPane) bool {
		return p.session() != "" && p.Lifecycle == "done"
	}).session()
	w.waitAgentWrote(t, answer)
	return sid
}

// waitAgentWrote waits until a file under the agent's HOME (its own
// session store: Claude's and Codex's JSONL transcripts, Gemini's chat
// files, opencode's storage, pi's sessions) holds text.
func (w *realWorld) waitAgentWrote(t *testing.T, text string) {
	t.Helper()
	harness.Eventually(t, agentTimeout, "the agent's session files hold "+strconv.Quote(text), func() (bool, string) {
		found := false
		_ = filepath.WalkDir(w.d.Home, func(path string, d fs.DirEntry, err error) error {
			if err != nil || found {
				return nil
			}
			if d.IsDir() {
				if d.Name() == "node_modules" {
					return filepath.SkipDir
				}
				return nil
			}
			if info, err := d.Info(); err != nil || !info.Mode().IsRegular() || info.Size() > 64<<20 {
				return nil
			}
			b, err := os.ReadFile(path)
			found = err == nil && bytes.Contains(b, []byte(text))
			return nil
		})
		return found, "no file under " + w.d.Home + " holds it"
	})
}

// crashOnceSaved kills the daemon with SIGKILL once its saved snapshot
// holds every one of sids.
func (w *realWorld) crashOnceSaved(t *testing.T, sids ...string) {
	t.Helper()
	w.waitSaved(t, sids...)
	w.d.Crash(t)
}

// waitSaved waits until the daemon's saved snapshot holds every one of
// sids: a change reaches the disk within about 2 s (docs/persistence.md,
// "When"), and a kill -9 before that loses it.
func (w *realWorld) waitSaved(t *testing.T, sids ...string) {
	t.Helper()
	file := filepath.Join(w.d.Dir, "state", "signaltty", "snapshot.json")
	harness.Eventually(t, agentTimeout, "the snapshot holds the session ids", func() (bool, string) {
		b, _ := os.ReadFile(file)
		for _, sid := range sids {
			if !strings.Contains(string(b), sid) {
				return false, "no " + sid + " in " + file
			}
		}
		return true, ""
	})
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
		w.crashOnceSaved(t, sid)
		w.restart(t)
		w.resumeAndAsk(t, p.ID, sid, "before-4e1a", "answer before the crash", "after-4e1a")
		w.waitScreen(t, p.ID, "answer after the resume")
	})
}

// Credentials given at spawn with --env are never saved: after a restart
// `resume --env` gives them to the resumed agent.
func TestRealAgentResumeTakesTheCredentialsWithEnv(t *testing.T) {
	forEachAgent(t, []string{"claude", "gemini"}, func(t *testing.T, kind string) {
		w := newRealWorld(t, kind, nil, harness.Say("env-before-77c0", "env answer before"), harness.Say("env-after-77c0", "env answer after"))
		// No credentials in the agent's own settings: only the spawn's
		// environment.
		var creds []string
		switch kind {
		case "claude":
			writeJSONFile(t, filepath.Join(w.d.Home, ".claude", "settings.json"), map[string]any{
				"permissions": map[string]any{"defaultMode": "default"}})
			w.d.CLI(t, "agent", "setup", "claude", "--write", "--command", harness.Bin(t, "signaltty"))
			creds = []string{"--env", "ANTHROPIC_BASE_URL=" + w.model.URL, "--env", "ANTHROPIC_API_KEY=sk-scripted"}
		case "gemini":
			if err := os.Remove(filepath.Join(w.d.Home, ".gemini", ".env")); err != nil {
				t.Fatal(err)
			}
			creds = []string{"--env", "GOOGLE_GEMINI_BASE_URL=" + w.model.URL, "--env", "GEMINI_API_KEY=sk-scripted"}
		}
		ws := w.workspace(t, "proj")
		p := w.start(t, ws, creds...)
		sid := w.firstTurn(t, p.ID, "env-before-77c0", "env answer before")
		w.crashOnceSaved(t, sid)
		w.restart(t)
		w.resumeAndAsk(t, p.ID, sid, "env-before-77c0", "env answer before", "env-after-77c0", creds...)
	})
}

// Three panes of one agent in three worktrees of one repository each
// resume their own session after kill -9 of the daemon.
func TestRealAgentThreeWorktreesEachResumeTheirOwnSession(t *testing.T) {
	forEachAgent(t, resumeAgents, func(t *testing.T, kind string) {
		branches := []string{"b1", "b2", "b3"}
		w := newRealWorld(t, kind, branches)
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
		w.crashOnceSaved(t, sids["b1"], sids["b2"], sids["b3"])
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
	})
}

// A workspace with auto-resume: after SIGTERM of the daemon the next
// daemon resumes the agent pane by itself, and the next prompt reaches
// the model with the old conversation.
func TestRealAgentAutoResumesAfterDaemonSIGTERM(t *testing.T) {
	forEachAgent(t, resumeAgents, func(t *testing.T, kind string) {
		w := newRealWorld(t, kind, nil, harness.Say("term-before-2b6f", "answer before the stop"),
			harness.Say("term-after-2b6f", "answer after the auto-resume"))
		ws := w.workspace(t, "proj")
		w.d.JSON(t, nil, "workspace", "set", "--workspace", ws, "--auto-resume")
		p := w.start(t, ws)
		sid := w.firstTurn(t, p.ID, "term-before-2b6f", "answer before the stop")
		w.d.Stop(t)
		w.restart(t)
		got := w.waitPane(t, p.ID, "the pane auto-resumed (LIVE) with its session", func(q agentPane) bool {
			return q.RestoreState == "LIVE" && q.session() == sid
		})
		if got.Agent == nil || len(got.Agent.ResumeArgv) == 0 {
			t.Fatalf("auto-resumed pane without a resume command: %+v", got)
		}
		w.waitReady(t, p.ID)
		req := w.prompt(t, p.ID, "term-after-2b6f")
		if !req.Prompted("term-before-2b6f") || !req.Said("answer before the stop") {
			t.Errorf("the first prompt after the auto-resume did not carry the old conversation:\n%s", w.model.Dump())
		}
		w.waitScreen(t, p.ID, "answer after the auto-resume")
	})
}

// A shell pane in which the agent was started: after kill -9 of the
// daemon the pane is RESUMABLE with the agent's session, `resume` starts
// the shell again and types the agent's resume command into it, the
// conversation goes on, and the pane's command is still the shell.
func TestRealAgentStartedInAShellPaneResumesIntoTheShell(t *testing.T) {
	forEachAgent(t, resumeAgents, func(t *testing.T, kind string) {
		w := newRealWorld(t, kind, nil, harness.Say("shell-before-9d3e", "answer in the shell"),
			harness.Say("shell-after-9d3e", "answer after the shell resume"))
		ws := w.workspace(t, "proj")
		var r struct {
			Pane agentPane `json:"pane"`
		}
		w.d.JSON(t, &r, "pane", "spawn", "--workspace", ws, "--env", "PS1=$ ", "--", "bash", "--norc", "--noprofile", "-i")
		pane := r.Pane.ID
		w.waitScreen(t, pane, "$")
		w.d.Send(t, pane, w.agent.command+`\n`)
		w.waitReady(t, pane)
		w.waitPane(t, pane, "the shell pane promoted to "+kind, func(q agentPane) bool { return q.Agent != nil && q.Agent.Kind == kind })
		sid := w.firstTurn(t, pane, "shell-before-9d3e", "answer in the shell")
		w.crashOnceSaved(t, sid)
		w.restart(t)
		w.resumeAndAsk(t, pane, sid, "shell-before-9d3e", "answer in the shell", "shell-after-9d3e")
		w.waitScreen(t, pane, "answer after the shell resume")
		var g struct {
			Pane struct {
				Argv []string `json:"argv"`
			} `json:"pane"`
		}
		w.d.JSON(t, &g, "pane", "get", "--pane", pane)
		if len(g.Pane.Argv) == 0 || g.Pane.Argv[0] != "bash" {
			t.Errorf("the resumed shell pane runs %q, want the shell", g.Pane.Argv)
		}
	})
}

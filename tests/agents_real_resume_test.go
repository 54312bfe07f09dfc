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
	w.resume(t, pane, sid, flags...)
	w.askResumed(t, pane, oldPrompt, oldAnswer, next)
}

// resume checks pane is RESUMABLE with sid, resumes it (extra resume
// flags) and waits for the agent's UI, in a start-up slot.
func (w *realWorld) resume(t *testing.T, pane, sid string, flags ...string) {
	t.Helper()
	if p := getAgentPane(t, w.d, pane); p.RestoreState != "RESUMABLE" || p.session() != sid {
		t.Fatalf("pane after the restart: restore_state %s session %q, want RESUMABLE with %q", p.RestoreState, p.session(), sid)
	}
	release := startSlot(t)
	defer release()
	w.d.JSON(t, nil, append([]string{"resume"}, append(flags, pane)...)...)
	w.waitReady(t, pane)
}

// askResumed checks that the next prompt to the agent resumed in pane
// reaches the model with the old conversation.
func (w *realWorld) askResumed(t *testing.T, pane, oldPrompt, oldAnswer, next string) {
	t.Helper()
	req := w.prompt(t, pane, next)
	if !req.Prompted(oldPrompt) || !req.Said(oldAnswer) {
		t.Errorf("the first prompt after the resume did not carry the old conversation (%q, %q):\n%s", oldPrompt, oldAnswer, w.model.Dump())
	}
}

// kill -9 of the daemon with four panes of one agent: one in the
// repository, two in worktrees of it, and a shell in a third worktree in
// which the agent was started. Each comes back RESUMABLE with its own
// session id; `resume` starts the agent's own resume (in the shell pane:
// the shell again, with the agent's resume command typed into it); the
// next prompt in each reaches the model with that pane's old conversation
// and no other's; the shell pane's command is still the shell.
//
// Each pane works in a directory of its own: two Gemini CLI 0.61 sessions
// in one project directory leave the first one's chat file without its
// header, and `gemini --resume` then does not find it (docs/agents.md).
func TestRealAgentPanesResumeTheirOwnConversationsAfterDaemonKill9(t *testing.T) {
	forEachAgent(t, resumeAgents, func(t *testing.T, kind string) {
		worktrees := []string{"b1", "b2", "sh"}
		names := append([]string{"proj"}, worktrees...)
		w := newRealWorld(t, kind, worktrees)
		for _, n := range names {
			w.model.Script(harness.Say("first-"+n+"-c41d", "answer in "+n), harness.Say("again-"+n+"-c41d", "again in "+n))
		}
		panes, sids := map[string]string{}, map[string]string{}
		// One start at a time (startSlot): the first in the agent's HOME
		// also sets that up (opencode's database).
		panes["proj"] = w.start(t, w.workspace(t, "proj")).ID
		for _, b := range worktrees {
			var r struct {
				Workspace harness.Workspace `json:"workspace"`
				Pane      agentPane         `json:"pane"`
			}
			w.d.JSON(t, &r, "workspace", "create", "--name", b, "--worktree", b, "--repo", w.repo)
			if b != "sh" {
				panes[b] = w.start(t, r.Workspace.ID).ID
				continue
			}
			w.d.JSON(t, &r, "pane", "spawn", "--workspace", r.Workspace.ID, "--env", "PS1=$ ", "--", "bash", "--norc", "--noprofile", "-i")
			panes[b] = r.Pane.ID
			w.waitScreen(t, panes[b], "$")
			release := startSlot(t)
			w.d.Send(t, panes[b], w.agent.command+`\n`)
			w.waitReady(t, panes[b])
			release()
		}
		w.waitPane(t, panes["sh"], "the shell pane promoted to "+kind, func(q agentPane) bool { return q.Agent != nil && q.Agent.Kind == kind })
		for _, n := range names {
			sids[n] = w.firstTurn(t, panes[n], "first-"+n+"-c41d", "answer in "+n)
		}
		seen := map[string]string{}
		for _, n := range names {
			if other, ok := seen[sids[n]]; ok {
				t.Fatalf("the panes in %s and %s share the session id %s", other, n, sids[n])
			}
			seen[sids[n]] = n
		}
		all := make([]string, 0, len(names))
		for _, n := range names {
			all = append(all, sids[n])
		}
		w.crashOnceSaved(t, all...)
		w.restart(t)
		for _, n := range names {
			w.resume(t, panes[n], sids[n])
		}
		for _, n := range names {
			w.askResumed(t, panes[n], "first-"+n+"-c41d", "answer in "+n, "again-"+n+"-c41d")
			w.waitScreen(t, panes[n], "again in "+n)
		}
		for _, r := range w.model.Requests() {
			for _, n := range names {
				if r.Prompted("again-"+n+"-c41d") && r.Answer != "side" {
					for _, other := range names {
						if other != n && r.Prompted("first-"+other+"-c41d") {
							t.Errorf("the resumed session in %s carried the conversation of %s", n, other)
						}
					}
				}
			}
		}
		var g struct {
			Pane struct {
				Argv []string `json:"argv"`
			} `json:"pane"`
		}
		w.d.JSON(t, &g, "pane", "get", "--pane", panes["sh"])
		if len(g.Pane.Argv) == 0 || g.Pane.Argv[0] != "bash" {
			t.Errorf("the resumed shell pane runs %q, want the shell", g.Pane.Argv)
		}
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
		// The new daemon starts the agent's resume by itself.
		release := startSlot(t)
		defer release()
		w.restart(t)
		got := w.waitPane(t, p.ID, "the pane auto-resumed (LIVE) with its session", func(q agentPane) bool {
			return q.RestoreState == "LIVE" && q.session() == sid
		})
		if got.Agent == nil || len(got.Agent.ResumeArgv) == 0 {
			t.Fatalf("auto-resumed pane without a resume command: %+v", got)
		}
		w.waitReady(t, p.ID)
		release()
		req := w.prompt(t, p.ID, "term-after-2b6f")
		if !req.Prompted("term-before-2b6f") || !req.Said("answer before the stop") {
			t.Errorf("the first prompt after the auto-resume did not carry the old conversation:\n%s", w.model.Dump())
		}
		w.waitScreen(t, p.ID, "answer after the auto-resume")
	})
}

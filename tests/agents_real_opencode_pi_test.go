package tests

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// opencode and pi have no command hooks: `agent setup opencode --write`
// writes a plugin and `agent setup pi --write` an extension into the
// agent's configuration directory of the private HOME (docs/agents.md,
// "opencode", "pi"), and those make the pane's lifecycle and attention.

// lifecycleEvents subscribes to pane's agent lifecycle events.
func lifecycleEvents(t *testing.T, w *realWorld, pane string) *harness.Stream {
	return w.d.Subscribe(t, []string{"agent.idle", "agent.working", "agent.blocked", "agent.done", "agent.failed"}, []string{pane})
}

// lifecycles is the lifecycles s has seen, in order.
func lifecycles(s *harness.Stream) []string {
	var out []string
	for _, e := range s.Seen() {
		out = append(out, strings.TrimPrefix(e.Type, "agent."))
	}
	return out
}

// wantWorkingThenDone requires the turn's lifecycle events to go from
// working to done, with no done before the first working.
func wantWorkingThenDone(t *testing.T, s *harness.Stream) {
	t.Helper()
	var got []string
	harness.Eventually(t, agentTimeout, "agent.working then agent.done", func() (bool, string) {
		got = lifecycles(s)
		w := -1
		for i, l := range got {
			if l == "working" && w < 0 {
				w = i
			}
			if l == "done" && w >= 0 {
				return true, strings.Join(got, " ")
			}
		}
		return false, strings.Join(got, " ")
	})
	for _, l := range got {
		if l == "done" {
			t.Errorf("a done before the turn's working: %v", got)
		}
		if l == "working" {
			break
		}
	}
}

// permissionBlocksThenClears prompts the agent in pane with a turn whose
// tool call the agent asks permission for: the pane is blocked with
// permission_required while it asks, and once allowed (approve) the turn
// ends with answer on the screen, done, without permission_required.
func (w *realWorld) permissionBlocksThenClears(t *testing.T, pane, prompt, answer string) {
	t.Helper()
	w.prompt(t, pane, prompt)
	w.waitPane(t, pane, "blocked with permission_required while "+w.agent.kind+" asks", func(p agentPane) bool {
		return p.Lifecycle == "blocked" && p.Attention == "permission_required"
	})
	approve(t, w, pane, prompt)
	w.waitScreen(t, pane, answer)
	w.waitPane(t, pane, "done without permission_required after the answer", func(p agentPane) bool {
		return p.Lifecycle == "done" && p.Attention != "permission_required"
	})
}

// pi writes its session file only after the first message: a pi pane
// the daemon lost before that comes back RESTORED, not RESUMABLE (there
// is nothing `pi --session` could open); one lost after it comes back
// RESUMABLE and `pi --session` brings the conversation back.
func TestRealPiIsResumableOnlyAfterItsFirstMessage(t *testing.T) {
	forEachAgent(t, []string{"pi"}, func(t *testing.T, kind string) {
		w := newRealWorld(t, kind, nil, harness.Say("pi-first-9c3e", "pi first answer"), harness.Say("pi-next-9c3e", "pi next answer"))
		ws := w.workspace(t, "proj")
		early := w.start(t, ws)
		// The extension has reported session_start (without a session id:
		// no file yet).
		got := w.waitPane(t, early.ID, "idle after session_start", func(p agentPane) bool { return p.Lifecycle == "idle" })
		if got.session() != "" {
			t.Errorf("before its first message the pi pane has session %q", got.session())
		}
		late := w.start(t, ws)
		sid := w.firstTurn(t, late.ID, "pi-first-9c3e", "pi first answer")
		w.crashOnceSaved(t, sid)
		w.restart(t)
		if p := getAgentPane(t, w.d, early.ID); p.RestoreState == "RESUMABLE" || p.session() != "" {
			t.Errorf("the pi pane lost before its first message: restore_state %s session %q, want not RESUMABLE", p.RestoreState, p.session())
		}
		if r := w.d.CLI(t, "resume", early.ID); r.Code == 0 || !strings.Contains(r.Stderr, "not_resumable") {
			t.Errorf("resume of the pi pane lost before its first message: %s", r)
		}
		w.resumeAndAsk(t, late.ID, sid, "pi-first-9c3e", "pi first answer", "pi-next-9c3e")
		w.waitScreen(t, late.ID, "pi next answer")
	})
}

func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

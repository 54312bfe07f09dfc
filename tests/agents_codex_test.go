package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// Codex's notify program gets its JSON as its last argument (kebab-case
// keys): `signaltty hook codex agent-turn-complete JSON` and `signaltty
// hook codex JSON` end the turn done with the thread's id, and arguments
// the hook cannot read never fail the agent (Codex takes exit 2 for a
// blocked prompt).
func TestHookReadsCodexNotifyJSONFromItsLastArgument(t *testing.T) {
	w := newAgentWorld(t)
	w.d.CLI(t, "workspace", "create", "--name", "proj")
	notify := `{"type":"agent-turn-complete","thread-id":"019a-notify-thread","turn-id":"t1","last-assistant-message":"notified"}`
	for _, args := range [][]string{{"agent-turn-complete", notify}, {notify}} {
		argv := append([]string{"sh", "-c", `signaltty hook codex "$@" </dev/null; echo "hook-exit=$?"; exec sleep 1000`, "sh"}, args...)
		sh := w.d.Spawn(t, []string{"--workspace", "proj", "--agent", "codex"}, argv...)
		p := waitAgent(t, w.d, sh.ID, "done with the notify thread's id", func(p agentPane) bool {
			return p.session() == "019a-notify-thread" && p.Lifecycle == "done"
		})
		if p.Attention != "unread" {
			t.Errorf("%d arguments: attention %s, want unread", len(args)+2, p.Attention)
		}
		w.d.WaitLine(t, sh.ID, "hook-exit=0")
	}
	for _, args := range [][]string{{}, {"Stop"}, {"Stop", "not json"}, {"a", "b", "c"}, {`{"no":"type"}`}} {
		r := harness.Run(t, w.d.ClientEnv(), harness.Bin(t, "signaltty"), append([]string{"hook", "codex"}, args...)...)
		if r.Code != 0 || r.Stdout != "" || (len(args) != 1 && !strings.Contains(r.Stderr, "signaltty hook:")) {
			t.Errorf("hook codex %q: %s", args, r)
		}
	}
}

// waitSaved waits until the daemon's saved snapshot holds text (a session
// id): a change reaches the disk within about 2 s (docs/persistence.md),
// so a kill -9 before that loses it.
func (w *realWorld) waitSaved(t *testing.T, text string) {
	t.Helper()
	harness.Eventually(t, agentTimeout, "the snapshot on disk holds "+text, func() (bool, string) {
		b, err := os.ReadFile(filepath.Join(stateDir(w.d), "snapshot.json"))
		return err == nil && strings.Contains(string(b), text), string(b)
	})
}

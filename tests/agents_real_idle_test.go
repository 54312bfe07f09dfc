package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// Claude Code sends a Notification hook of type idle_prompt 60 s after a
// finished turn: the pane stays done, and nothing asks for input
// (docs/agents.md, "Attention").
func TestRealClaudeIdlePromptLeavesTheFinishedPaneAlone(t *testing.T) {
	t.Parallel()
	w := newRealWorld(t, "claude", nil, harness.Say("idle-4b7e", "idle answered"))
	// The hooks run signaltty through a script that keeps what each hook
	// was given, to see the idle_prompt arrive.
	log := filepath.Join(w.d.Home, "hooks.log")
	wrapper := filepath.Join(w.d.Home, "signaltty-hook")
	writeFile(t, wrapper, "#!/bin/sh\nprintf '%s\\n' \"$*\" >> "+log+"\ntee -a "+log+" | "+harness.Bin(t, "signaltty")+" \"$@\"\n"+
		"printf '\\nhandled %s\\n' \"$*\" >> "+log+"\n")
	if err := os.Chmod(wrapper, 0o755); err != nil {
		t.Fatal(err)
	}
	w.d.CLI(t, "agent", "setup", "claude", "--write", "--command", wrapper)
	ws := w.workspace(t, "proj")
	p := w.start(t, ws)
	defer w.dumpOnFailure(t, p.ID)
	w.prompt(t, p.ID, "idle-4b7e")
	w.waitScreen(t, p.ID, "idle answered")
	w.waitPane(t, p.ID, "lifecycle done after the turn", func(p agentPane) bool { return p.Lifecycle == "done" })
	// Claude's idle notification comes 60 s after the turn.
	harness.Eventually(t, 3*time.Minute, "Claude's idle_prompt notification", func() (bool, string) {
		b, _ := os.ReadFile(log)
		s := string(b)
		i := strings.Index(s, "idle_prompt")
		return i >= 0 && strings.Contains(s[i:], "handled hook claude Notification"), s
	})
	got := getAgentPane(t, w.d, p.ID)
	if got.Lifecycle != "done" || got.Attention == "input_required" || got.Attention == "permission_required" {
		t.Errorf("after Claude's idle_prompt the pane is %s/%s, want done without a question", got.Lifecycle, got.Attention)
	}
}

package tests

import (
	"fmt"
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
	t.Parallel()
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

// escalated is a Codex shell call's input asking to run outside the
// sandbox, which Codex asks the user about.
func escalated(in map[string]any) map[string]any {
	in["sandbox_permissions"] = "require_escalated"
	in["justification"] = "the test asks for it"
	return in
}

// addCodexMCP registers signaltty's MCP server with the world's Codex as
// docs/mcp.md shows it.
func addCodexMCP(t *testing.T, w *realWorld) {
	t.Helper()
	f := filepath.Join(w.d.Home, ".codex", "config.toml")
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, f, string(b)+fmt.Sprintf("\n[mcp_servers.signaltty]\ncommand = %q\nargs = [\"mcp\"]\nenv_vars = [\"XDG_RUNTIME_DIR\", \"SIGNALTTY_ADDRESS\", \"SIGNALTTY_PANE\"]\ntool_timeout_sec = 300\n", harness.Bin(t, "signaltty")))
}

// codexMCPTool is how Codex names an MCP tool of signaltty's server.
// (a function of the namespace "mcp__signaltty").
func codexMCPTool(name string) string { return "mcp__signaltty." + name + "|mcp__signaltty__" + name }

// Two Codex panes with the default Codex config and `agent setup codex
// --write`: each codex runs its own MCP server inside its pane, so each
// is its own principal. B's whoami is B's pane, never A's or the owner:
// while A runs, after A's codex has exited, and after kill -9 of the
// daemon and B's resume.
func TestRealCodexPanesAreEachTheirOwnPrincipal(t *testing.T) {
	forEachAgent(t, []string{"codex"}, func(t *testing.T, kind string) {
		w := newRealWorld(t, kind, nil, harness.Say("who-a0", "a answered"))
		addCodexMCP(t, w)
		for _, k := range []string{"b1", "b2", "b3"} {
			w.model.Script(harness.CallTool("who-"+k, codexMCPTool("whoami"), map[string]any{}, "whoami "+k+" done"))
		}
		ws := w.workspace(t, "proj")
		a := w.start(t, ws)
		b := w.start(t, ws)
		w.prompt(t, a.ID, "who-a0")
		w.waitScreen(t, a.ID, "a answered")
		who := func(k string) {
			t.Helper()
			w.prompt(t, b.ID, "who-"+k)
			r := allowCodexMCP(t, w, b.ID, "who-"+k)
			res := r.ToolResults()[len(r.ToolResults())-1]
			if !strings.Contains(res, b.ID) || strings.Contains(res, a.ID) || strings.Contains(res, "owner") {
				t.Errorf("%s: B's whoami is not B's pane %s (A is %s):\n%s", k, b.ID, a.ID, res)
			}
			w.waitScreen(t, b.ID, "whoami "+k+" done")
		}
		who("b1")
		w.d.Kill(t, a.ID)
		w.d.WaitExited(t, a.ID)
		who("b2")
		sid := w.waitPane(t, b.ID, "B's session id", func(p agentPane) bool { return p.session() != "" }).session()
		w.crashOnceSaved(t, sid)
		w.restart(t)
		w.d.JSON(t, nil, "resume", b.ID)
		w.waitReady(t, b.ID)
		who("b3")
	})
}

// doctor warns when Codex calls signaltty with its shared app-server on
// (daemon_auto_start, Codex's default), and no longer once `agent setup
// codex --write` turned it off.
func TestDoctorNamesCodexSharedAppServer(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	home := harness.TempDir(t)
	env := append(d.ClientEnv(), "HOME="+home, "CODEX_HOME=")
	writeFile(t, filepath.Join(home, ".codex", "config.toml"), "[mcp_servers.signaltty]\ncommand = \"signaltty\"\nargs = [\"mcp\"]\n")
	if r := harness.Run(t, env, harness.Bin(t, "signaltty"), "doctor"); r.Code != 0 || !strings.Contains(r.Stdout, "daemon_auto_start on") {
		t.Errorf("doctor with Codex's shared app-server on:\n%s", r)
	}
	if r := harness.Run(t, env, harness.Bin(t, "signaltty"), "agent", "setup", "codex", "--write"); r.Code != 0 {
		t.Fatalf("setup: %s", r)
	}
	if r := harness.Run(t, env, harness.Bin(t, "signaltty"), "doctor"); r.Code != 0 || strings.Contains(r.Stdout, "daemon_auto_start on") {
		t.Errorf("doctor after agent setup codex --write:\n%s", r)
	}
}

// Codex's API key given at spawn with --env (its provider's env_key) is
// never saved: after kill -9 of the daemon `resume --env` gives it to the
// resumed codex, whose next prompt reaches the model with the old
// conversation.
func TestRealCodexResumeTakesTheCredentialsWithEnv(t *testing.T) {
	forEachAgent(t, []string{"codex"}, func(t *testing.T, kind string) {
		w := newRealWorld(t, kind, nil, harness.Say("env-before-3b8e", "env answer before"), harness.Say("env-after-3b8e", "env answer after"))
		f := filepath.Join(w.d.Home, ".codex", "config.toml")
		b, _ := os.ReadFile(f)
		if !strings.Contains(string(b), `experimental_bearer_token = "sk-scripted"`) {
			t.Fatalf("config.toml:\n%s", b)
		}
		writeFile(t, f, strings.Replace(string(b), `experimental_bearer_token = "sk-scripted"`, `env_key = "SCRIPTED_API_KEY"`, 1))
		creds := []string{"--env", "SCRIPTED_API_KEY=sk-scripted"}
		ws := w.workspace(t, "proj")
		p := w.start(t, ws, creds...)
		sid := w.firstTurn(t, p.ID, "env-before-3b8e", "env answer before")
		w.waitSaved(t, sid)
		grepTree(t, stateDir(w.d), "sk-scripted")
		w.d.Crash(t)
		w.restart(t)
		w.resumeAndAsk(t, p.ID, sid, "env-before-3b8e", "env answer before", "env-after-3b8e", creds...)
		w.waitScreen(t, p.ID, "env answer after")
	})
}

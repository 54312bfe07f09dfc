package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// The real coding agents (installed by tests/harness/get-agents.sh at the
// versions of tests/harness/agents.pins) in real panes of a real daemon,
// talking to the scripted model server of tests/harness/model.go on
// 127.0.0.1. Each test has its own daemon, HOME and model server, so the
// tests run in parallel; each agent step has its own deadline.

// agentTimeout bounds one step of a real agent (a turn, a screen, an
// event), and agentStartTimeout its start-up and its first request: they
// are programs of hundreds of megabytes, several starting at once beside
// the other tests on two cores. The bounds only keep a hung agent from
// holding the run; a step takes seconds on an idle machine.
const (
	agentTimeout      = 2 * time.Minute
	agentStartTimeout = 3 * time.Minute
)

// realAgent is how one real agent is pointed at the scripted model.
type realAgent struct {
	kind    string // the agent kind signaltty gives its pane
	command string // its command in the agents' bin directory
	// ready is text its screen shows once it waits for a prompt, within
	// agentStartTimeout, which also bounds the wait for a prompt's
	// request (an agent may set up more at its first prompt).
	ready string
	// shell names the agent's shell tool ("|"-separated alternatives, see
	// harness.Step) and shellInput its arguments for a command line.
	shell      string
	shellInput func(cmdline string) map[string]any
	// configure writes the agent's own settings into home for the model at
	// url; dirs are the working directories it will run in.
	configure func(t *testing.T, home, url string, dirs []string)
	// env is what the pane's environment needs beyond its settings.
	env []string
	// hooks: `signaltty agent setup KIND --write` installs its hooks,
	// plugin or extension.
	hooks bool
	// sessionAtFirstPrompt: its session starts (and its SessionStart hook
	// runs) with the first prompt, not at start.
	sessionAtFirstPrompt bool
	// tolerate are hosts it asks for that no setting turns off.
	tolerate []string
	// logs are its own log files in its HOME (a glob), shown when a
	// step failed.
	logs string
	// dialogs are screens it may show at start, each with the keys that
	// answer it as a new user would.
	dialogs map[string][]string
}

var realAgents = map[string]realAgent{
	"claude": {
		kind: "claude", command: "claude", ready: "❯", hooks: true,
		shell:      "Bash",
		shellInput: func(c string) map[string]any { return map[string]any{"command": c, "description": "run it"} },
		configure:  configureClaude,
		env: []string{"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1",
			"DISABLE_UPDATES=1", "DISABLE_ERROR_REPORTING=1", "DISABLE_INSTALLATION_CHECKS=1",
			"CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL=1"},
	},
	"codex": {
		kind: "codex", command: "codex", ready: "Ask Codex", hooks: true, sessionAtFirstPrompt: true,
		shell: "exec_command|shell_command|shell",
		shellInput: func(c string) map[string]any {
			return map[string]any{"cmd": c, "command": c}
		},
		configure: configureCodex,
		// The TUI fetches its announcement tip from this URL at every start;
		// no setting turns that off (the proxy refuses it).
		// No "Hooks need review" screen: `agent setup codex --write` trusts
		// the hooks it installs.
		tolerate: []string{"raw.githubusercontent.com"},
	},
	"gemini": {
		kind: "gemini", command: "gemini", ready: "Type your message", hooks: true,
		shell:      "run_shell_command",
		shellInput: func(c string) map[string]any { return map[string]any{"command": c, "description": "run it"} },
		configure:  configureGemini,
	},
	"opencode": {
		kind: "opencode", command: "opencode", ready: "ctrl+p", hooks: true,
		// opencode creates its session (session.created) with the first
		// prompt.
		sessionAtFirstPrompt: true,
		shell:                "bash",
		shellInput:           func(c string) map[string]any { return map[string]any{"command": c, "description": "run it"} },
		configure:            configureOpencode,
		// Its first start in a new HOME creates and migrates its database
		// before it draws anything, and its first prompt starts its file
		// tracking and shell before the request: on a busy machine each
		// takes over a minute, within agentStartTimeout.
		logs: ".local/share/opencode/log/*.log",
		env:  []string{"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1"},
	},
	"pi": {
		kind: "pi", command: "pi", ready: "escape interrupt", hooks: true,
		// pi writes its session file with the first message; the extension
		// passes the session id only then (docs/agents.md, "pi").
		sessionAtFirstPrompt: true,
		shell:                "bash",
		shellInput:           func(c string) map[string]any { return map[string]any{"command": c} },
		configure:            configurePi,
		env:                  []string{"PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0"},
	},
}

// realAgentOrder is the order the per-agent subtests run in.
var realAgentOrder = []string{"claude", "codex", "gemini", "opencode", "pi"}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(b)+"\n")
}

// configureClaude: onboarding done, the directories trusted, the model
// server and key in settings.json "env" (which a resumed claude reads
// too), the default permission mode (a shell command asks).
func configureClaude(t *testing.T, home, url string, dirs []string) {
	projects := map[string]any{}
	for _, d := range dirs {
		projects[d] = map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}
	}
	writeJSONFile(t, filepath.Join(home, ".claude.json"), map[string]any{
		"hasCompletedOnboarding": true, "theme": "dark", "numStartups": 1,
		"customApiKeyResponses": map[string]any{"approved": []string{"sk-scripted"}, "rejected": []string{}},
		"projects":              projects,
	})
	writeJSONFile(t, filepath.Join(home, ".claude", "settings.json"), map[string]any{
		"env":         map[string]string{"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "sk-scripted"},
		"permissions": map[string]any{"defaultMode": "default", "allow": []string{"mcp__signaltty"}},
	})
}

func configureCodex(t *testing.T, home, url string, dirs []string) {
	var b strings.Builder
	fmt.Fprintf(&b, "model = \"scripted\"\nmodel_provider = \"scripted\"\ncheck_for_update_on_startup = false\n")
	fmt.Fprintf(&b, "approval_policy = \"on-request\"\n")
	fmt.Fprintf(&b, "[model_providers.scripted]\nname = \"scripted\"\nbase_url = %q\nwire_api = \"responses\"\nexperimental_bearer_token = \"sk-scripted\"\n", url+"/v1")
	// Side traffic to other hosts: plugin sync, apps, update checks.
	fmt.Fprintf(&b, "[features]\nplugins = false\napps = false\nremote_plugin = false\nplugin_sharing = false\nin_app_updates = false\n")
	fmt.Fprintf(&b, "[analytics]\nenabled = false\n[tui]\nshow_tooltips = false\n")
	for _, d := range dirs {
		fmt.Fprintf(&b, "[projects.%q]\ntrust_level = \"trusted\"\n", d)
	}
	writeFile(t, filepath.Join(home, ".codex", "config.toml"), b.String())
}

func configureGemini(t *testing.T, home, url string, dirs []string) {
	writeJSONFile(t, filepath.Join(home, ".gemini", "settings.json"), map[string]any{
		"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}, "folderTrust": map[string]any{"enabled": false}},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
		"ui":        map[string]any{"hideTips": true},
		"ide":       map[string]any{"enabled": false},
	})
	// ~/.gemini/.env is read at every start, a resume too.
	writeFile(t, filepath.Join(home, ".gemini", ".env"), "GEMINI_API_KEY=sk-scripted\nGOOGLE_GEMINI_BASE_URL="+url+"\n")
}

func configureOpencode(t *testing.T, home, url string, dirs []string) {
	writeJSONFile(t, filepath.Join(home, ".config", "opencode", "opencode.json"), map[string]any{
		"$schema": "https://opencode.ai/config.json", "autoupdate": false, "share": "disabled",
		"provider": map[string]any{"scripted": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Scripted",
			"options": map[string]any{"baseURL": url + "/v1", "apiKey": "sk-scripted"},
			"models":  map[string]any{"scripted": map[string]any{"name": "Scripted"}}}},
		"model": "scripted/scripted",
	})
	// opencode installs its plugin package into its configuration directory
	// at start unless that is done: get-agents.sh did it once.
	conf := harness.AgentsFile(t, "opencode-config")
	dir := filepath.Join(home, ".config", "opencode")
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(conf, f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, f), string(b))
	}
	if err := os.Symlink(filepath.Join(conf, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
}

func configurePi(t *testing.T, home, url string, dirs []string) {
	writeJSONFile(t, filepath.Join(home, ".pi", "agent", "models.json"), map[string]any{
		"providers": map[string]any{"scripted": map[string]any{
			"baseUrl": url + "/v1", "api": "openai-completions", "apiKey": "sk-scripted",
			"models": []any{map[string]any{"id": "scripted", "name": "Scripted", "contextWindow": 128000, "maxTokens": 8192}}}},
	})
	writeJSONFile(t, filepath.Join(home, ".pi", "agent", "settings.json"), map[string]any{
		"defaultProvider": "scripted", "defaultModel": "scripted"})
}

// realWorld is a daemon whose panes find the real agents and signaltty on
// PATH, a model server, and a git repository to work in.
type realWorld struct {
	d     *harness.Daemon
	model *harness.ModelServer
	agent realAgent
	repo  string // a git repository with one commit, the workspace's cwd
	env   []string
	dirs  []string
}

// newRealWorld starts the model server with turns and a daemon for agent
// kind, configures the agent in the daemon's private HOME (trusting repo
// and worktrees, the names of worktrees made later with workspace create
// --worktree), and runs `signaltty agent setup KIND --write` where it
// exists.
func newRealWorld(t *testing.T, kind string, worktrees []string, turns ...harness.Turn) *realWorld {
	t.Helper()
	a := realAgents[kind]
	agentsBin := harness.AgentsBin(t, a.command)
	root := harness.TempDir(t)
	bin := filepath.Join(root, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(harness.Bin(t, "signaltty"), filepath.Join(bin, "signaltty")); err != nil {
		t.Fatal(err)
	}
	w := &realWorld{agent: a, model: harness.StartModel(t, turns...)}
	w.env = append([]string{"PATH=" + bin + ":" + agentsBin + ":" + os.Getenv("PATH"), "TERM=xterm-256color",
		"LANG=C.UTF-8", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid"}, w.model.Env()...)
	w.env = append(w.env, a.env...)
	// The agents' own temporary files (Claude's claude-UID) go with the test.
	tmp := filepath.Join(root, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	w.env = append(w.env, "TMPDIR="+tmp)
	for _, h := range a.tolerate {
		w.model.Tolerate(h)
	}
	w.d = harness.Start(t, harness.Options{Env: w.env})
	w.repo = filepath.Join(w.d.Home, "proj")
	gitInit(t, w.repo)
	w.dirs = []string{w.repo}
	for _, b := range worktrees {
		w.dirs = append(w.dirs, filepath.Join(w.d.Home, "proj-worktrees", b))
	}
	a.configure(t, w.d.Home, w.model.URL, w.dirs)
	if a.hooks {
		w.d.CLI(t, "agent", "setup", kind, "--write", "--command", harness.Bin(t, "signaltty"))
	}
	return w
}

func gitInit(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "--allow-empty", "-m", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// restart starts a new daemon on the same state directory and environment
// (after Crash or Stop).
func (w *realWorld) restart(t *testing.T) {
	t.Helper()
	w.d = harness.Start(t, harness.Options{Dir: w.d.Dir, Env: w.env})
}

// workspace creates workspace name in the repository.
func (w *realWorld) workspace(t *testing.T, name string) string {
	t.Helper()
	var r struct {
		Workspace harness.Workspace `json:"workspace"`
	}
	w.d.JSON(t, &r, "workspace", "create", "--name", name, "--cwd", w.repo)
	return r.Workspace.ID
}

// agentStartSlots holds one token for each real agent starting up (from
// its spawn, resume or restart until its UI waits for a prompt), in all
// the real-agent tests of this process: a start is seconds of CPU (about
// 10 s for opencode), and a dozen at once on two cores left each starved
// past its deadline. Turns cost the agents little; only starts queue.
var agentStartSlots = make(chan struct{}, 2)

// startSlot waits for a free start-up slot and returns what gives it
// back (idempotent; call it with defer too, so that a failed start does
// not keep it). agentStartTimeout counts from here, not from the queue.
func startSlot(t *testing.T) (release func()) {
	t.Helper()
	agentStartSlots <- struct{}{}
	var once sync.Once
	return func() { once.Do(func() { <-agentStartSlots }) }
}

// start spawns the agent in a new tab of workspace ws and waits for its
// UI, in a start-up slot.
func (w *realWorld) start(t *testing.T, ws string, flags ...string) agentPane {
	t.Helper()
	release := startSlot(t)
	defer release()
	p := w.spawn(t, ws, flags...)
	w.waitReady(t, p.ID)
	return p
}

// spawn spawns the agent in a new tab of workspace ws (waitReady waits
// for its UI; the caller holds a startSlot).
func (w *realWorld) spawn(t *testing.T, ws string, flags ...string) agentPane {
	t.Helper()
	var r struct {
		Pane agentPane `json:"pane"`
	}
	args := append([]string{"pane", "spawn", "--workspace", ws}, flags...)
	w.d.JSON(t, &r, append(append(args, "--"), w.agent.command)...)
	return r.Pane
}

// waitReady waits until the agent's UI waits for a prompt, answering its
// start-up dialogs on the way.
func (w *realWorld) waitReady(t *testing.T, pane string) {
	t.Helper()
	harness.Eventually(t, agentStartTimeout, fmt.Sprintf("%s shows %q", w.agent.kind, w.agent.ready), func() (bool, string) {
		c := w.d.Capture(t, pane)
		if w.answerDialog(t, pane, c) {
			return false, c.Dump()
		}
		return c.Contains(w.agent.ready), c.Dump()
	})
}

// answerDialog answers the start-up dialog the screen shows, if any, and
// reports whether there was one.
func (w *realWorld) answerDialog(t *testing.T, pane string, c harness.Capture) bool {
	t.Helper()
	for text, keys := range w.agent.dialogs {
		if c.Contains(text) {
			// One key per write: keys in one write read as a paste.
			for _, k := range keys {
				w.d.JSON(t, nil, "pane", "send", "--pane", pane, "--key", k)
				w.d.Capture(t, pane)
			}
			return true
		}
	}
	return false
}

// waitScreen waits until the pane's screen shows s.
func (w *realWorld) waitScreen(t *testing.T, pane, s string) harness.Capture {
	t.Helper()
	var c harness.Capture
	harness.Eventually(t, agentTimeout, fmt.Sprintf("%s shows %q", w.agent.kind, s), func() (bool, string) {
		c = w.d.Capture(t, pane)
		return c.Contains(s), c.Dump()
	})
	return c
}

// prompt types text into the agent, waits for its echo, then presses
// Enter (typed in one write with the text, some agents take the Enter for
// part of a paste) and waits until the prompt reached the model.
func (w *realWorld) prompt(t *testing.T, pane, text string) harness.ModelRequest {
	t.Helper()
	w.d.Send(t, pane, text)
	harness.Eventually(t, agentTimeout, fmt.Sprintf("%s echoes %q", w.agent.kind, text), func() (bool, string) {
		c := w.d.Capture(t, pane)
		if w.answerDialog(t, pane, c) {
			// A dialog that opened late took the typing: type it again.
			w.d.Send(t, pane, text)
			return false, c.Dump()
		}
		return c.Contains(text), c.Dump()
	})
	w.d.JSON(t, nil, "pane", "send", "--pane", pane, "--key", "Enter")
	defer w.dumpOnFailure(t, pane)
	prompted := func(r harness.ModelRequest) bool { return r.Answer != "side" && r.Prompted(text) }
	// An agent still busy with its start (a resumed one on a loaded
	// machine) can drop the Enter and leave the prompt typed in its input:
	// while no request carries it and the screen still shows it, press
	// Enter again every 20 s.
	for end := time.Now().Add(agentStartTimeout); time.Until(end) > 20*time.Second; {
		if r, ok := w.model.Await(20*time.Second, prompted); ok {
			return r
		}
		if !w.d.Capture(t, pane).Contains(text) {
			break
		}
		t.Logf("%s: no request carries %q 20 s after Enter, and the screen still shows it: pressing Enter again", w.agent.kind, text)
		w.d.JSON(t, nil, "pane", "send", "--pane", pane, "--key", "Enter")
	}
	return w.model.WaitRequest(t, agentStartTimeout, "with the prompt "+text, prompted)
}

// waitPane polls the pane until cond holds (agentTimeout).
func (w *realWorld) waitPane(t *testing.T, id, what string, cond func(agentPane) bool) agentPane {
	t.Helper()
	var p agentPane
	harness.Eventually(t, agentTimeout, what, func() (bool, string) {
		p = getAgentPane(t, w.d, id)
		b, _ := json.Marshal(p)
		return cond(p), string(b)
	})
	return p
}

// realAgentGaps are the checks a real agent does not pass yet, by subtest
// name ("*/KIND": every check of that agent), each with what it waits for.
// Remove an entry when its check passes.
var realAgentGaps = map[string]string{
	"TestRealAgentTurnsOfOneSession/pi/PermissionDialogBlocksThenClears": "pi has no permission dialogs: its README (@mariozechner/pi-coding-agent 0.73.1) says \"No permission popups.\" (run it in a container, or build a confirmation flow as an extension); its bash tool runs without asking",
	"TestRealAgentTurnsOfOneSession/pi/RunsInItsOwnWorkspaceThroughMCP":  "pi has no MCP client: its README (@mariozechner/pi-coding-agent 0.73.1, \"No MCP.\") says to build CLI tools or an extension that adds MCP; pi reaches signaltty through its bash tool and the CLI (docs/mcp.md, \"Registering the server\")",
	"TestRealAgentTurnsOfOneSession/gemini/APIErrorEndsTheTurnFailed":    "Gemini CLI 0.61 has no hook for a failed model call: an API error ends the turn with AfterAgent as any turn does (fireAfterAgentHookSafe in its bundle, prompt_response \"[no response text]\"; no error field), so the pane is done, not failed (docs/agents.md, \"Gemini CLI\")",
}

// forEachAgent runs test for each real agent kind as parallel subtests, in
// parallel with the other real-agent tests too (each has its own daemon,
// HOME and model server; their time goes mostly to the agents' start-up).
func forEachAgent(t *testing.T, kinds []string, test func(t *testing.T, kind string)) {
	t.Helper()
	t.Parallel()
	for _, kind := range slowestFirst(kinds) {
		t.Run(kind, func(t *testing.T) {
			skipKnownGap(t, kind)
			t.Parallel()
			test(t, kind)
		})
	}
}

// agentsBySpeed is the real agents from the slowest to start and resume
// (opencode: about 10 s of CPU a start) to the quickest.
var agentsBySpeed = []string{"opencode", "gemini", "pi", "claude", "codex"}

// slowestFirst is kinds in the order of agentsBySpeed: parallel subtests
// take go test's -parallel slots in the order they are made, so the
// slowest agents' tests start first and do not end the step alone.
func slowestFirst(kinds []string) []string {
	var out []string
	for _, k := range agentsBySpeed {
		if slices.Contains(kinds, k) {
			out = append(out, k)
		}
	}
	for _, k := range kinds {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// permissionDialogs is text each agent's permission dialog shows.
var permissionDialogs = []string{"Do you want to proceed?", "Would you like to run", "Allow execution", "Allow once", "Permission required"}

// approve waits until the agent either asks for permission (then answers
// with Enter, its first choice: allow once, and waits until the dialog
// closed) or sent a tool result of the turn prompted with prompt without
// asking.
func approve(t *testing.T, w *realWorld, pane, prompt string) {
	t.Helper()
	asked := false
	harness.Eventually(t, agentTimeout, "a permission dialog or a tool result", func() (bool, string) {
		if w.sentToolResult(prompt) {
			return true, ""
		}
		c := w.d.Capture(t, pane)
		asked = showsPermissionDialog(c)
		return asked, c.Dump()
	})
	if !asked {
		return
	}
	w.d.JSON(t, nil, "pane", "send", "--pane", pane, "--key", "Enter")
	pressed := time.Now()
	harness.Eventually(t, agentTimeout, "the answered permission dialog closes", func() (bool, string) {
		if w.sentToolResult(prompt) {
			return true, ""
		}
		c := w.d.Capture(t, pane)
		if !showsPermissionDialog(c) {
			return true, ""
		}
		// An Enter that reached the agent before its dialog took input is
		// lost: the dialog stays open and the turn waits for ever.
		if time.Since(pressed) > 10*time.Second {
			t.Logf("%s: the permission dialog is still open %v after Enter; pressing it again:\n%s", w.agent.kind, time.Since(pressed).Round(time.Second), c.Dump())
			w.d.JSON(t, nil, "pane", "send", "--pane", pane, "--key", "Enter")
			pressed = time.Now()
		}
		return false, c.Dump()
	})
}

// sentToolResult reports whether a request carried a tool's result in
// the turn prompted with prompt.
func (w *realWorld) sentToolResult(prompt string) bool {
	for _, r := range w.model.Requests() {
		if len(r.ToolResultsAfter(prompt)) > 0 {
			return true
		}
	}
	return false
}

// showsPermissionDialog reports whether the screen shows a permission
// dialog of one of the agents.
func showsPermissionDialog(c harness.Capture) bool {
	for _, s := range permissionDialogs {
		if c.Contains(s) {
			return true
		}
	}
	return false
}

// dumpOnFailure logs the pane's screen when the test has failed.
func (w *realWorld) dumpOnFailure(t *testing.T, pane string) {
	if t.Failed() {
		t.Logf("%s pane %s screen:\n%s", w.agent.kind, pane, w.d.Capture(t, pane).Dump())
		if w.agent.logs != "" {
			logs, _ := filepath.Glob(filepath.Join(w.d.Home, w.agent.logs))
			for _, l := range logs {
				b, _ := os.ReadFile(l)
				t.Logf("%s:\n%s", l, b)
			}
		}
	}
}

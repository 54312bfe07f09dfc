package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/signaltty/signaltty/tests/harness"
)

// setupHome runs `signaltty agent setup AGENT --write` with HOME at a
// private directory and returns that directory.
func setupHome(t *testing.T, agent string, extra ...string) (string, harness.Result) {
	t.Helper()
	d := harness.Unstarted(t)
	home := harness.TempDir(t)
	env := append(d.ClientEnv(), "HOME="+home, "XDG_CONFIG_HOME=")
	env = append(env, extra...)
	r := harness.Run(t, env, harness.Bin(t, "signaltty"), "agent", "setup", agent, "--write")
	if r.Code != 0 {
		t.Fatalf("setup %s: %s", agent, r)
	}
	return home, r
}

// Gemini CLI reads hook timeouts in milliseconds; its setup installs the
// events that change a pane's lifecycle and attention.
func TestAgentSetupGeminiWritesMillisecondTimeouts(t *testing.T) {
	t.Parallel()
	home, _ := setupHome(t, "gemini")
	b, err := os.ReadFile(filepath.Join(home, ".gemini", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	for _, ev := range []string{"SessionStart", "BeforeAgent", "BeforeModel", "AfterTool", "Notification", "AfterAgent", "SessionEnd"} {
		g := doc.Hooks[ev]
		if len(g) != 1 || len(g[0].Hooks) != 1 || g[0].Hooks[0].Command != "signaltty hook gemini "+ev || g[0].Hooks[0].Timeout < 1000 {
			t.Errorf("%s: %+v (timeout must be milliseconds)", ev, g)
		}
	}
}

// Codex: no deprecated codex_hooks flag; daemon_auto_start = false in
// config.toml, merged into what is there (comments and other tables
// kept) and valid TOML for Codex to read.
func TestAgentSetupCodexTurnsOffTheSharedAppServer(t *testing.T) {
	t.Parallel()
	d := harness.Unstarted(t)
	home := harness.TempDir(t)
	codex := filepath.Join(home, ".codex")
	os.MkdirAll(codex, 0o700)
	before := "# my settings\nmodel = \"gpt-5\"\n\n[features]\n# a comment\nweb_search = true\n\n[mcp_servers.x]\ncommand = \"x\"\n"
	os.WriteFile(filepath.Join(codex, "config.toml"), []byte(before), 0o600)
	env := append(d.ClientEnv(), "HOME="+home)
	r := harness.Run(t, env, harness.Bin(t, "signaltty"), "agent", "setup", "codex", "--write")
	if r.Code != 0 || strings.Contains(r.Stdout, "codex_hooks") || !strings.Contains(r.Stdout, "Hooks need review") || !strings.Contains(r.Stdout, "daemon_auto_start") {
		t.Fatalf("setup: %s", r)
	}
	b, _ := os.ReadFile(filepath.Join(codex, "config.toml"))
	var doc struct {
		Model    string          `toml:"model"`
		Features map[string]bool `toml:"features"`
		MCP      map[string]any  `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(string(b), &doc); err != nil {
		t.Fatalf("config.toml is no longer TOML: %v\n%s", err, b)
	}
	if doc.Model != "gpt-5" || !doc.Features["web_search"] || doc.Features["daemon_auto_start"] || len(doc.MCP) != 1 || !strings.Contains(string(b), "# a comment") {
		t.Errorf("config.toml:\n%s", b)
	}
	if _, ok := doc.Features["daemon_auto_start"]; !ok {
		t.Errorf("daemon_auto_start not set:\n%s", b)
	}
	r = harness.Run(t, env, harness.Bin(t, "signaltty"), "agent", "setup", "codex", "--write")
	if b2, _ := os.ReadFile(filepath.Join(codex, "config.toml")); r.Code != 0 || string(b2) != string(b) {
		t.Errorf("a second setup changed config.toml: %s\n%s", r, b2)
	}
	if v := codexConfigValue(t, home, "features.daemon_auto_start"); v != "" && v != "false" {
		t.Errorf("codex reads daemon_auto_start as %q", v)
	}
}

// codexConfigValue asks a real Codex, when the test cache has one, what it
// reads for a key ("" when there is no Codex here).
func codexConfigValue(t *testing.T, home, key string) string {
	bin := os.Getenv("SIGNALTTY_TEST_CODEX")
	if bin == "" {
		return ""
	}
	cmd := exec.Command(bin, "features", "list")
	cmd.Env = []string{"HOME=" + home, "CODEX_HOME=" + filepath.Join(home, ".codex"), "PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("codex features list: %v\n%s", err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && "features."+f[0] == key {
			return f[len(f)-1]
		}
	}
	return ""
}

// recorder is a fake signaltty on PATH that appends each call's argv and
// stdin to a log, one line per call.
func recorder(t *testing.T) (dir, log string) {
	dir = harness.TempDir(t)
	log = filepath.Join(dir, "calls")
	script := "#!/bin/sh\nin=$(cat)\nprintf '%s %s\\n' \"$*\" \"$in\" >> " + log + "\n"
	if err := os.WriteFile(filepath.Join(dir, "signaltty"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, log
}

func needNode(t *testing.T) string {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the opencode plugin and pi extension are JavaScript")
	}
	return node
}

// asModule copies the ES module at path (it imports only node: modules)
// to a .mjs file, which every node loads as a module: node 18 (Debian
// 12's) loads a .js file outside a "type": "module" package as CommonJS,
// where opencode and pi load these files as modules themselves.
func asModule(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(path), ".js")+".mjs")
	if err := os.WriteFile(m, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return m
}

// runNode runs a module script with node, PATH led by dir.
func runNode(t *testing.T, node, dir, script string) {
	t.Helper()
	f := filepath.Join(dir, "drive.mjs")
	os.WriteFile(f, []byte(script), 0o644)
	cmd := exec.Command(node, f)
	cmd.Env = []string{"PATH=" + dir + ":" + os.Getenv("PATH"), "SIGNALTTY_PANE=pane_test", "HOME=" + dir}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
}

// The opencode plugin is valid JavaScript, forwards opencode 1.18's
// session and permission events one at a time and in order (each call
// finished before the next starts), skips subagent sessions and other
// events.
func TestAgentSetupOpencodePluginForwardsEventsInOrder(t *testing.T) {
	t.Parallel()
	node := needNode(t)
	home, _ := setupHome(t, "opencode")
	plugin := asModule(t, filepath.Join(home, ".config", "opencode", "plugin", "signaltty.js"))
	if r := harness.Run(t, nil, node, "--check", plugin); r.Code != 0 {
		t.Fatalf("node --check: %s", r)
	}
	dir, log := recorder(t)
	runNode(t, node, dir, `import { SignalttyPlugin } from "`+plugin+`";
const p = await SignalttyPlugin({});
const evs = [
  {type: "session.created", properties: {info: {id: "ses_1"}}},
  {type: "session.created", properties: {info: {id: "ses_child", parentID: "ses_1"}}},
  {type: "session.status", properties: {sessionID: "ses_child", status: {type: "busy"}}},
  {type: "message.updated", properties: {}},
  {type: "session.status", properties: {sessionID: "ses_1", status: {type: "busy"}}},
  {type: "permission.asked", properties: {id: "per_1", sessionID: "ses_1", permission: "bash"}},
  {type: "permission.replied", properties: {sessionID: "ses_1", requestID: "per_1", reply: "once"}},
  {type: "session.status", properties: {sessionID: "ses_1", status: {type: "idle"}}},
  {type: "session.idle", properties: {sessionID: "ses_1"}},
];
await Promise.all(evs.map((event) => p.event({ event })));
`)
	b, _ := os.ReadFile(log)
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.SplitN(l, " ", 4)
		got = append(got, strings.Join(f[:3], " "))
		if !strings.Contains(l, `"sessionID":"ses_1"`) {
			t.Errorf("call without the pane's session: %s", l)
		}
	}
	want := []string{"hook opencode session.created", "hook opencode session.status", "hook opencode permission.asked",
		"hook opencode permission.replied", "hook opencode session.status", "hook opencode session.idle"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("calls\n%s\nwant %q", b, want)
	}
}

// The pi extension is valid JavaScript, reports pi's lifecycle with its
// model and the stop reason of a prompt's last answer, and gives the
// session id only once pi has written the session file.
func TestAgentSetupPiExtensionReportsASessionOnlyOnceWritten(t *testing.T) {
	t.Parallel()
	node := needNode(t)
	home, _ := setupHome(t, "pi")
	ext := asModule(t, filepath.Join(home, ".pi", "agent", "extensions", "signaltty.js"))
	if r := harness.Run(t, nil, node, "--check", ext); r.Code != 0 {
		t.Fatalf("node --check: %s", r)
	}
	dir, log := recorder(t)
	sessionFile := filepath.Join(dir, "session.jsonl")
	runNode(t, node, dir, `import ext from "`+ext+`";
import { writeFileSync } from "node:fs";
const on = {};
ext({ on: (name, fn) => { on[name] = fn; } });
const ctx = { sessionManager: { getSessionId: () => "pi-1", getSessionFile: () => "`+sessionFile+`" }, model: { provider: "p", id: "m-1" } };
await on.session_start({ reason: "startup" }, ctx);
await on.agent_start({}, ctx);
writeFileSync("`+sessionFile+`", "{}\n");
await on.agent_end({ messages: [{ role: "user" }, { role: "assistant", stopReason: "error", errorMessage: "boom" }] }, ctx);
await on.session_shutdown({}, ctx);
`)
	b, _ := os.ReadFile(log)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "hook pi session_start ") || strings.Contains(lines[0], "pi-1") ||
		strings.Contains(lines[1], "pi-1") || !strings.HasPrefix(lines[2], "hook pi agent_end ") || !strings.Contains(lines[2], `"session_id":"pi-1"`) ||
		!strings.HasPrefix(lines[3], "hook pi session_shutdown ") || !strings.Contains(lines[0], `"model":"m-1"`) ||
		!strings.Contains(lines[2], `"stop_reason":"error"`) || !strings.Contains(lines[2], `"error_message":"boom"`) {
		t.Errorf("calls:\n%s", b)
	}
}

// Codex runs a hook of hooks.json only once it is trusted: `agent setup
// codex --write` records each hook it installs as trusted in config.toml
// ([hooks.state] trusted_hash), also when signaltty's group is not the
// first of its event, and the real Codex (when the test cache has one)
// lists every one of them as trusted, with no warning.
func TestAgentSetupCodexTrustsTheHooksItInstalls(t *testing.T) {
	t.Parallel()
	d := harness.Unstarted(t)
	home := harness.TempDir(t)
	codex := filepath.Join(home, ".codex")
	os.MkdirAll(codex, 0o700)
	os.WriteFile(filepath.Join(codex, "hooks.json"), []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}`), 0o600)
	env := append(d.ClientEnv(), "HOME="+home)
	r := harness.Run(t, env, harness.Bin(t, "signaltty"), "agent", "setup", "codex", "--write")
	if r.Code != 0 || !strings.Contains(r.Stdout, "trusted_hash") {
		t.Fatalf("setup: %s", r)
	}
	b, _ := os.ReadFile(filepath.Join(codex, "config.toml"))
	var doc struct {
		Hooks struct {
			State map[string]struct {
				TrustedHash string `toml:"trusted_hash"`
			} `toml:"state"`
		} `toml:"hooks"`
	}
	if _, err := toml.Decode(string(b), &doc); err != nil {
		t.Fatalf("config.toml: %v\n%s", err, b)
	}
	hooksJSON := filepath.Join(codex, "hooks.json")
	for _, key := range []string{"session_start:0:0", "user_prompt_submit:0:0", "pre_tool_use:0:0", "permission_request:0:0",
		"post_tool_use:0:0", "stop:1:0", "interrupt:0:0", "session_end:0:0"} {
		if h := doc.Hooks.State[hooksJSON+":"+key].TrustedHash; !strings.HasPrefix(h, "sha256:") {
			t.Errorf("%s: no trusted_hash\n%s", key, b)
		}
	}
	if _, ok := doc.Hooks.State[hooksJSON+":stop:0:0"]; ok {
		t.Errorf("the user's own Stop hook was trusted too:\n%s", b)
	}
	r = harness.Run(t, env, harness.Bin(t, "signaltty"), "agent", "setup", "codex", "--write")
	if b2, _ := os.ReadFile(filepath.Join(codex, "config.toml")); r.Code != 0 || string(b2) != string(b) {
		t.Errorf("a second setup changed config.toml: %s\n%s", r, b2)
	}

	hooks := codexListHooks(t, home)
	n := 0
	for _, h := range hooks.Hooks {
		if !strings.Contains(h.Command, "signaltty hook codex ") {
			continue
		}
		n++
		if h.TrustStatus != "trusted" {
			t.Errorf("codex lists %s as %s", h.Key, h.TrustStatus)
		}
	}
	if n != 8 || len(hooks.Warnings) != 0 {
		t.Errorf("codex lists %d signaltty hooks (want 8), warnings %v", n, hooks.Warnings)
	}
}

type codexHookList struct {
	Hooks []struct {
		Key         string `json:"key"`
		Command     string `json:"command"`
		TrustStatus string `json:"trustStatus"`
	} `json:"hooks"`
	Warnings []string `json:"warnings"`
}

// codexListHooks asks the real Codex (`codex app-server`, its JSON-RPC
// hooks/list) which hooks it finds in home and how it trusts them; it
// skips the test when the real Codex is not installed.
func codexListHooks(t *testing.T, home string) codexHookList {
	t.Helper()
	bin := filepath.Join(harness.AgentsBin(t, "codex"), "codex")
	ctx, cancel := context.WithTimeout(context.Background(), agentTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "app-server")
	cmd.Env = []string{"HOME=" + home, "CODEX_HOME=" + filepath.Join(home, ".codex"), "PATH=" + os.Getenv("PATH")}
	cmd.Dir = home
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cmd.Process.Kill(); cmd.Wait() }()
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"signaltty-test","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"hooks/list","params":{"cwds":[` + strconv.Quote(home) + `]}}`,
	} {
		io.WriteString(in, m+"\n")
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r struct {
			ID     int `json:"id"`
			Result struct {
				Data []codexHookList `json:"data"`
			} `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.ID == 2 {
			if len(r.Result.Data) != 1 {
				t.Fatalf("hooks/list: %s", sc.Bytes())
			}
			return r.Result.Data[0]
		}
	}
	t.Fatalf("codex app-server gave no hooks/list answer (%v)", ctx.Err())
	return codexHookList{}
}

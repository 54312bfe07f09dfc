package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// Agents in panes (docs/agents.md): session identity from the agents' own
// hooks or reports, lifecycle and attention, notifications, and resume after
// a restart with the agent's official command.

func TestClaudeHooksDriveLifecycleAttentionAndMessages(t *testing.T) {
	t.Parallel()
	w := newAgentWorld(t)
	d := w.d
	d.CreateWorkspace(t, "proj")
	evs := d.Subscribe(t, []string{"agent", "attention"}, nil)
	p := w.spawnAgent(t, "proj", "claude", "--env", "FAKE_SESSION=5b1c6a3e-claude-one")
	if p.Agent == nil || p.Agent.Kind != "claude" {
		t.Fatalf("kind from argv[0]: %+v", p.Agent)
	}
	p = waitAgent(t, d, p.ID, "SessionStart hook recorded", func(p agentPane) bool { return p.Lifecycle == "idle" })
	if p.session() != "5b1c6a3e-claude-one" || !slices.Equal(p.Agent.ResumeArgv, []string{"claude", "--resume", "5b1c6a3e-claude-one"}) || p.Agent.ResumeReported {
		t.Fatalf("session from SessionStart: %+v", p.Agent)
	}
	d.Send(t, p.ID, `prompt\n`)
	waitAgent(t, d, p.ID, "working after UserPromptSubmit", func(p agentPane) bool { return p.Lifecycle == "working" })
	d.Send(t, p.ID, `permission\n`)
	p = waitAgent(t, d, p.ID, "blocked on a permission", func(p agentPane) bool {
		return p.Lifecycle == "blocked" && p.Attention == "permission_required"
	})
	d.Send(t, p.ID, `tool\n`) // a tool hook never takes a pane out of blocked
	d.WaitLine(t, p.ID, "did tool")
	if p = getAgentPane(t, d, p.ID); p.Lifecycle != "blocked" {
		t.Errorf("a tool hook moved a blocked pane to %s", p.Lifecycle)
	}
	var att struct {
		Panes []agentPane `json:"panes"`
	}
	d.JSON(t, &att, "pane", "list", "--attention")
	if len(att.Panes) != 1 || att.Panes[0].ID != p.ID {
		t.Errorf("pane list --attention: %+v", att.Panes)
	}
	if r := d.CLI(t, "pane", "list"); !strings.Contains(r.Stdout, "ATTENTION") || !strings.Contains(r.Stdout, "permission_required") || !strings.Contains(r.Stdout, "claude") {
		t.Errorf("pane list shows no agent columns:\n%s", r.Stdout)
	}
	d.JSON(t, nil, "pane", "mark-seen", "--pane", p.ID)
	if p = getAgentPane(t, d, p.ID); p.Attention != "none" {
		t.Errorf("attention after mark-seen: %s", p.Attention)
	}
	d.JSON(t, &att, "pane", "list", "--attention")
	if len(att.Panes) != 0 {
		t.Errorf("pane list --attention after mark-seen: %+v", att.Panes)
	}
	d.Send(t, p.ID, `stop\n`)
	p = waitAgent(t, d, p.ID, "done after Stop", func(p agentPane) bool { return p.Lifecycle == "done" && p.Attention == "unread" })
	if p.LastMessage == nil || *p.LastMessage != "Claude finished: All tests pass." {
		t.Errorf("last_message %v", p.LastMessage)
	}
	var ns struct {
		Notifications []struct {
			Pane   string `json:"pane"`
			Title  string `json:"title"`
			Body   string `json:"body"`
			Source string `json:"source"`
		} `json:"notifications"`
	}
	d.JSON(t, &ns, "notifications", "list", "--pane", p.ID)
	if n := len(ns.Notifications); n == 0 || ns.Notifications[n-1].Source != "hook:claude:Stop" || ns.Notifications[n-1].Body != "All tests pass." {
		t.Errorf("notifications %+v", ns.Notifications)
	}
	d.Send(t, p.ID, `exit\n`)
	waitAgent(t, d, p.ID, "exited with its process", func(p agentPane) bool { return p.Lifecycle == "exited" })
	// The pane's record changes before the journaled event reaches the stream.
	evs.WaitFor(t, 10*time.Second, "agent.exited", func(e harness.Event) bool { return e.Type == "agent.exited" })
	var types []string
	for _, e := range evs.Seen() {
		types = append(types, e.Type)
	}
	for _, want := range []string{"agent.idle", "agent.working", "agent.blocked", "attention.created", "attention.cleared", "agent.done", "agent.exited"} {
		if !slices.Contains(types, want) {
			t.Errorf("no %s event among %v", want, types)
		}
	}
}

func TestCodexHookFindsItsPaneThroughProcessAncestry(t *testing.T) {
	t.Parallel()
	w := newAgentWorld(t)
	w.d.CreateWorkspace(t, "proj")
	p := w.spawnAgent(t, "proj", "codex", "--env", "FAKE_SESSION=019a-codex-thread", "--env", "CODEX_HOME=codex-home")
	p = waitAgent(t, w.d, p.ID, "codex session recorded", func(p agentPane) bool { return p.session() == "019a-codex-thread" })
	if !slices.Equal(p.Agent.ResumeArgv, []string{"codex", "resume", "019a-codex-thread"}) {
		t.Errorf("resume argv %q", p.Agent.ResumeArgv)
	}
	home, _ := filepath.Abs(filepath.Join(w.d.Home, "codex-home"))
	if p.Agent.ConfigEnv["CODEX_HOME"] != home {
		t.Errorf("config_env %v, want CODEX_HOME made absolute against the cwd (%s)", p.Agent.ConfigEnv, home)
	}
	// A stale $SIGNALTTY_PANE (a pane id that is gone): the ancestry still finds the pane.
	sh := w.d.Spawn(t, []string{"--workspace", "proj"}, "sh", "-c",
		`printf '{"session_id":"stale-1"}' | SIGNALTTY_PANE=pane_000000000000 signaltty hook codex SessionStart; exec sleep 1000`)
	waitAgent(t, w.d, sh.ID, "found through the ancestry despite a stale pane id", func(p agentPane) bool { return p.session() == "stale-1" })
}

func TestHookNeverFailsTheAgent(t *testing.T) {
	t.Parallel()
	d := harness.Unstarted(t)
	var env []string // without SIGNALTTY_NO_AUTOSTART: the hook itself must never start a daemon
	for _, kv := range d.ClientEnv() {
		if !strings.HasPrefix(kv, "SIGNALTTY_NO_AUTOSTART=") {
			env = append(env, kv)
		}
	}
	env = append(env, "SIGNALTTY_PANE=pane_000000000000", "SIGNALTTY="+harness.Bin(t, "signaltty"))
	hook := func(env []string, input, event string) harness.Result {
		return harness.Run(t, env, "sh", "-c", `printf '%s' "$1" | "$SIGNALTTY" hook claude "$2"`, "sh", input, event)
	}
	for _, in := range []string{`{"session_id":"x","hook_event_name":"SessionStart"}`, `not json`, ``} {
		if r := hook(env, in, "SessionStart"); r.Code != 0 || r.Stdout != "" || !strings.Contains(r.Stderr, "signaltty hook:") {
			t.Errorf("hook without a daemon, input %q: %s", in, r)
		}
	}
	if harness.Exists(d.Socket) {
		t.Error("the hook started a daemon")
	}
	live := harness.Start(t)
	lenv := append(live.ClientEnv(), "SIGNALTTY="+harness.Bin(t, "signaltty"))
	if r := hook(append(lenv, "SIGNALTTY_PANE=pane_000000000000"), `{"session_id":"x"}`, "Stop"); r.Code != 0 || r.Stdout != "" {
		t.Errorf("hook for an unknown pane: %s", r)
	}
	if r := hook(lenv, `{"session_id":"x"}`, "Stop"); r.Code != 0 || r.Stdout != "" || !strings.Contains(r.Stderr, "no_pane") {
		t.Errorf("hook outside any pane: %s", r)
	}
	if r := hook(lenv, `{}`, "Stop"); r.Code != 0 {
		t.Errorf("hook with an empty payload: %s", r)
	}
}

func TestReportSessionRules(t *testing.T) {
	t.Parallel()
	w := newAgentWorld(t)
	d := w.d
	d.CreateWorkspace(t, "proj")
	sh := d.Spawn(t, []string{"--workspace", "proj"}, "sleep", "1000")
	for _, bad := range []string{`["/usr/bin/tool","x"]`, `["-x"]`, `["tool","a\u0007b"]`, `[]`,
		`[` + strings.Repeat(`"a",`, 64) + `"a"]`, `["tool","` + strings.Repeat("x", 8200) + `"]`} {
		d.Fail(t, "invalid_params.resume_argv", 2, "report-session", "--pane", sh.ID, "--session", "s1", "--resume-argv", bad)
	}
	var r struct {
		Pane agentPane `json:"pane"`
	}
	d.JSON(t, &r, "report-session", "--pane", sh.ID, "--session", "s1", "--resume-argv", `["mytool","--continue","s1"]`)
	if a := r.Pane.Agent; a == nil || a.Kind != "generic" || !a.ResumeReported || !slices.Equal(a.ResumeArgv, []string{"mytool", "--continue", "s1"}) {
		t.Fatalf("self-reported argv: %+v", r.Pane.Agent)
	}
	r.Pane = agentPane{}
	d.JSON(t, &r, "report-session", "--pane", sh.ID, "--session", "s1")
	if a := r.Pane.Agent; !a.ResumeReported || a.ResumeArgv[0] != "mytool" {
		t.Errorf("a later report of the same session dropped the reported argv: %+v", a)
	}
	r.Pane = agentPane{}
	d.JSON(t, &r, "report-session", "--pane", sh.ID, "--session", "s2", "--agent", "pi")
	if a := r.Pane.Agent; a.ResumeReported || !slices.Equal(a.ResumeArgv, []string{"pi", "--session", "s2"}) || a.Kind != "pi" {
		t.Errorf("a new agent and session must take the adapter's command: %+v", a)
	}
	r.Pane = agentPane{}
	d.JSON(t, &r, "report-session", "--pane", sh.ID, "--session", "s3", "--agent", "generic")
	if a := r.Pane.Agent; len(a.ResumeArgv) != 0 {
		t.Errorf("generic has no official resume, got %q", a.ResumeArgv)
	}
	d.Fail(t, "invalid_params.agent", 2, "report-session", "--pane", sh.ID, "--session", "s1", "--agent", "vim")
	d.Fail(t, "not_found.pane", 3, "report-session", "--session", "s1") // the CLI runs in no pane
	// An agent that reports itself, as pi, opencode, cursor-agent and gemini do here.
	for _, name := range []string{"pi", "opencode", "cursor-agent", "gemini"} {
		p := w.spawnAgent(t, "proj", name, "--env", "FAKE_SESSION=sess-"+name)
		p = waitAgent(t, d, p.ID, name+" reported", func(p agentPane) bool { return p.session() == "sess-"+name })
		if len(p.Agent.ResumeArgv) < 3 || p.Agent.ResumeArgv[0] != name || p.Agent.ResumeArgv[2] != "sess-"+name {
			t.Errorf("%s resume argv %q", name, p.Agent.ResumeArgv)
		}
	}
}

func TestResumeAfterRestartRunsTheOfficialCommandWithConfigEnvOnly(t *testing.T) {
	t.Parallel()
	w := newAgentWorld(t)
	d := w.d
	d.CreateWorkspace(t, "proj")
	const canary = "sk-ant-canary-8d41f0"
	ids := map[string]string{}
	for i := 1; i <= 3; i++ {
		sid := fmt.Sprintf("0b7e4c2a-0000-4000-8000-00000000000%d", i)
		p := w.spawnAgent(t, "proj", "claude", "--env", "FAKE_SESSION="+sid, "--env", "CLAUDE_CONFIG_DIR=cfg",
			"--env", "ANTHROPIC_API_KEY="+canary)
		waitAgent(t, d, p.ID, "session "+sid, func(p agentPane) bool { return p.session() == sid })
		ids[p.ID] = sid
	}
	plain := d.Spawn(t, []string{"--workspace", "proj"}, "sh", "-c", harness.Mark(w.marks, "plain")+"; exec sleep 1000")
	harness.WaitMarker(t, w.marks, "plain")
	before := getAgentPane(t, d, plain.ID)
	w.restart(t)
	d = w.d
	grepTree(t, stateDir(d), canary)
	for id := range ids {
		if p := getAgentPane(t, d, id); p.RestoreState != "RESUMABLE" {
			t.Errorf("pane %s restored as %s, want RESUMABLE", id, p.RestoreState)
		}
	}
	if p := getAgentPane(t, d, plain.ID); p.RestoreState != "RESTORED" || p.Title != before.Title {
		t.Errorf("plain pane restored as %+v", p)
	}
	er := d.Fail(t, "invalid_params.pane", 2, "resume")
	_ = er
	for id, sid := range ids {
		var r struct {
			Pane agentPane `json:"pane"`
		}
		d.JSON(t, &r, "resume", id)
		if r.Pane.ID != id || r.Pane.State != "live" || r.Pane.Title != "claude" || r.Pane.RestoreState != "LIVE" {
			t.Errorf("resumed pane %+v", r.Pane)
		}
		waitAgent(t, d, id, "the resumed session's SessionStart", func(p agentPane) bool { return p.Lifecycle == "idle" && p.session() == sid })
	}
	runs := w.waitRuns(t, "claude", 6)
	if len(runs) != 6 {
		t.Fatalf("claude started %d times, want 3 spawns and 3 resumes: %q", len(runs), runs)
	}
	cfg := filepath.Join(d.Home, "cfg")
	for _, sid := range ids {
		want := "argv=--resume " + sid + "|CLAUDE_CONFIG_DIR=" + cfg + "|CODEX_HOME=|ANTHROPIC_API_KEY=|OPENAI_API_KEY="
		if !slices.Contains(runs[3:], want) {
			t.Errorf("no resume ran exactly %q; resumes: %q", want, runs[3:])
		}
	}
	if n := harness.MarkCount(w.marks, "plain"); n != 1 {
		t.Errorf("a plain pane's saved command ran %d times; restore must never run it", n)
	}
	d.Stop(t)
	grepTree(t, stateDir(d), canary)
}

func TestResumeFailsVisiblyAndTheTombstoneStays(t *testing.T) {
	t.Parallel()
	w := newAgentWorld(t)
	d := w.d
	d.CreateWorkspace(t, "proj")
	sh := d.Spawn(t, []string{"--workspace", "proj"}, "sleep", "1000")
	d.JSON(t, nil, "report-session", "--pane", sh.ID, "--session", "s1", "--resume-argv", `["no-such-agent-4711","--resume","s1"]`)
	w.restart(t)
	d = w.d
	d.Fail(t, "unavailable.spawn", 6, "resume", sh.ID)
	if p := getAgentPane(t, d, sh.ID); p.RestoreState != "RESUMABLE" || p.State != "exited" {
		t.Errorf("after a failed resume: %+v", p)
	}
	if p := d.GetPane(t, sh.ID); strings.Join(p.Argv, " ") != "sleep 1000" {
		t.Errorf("a failed resume changed the pane's command to %q", p.Argv)
	}
	// A pane that exited without a session: exited first, so that the
	// refusal is for having nothing to resume, not for being live.
	plain := d.Spawn(t, []string{"--workspace", "proj"}, "true")
	d.WaitExited(t, plain.ID)
	d.Fail(t, "conflict.not_resumable", 5, "resume", plain.ID)
}

func TestConcurrentResumesExactlyOneWins(t *testing.T) {
	t.Parallel()
	w := newAgentWorld(t)
	d := w.d
	d.CreateWorkspace(t, "proj")
	p := w.spawnAgent(t, "proj", "claude", "--env", "FAKE_SESSION=race-1")
	waitAgent(t, d, p.ID, "session", func(p agentPane) bool { return p.session() == "race-1" })
	w.restart(t)
	d = w.d
	var wg sync.WaitGroup
	results := make([]harness.Result, 2)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = d.CLI(t, "--json", "resume", p.ID)
		}()
	}
	wg.Wait()
	ok, conflicts := 0, 0
	for _, r := range results {
		switch {
		case r.Code == 0:
			ok++
		case r.Code == 5 && (strings.Contains(r.Stdout, "conflict.resuming") || strings.Contains(r.Stdout, "conflict.pane_live")):
			conflicts++
		default:
			t.Errorf("resume: %s", r)
		}
	}
	if ok != 1 || conflicts != 1 {
		t.Errorf("%d resumes won, %d got a conflict; want exactly one of each", ok, conflicts)
	}
	if n := len(w.waitRuns(t, "claude", 2)); n != 2 {
		t.Errorf("claude ran %d times, want the spawn and one resume", n)
	}
}

func TestAutoResumeIsPerWorkspaceOffByDefaultAndOnlyOfficial(t *testing.T) {
	t.Parallel()
	w := newAgentWorld(t)
	d := w.d
	d.CreateWorkspace(t, "auto")
	d.CreateWorkspace(t, "manual")
	a := w.spawnAgent(t, "auto", "claude", "--env", "FAKE_SESSION=auto-1")
	m := w.spawnAgent(t, "manual", "claude", "--env", "FAKE_SESSION=manual-1")
	self := d.Spawn(t, []string{"--workspace", "auto"}, "sleep", "1000")
	d.JSON(t, nil, "report-session", "--pane", self.ID, "--session", "s9", "--resume-argv", `["sh","-c","`+harness.Mark(w.marks, "selfreported")+`"]`)
	for _, p := range []agentPane{a, m} {
		waitAgent(t, d, p.ID, "session", func(q agentPane) bool { return q.session() != "" })
	}
	w.restart(t) // auto_resume is off by default
	if n := len(w.runs("claude")); n != 2 {
		t.Fatalf("with auto_resume off, claude ran %d times after the restart, want 2 (the spawns)", n)
	}
	var ws struct {
		Workspace struct {
			AutoResume bool `json:"auto_resume"`
		} `json:"workspace"`
	}
	w.d.JSON(t, &ws, "workspace", "set", "--workspace", "auto", "--auto-resume")
	if !ws.Workspace.AutoResume {
		t.Fatal("workspace set --auto-resume did not turn it on")
	}
	w.restart(t)
	d = w.d
	runs := w.waitRuns(t, "claude", 3)
	if p := getAgentPane(t, d, a.ID); p.RestoreState != "LIVE" {
		t.Errorf("auto-resumed pane: %+v", p)
	}
	if p := getAgentPane(t, d, m.ID); p.RestoreState != "RESUMABLE" {
		t.Errorf("a pane of a workspace without auto_resume: %+v", p)
	}
	if p := getAgentPane(t, d, self.ID); p.RestoreState != "RESUMABLE" || harness.MarkCount(w.marks, "selfreported") != 0 {
		t.Errorf("a self-reported resume command must never run by itself: %+v", p)
	}
	if len(runs) != 3 || !strings.HasPrefix(runs[2], "argv=--resume auto-1|") {
		t.Errorf("claude runs %q, want the two spawns and the auto-resume of auto-1", runs)
	}
}

func TestAgentDataSurvivesFiveRestarts(t *testing.T) {
	t.Parallel()
	w := newAgentWorld(t)
	d := w.d
	d.CreateWorkspace(t, "proj")
	d.JSON(t, nil, "workspace", "set", "--workspace", "proj", "--auto-resume=false")
	p := w.spawnAgent(t, "proj", "claude", "--env", "FAKE_SESSION=keep-1", "--env", "CLAUDE_CONFIG_DIR=/srv/claude")
	waitAgent(t, d, p.ID, "session", func(p agentPane) bool { return p.Lifecycle == "idle" })
	d.Send(t, p.ID, `stop\n`)
	waitAgent(t, d, p.ID, "done", func(p agentPane) bool { return p.Lifecycle == "done" })
	d.JSON(t, nil, "notify", "--pane", p.ID, "--title", "hello\x1b]0;evil\x07", "--severity", "warning")
	var n1 struct {
		Notifications []map[string]any `json:"notifications"`
	}
	d.JSON(t, &n1, "notifications", "list")
	d.JSON(t, nil, "notifications", "read", "--id", n1.Notifications[0]["id"].(string))
	d.JSON(t, nil, "workspace", "set", "--workspace", "proj", "--auto-resume")
	d.JSON(t, &n1, "notifications", "list")
	want := getAgentPane(t, d, p.ID)
	if want.Attention != "warning" || strings.ContainsAny(fmt.Sprint(n1.Notifications), "\x1b\x07") {
		t.Fatalf("before the restarts: attention %s notifications %v", want.Attention, n1.Notifications)
	}
	d.Send(t, p.ID, `exit\n`) // exited: auto-resume does not apply, the block must stay anyway
	d.WaitExited(t, p.ID)
	want = getAgentPane(t, d, p.ID)
	for i := 0; i < 5; i++ {
		w.restart(t)
		got := getAgentPane(t, w.d, p.ID)
		gb, _ := json.Marshal(got.Agent)
		wb, _ := json.Marshal(want.Agent)
		if string(gb) != string(wb) || got.Lifecycle != want.Lifecycle || got.Attention != want.Attention || *got.LastMessage != *want.LastMessage {
			t.Fatalf("restart %d: %s %s/%s, want %s %s/%s", i+1, gb, got.Lifecycle, got.Attention, wb, want.Lifecycle, want.Attention)
		}
		var n2 struct {
			Notifications []map[string]any `json:"notifications"`
		}
		w.d.JSON(t, &n2, "notifications", "list")
		if fmt.Sprint(n2.Notifications) != fmt.Sprint(n1.Notifications) {
			t.Fatalf("restart %d: notifications %v, want %v", i+1, n2.Notifications, n1.Notifications)
		}
		var ws struct {
			Workspace struct {
				AutoResume bool `json:"auto_resume"`
			} `json:"workspace"`
		}
		w.d.JSON(t, &ws, "workspace", "set", "--workspace", "proj")
		if !ws.Workspace.AutoResume {
			t.Fatalf("restart %d: auto_resume lost", i+1)
		}
		if _, err := os.Stat(filepath.Join(stateDir(w.d), "snapshot.json")); err != nil {
			t.Fatal(err)
		}
		w.d.JSON(t, nil, "save")
		snap := savedSnapshot(t, w.d)
		if !strings.Contains(fmt.Sprint(snap["panes"]), "keep-1") {
			t.Fatalf("restart %d: the next save dropped the agent block", i+1)
		}
	}
}

func TestOSCNotificationsAndBellRaiseUnread(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	d.CreateWorkspace(t, "proj")
	p := d.Spawn(t, []string{"--workspace", "proj"}, "sh", "-c",
		`printf '\033]9;build finished\007\033]777;notify;Tests;3 failed\033\\\033]99;i=1:d=0;Kitty title\033\\\033]99;i=1:p=body;kitty body\033\\'; exec sleep 1000`)
	var ns struct {
		Notifications []struct {
			Title, Body, Source, Severity string
		} `json:"notifications"`
	}
	harness.Eventually(t, harness.PollTimeout, "three notifications", func() (bool, string) {
		d.JSON(t, &ns, "notifications", "list", "--pane", p.ID)
		return len(ns.Notifications) == 3, fmt.Sprint(ns.Notifications)
	})
	got := fmt.Sprint(ns.Notifications)
	for _, want := range []string{"{signaltty build finished osc9 info}", "{Tests 3 failed osc777 info}", "{Kitty title kitty body osc99 info}"} {
		if !strings.Contains(got, want) {
			t.Errorf("notifications %s lack %s", got, want)
		}
	}
	if a := getAgentPane(t, d, p.ID); a.Attention != "unread" {
		t.Errorf("attention %s", a.Attention)
	}
	b := d.Spawn(t, []string{"--workspace", "proj"}, "sh", "-c", `printf '\007'; exec sleep 1000`)
	waitAgent(t, d, b.ID, "BEL raised unread", func(p agentPane) bool { return p.Attention == "unread" })
}

func TestAgentSetupMergesHooksWithABackup(t *testing.T) {
	t.Parallel()
	d := harness.Unstarted(t)
	home := harness.TempDir(t)
	env := append(d.ClientEnv(), "HOME="+home)
	settings := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	os.WriteFile(settings, []byte(`{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"}]}]}}`), 0o600)
	r := harness.Run(t, env, harness.Bin(t, "signaltty"), "agent", "setup", "claude")
	var printed map[string]any
	if r.Code != 0 || !strings.Contains(r.Stdout, "signaltty hook claude SessionStart") || json.Unmarshal([]byte(r.Stdout), &printed) != nil {
		t.Fatalf("print (standard output must be JSON to paste): %s", r)
	}
	if !strings.Contains(r.Stderr, settings) {
		t.Errorf("print does not say where it goes: %s", r)
	}
	r = harness.Run(t, env, harness.Bin(t, "signaltty"), "agent", "setup", "claude", "--write")
	if r.Code != 0 {
		t.Fatalf("write: %s", r)
	}
	var doc struct {
		Model string                      `json:"model"`
		Hooks map[string][]map[string]any `json:"hooks"`
	}
	b, _ := os.ReadFile(settings)
	if err := json.Unmarshal(b, &doc); err != nil || doc.Model != "opus" || len(doc.Hooks["Stop"]) != 2 || len(doc.Hooks["SessionStart"]) != 1 {
		t.Fatalf("merged settings %s (%v)", b, err)
	}
	backups, _ := filepath.Glob(settings + ".bak-*")
	if len(backups) != 1 {
		t.Errorf("backups %v", backups)
	}
	r = harness.Run(t, env, harness.Bin(t, "signaltty"), "agent", "setup", "claude", "--write")
	if b2, _ := os.ReadFile(settings); r.Code != 0 || string(b2) != string(b) || !strings.Contains(r.Stdout, "unchanged") {
		t.Errorf("a second --write changed the file: %s", r)
	}
	r = harness.Run(t, env, harness.Bin(t, "signaltty"), "agent", "setup", "codex", "--write")
	if hb, err := os.ReadFile(filepath.Join(home, ".codex", "hooks.json")); r.Code != 0 || err != nil || !strings.Contains(string(hb), "signaltty hook codex PermissionRequest") || !strings.Contains(string(hb), "signaltty hook codex Interrupt") || strings.Contains(r.Stdout, "codex_hooks") {
		t.Errorf("codex setup: %s\n%s", r, hb)
	}
}

func TestAShellRunningAnAgentIsPromotedWhenListed(t *testing.T) {
	t.Parallel()
	w := newAgentWorld(t)
	d := w.d
	d.CreateWorkspace(t, "proj")
	sh := d.Spawn(t, []string{"--workspace", "proj", "--env", "PS1=$ "}, "bash", "--norc", "--noprofile", "-i")
	if p := getAgentPane(t, d, sh.ID); p.Agent != nil && p.Agent.Kind != "none" {
		t.Fatalf("a shell is no agent: %+v", p.Agent)
	}
	d.Send(t, sh.ID, `claude\n`)
	d.WaitLine(t, sh.ID, "fake claude ready nosession")
	waitAgent(t, d, sh.ID, "promoted to claude", func(p agentPane) bool { return p.Agent != nil && p.Agent.Kind == "claude" })
	d.Send(t, sh.ID, `exit\n`)
	d.WaitCapture(t, sh.ID, "the shell's prompt again", func(c harness.Capture) bool { return strings.Count(strings.Join(c.Trimmed(), "\n"), "$") >= 2 })
	if p := getAgentPane(t, d, sh.ID); p.Agent.Kind != "claude" {
		t.Errorf("a kind is never demoted: %+v", p.Agent)
	}
}

// A machine reboot: the real logind's PowerOff makes the daemon save its
// agent panes as live and stop; the next daemon brings them back RESUMABLE
// and each resumes its own conversation.
func TestThreeAgentsComeBackAfterAHostShutdown(t *testing.T) {
	t.Parallel()
	l := harness.StartLogind(t, harness.LogindOptions{Delay: 5, Systemd1: true})
	w := newAgentWorld(t, harness.LogindEnv(l.Address)...)
	d := w.d
	l.WaitInhibitor(t, d.Pid(), harness.PollTimeout)
	d.CreateWorkspace(t, "proj")
	sessions := map[string]string{}
	for i := 1; i <= 3; i++ {
		sid := fmt.Sprintf("6f1d2e3c-0000-4000-8000-00000000010%d", i)
		p := w.spawnAgent(t, "proj", "claude", "--env", "FAKE_SESSION="+sid)
		waitAgent(t, d, p.ID, "session "+sid, func(p agentPane) bool { return p.session() == sid })
		sessions[p.ID] = sid
	}
	l.PowerOff(t)
	if code := d.WaitExit(t, harness.StopTimeout); code != 0 {
		t.Fatalf("signalttyd exited with %d after the host shutdown", code)
	}
	w.d = harness.Start(t, harness.Options{Dir: d.Dir, Env: w.env})
	for id, sid := range sessions {
		if p := getAgentPane(t, w.d, id); p.RestoreState != "RESUMABLE" || p.session() != sid {
			t.Fatalf("pane %s after the reboot: %+v", id, p)
		}
		w.d.JSON(t, nil, "resume", id)
	}
	runs := w.waitRuns(t, "claude", 6)
	for _, sid := range sessions {
		if !slices.ContainsFunc(runs[3:], func(r string) bool { return strings.HasPrefix(r, "argv=--resume "+sid+"|") }) {
			t.Errorf("session %s was not resumed: %q", sid, runs)
		}
	}
}

func TestAssignedSessionAndAbsoluteLaunchPathWithoutLaunchFlags(t *testing.T) {
	t.Parallel()
	w := newAgentWorld(t)
	d := w.d
	d.CreateWorkspace(t, "proj")
	abs := filepath.Join(w.bin, "claude")
	var r struct {
		Pane agentPane `json:"pane"`
	}
	d.JSON(t, &r, "pane", "spawn", "--workspace", "proj", "--assign-session", "--", abs, "--model", "opus")
	a := r.Pane.Agent
	if a == nil || a.Kind != "claude" || len(a.SessionID) != 36 {
		t.Fatalf("assigned session: %+v", a)
	}
	if want := []string{abs, "--resume", a.SessionID}; !slices.Equal(a.ResumeArgv, want) {
		t.Errorf("resume argv %q, want %q (the launch path, no launch flags)", a.ResumeArgv, want)
	}
	if runs := w.waitRuns(t, "claude", 1); runs[0] != "argv=--model opus --session-id "+a.SessionID+"|CLAUDE_CONFIG_DIR=|CODEX_HOME=|ANTHROPIC_API_KEY=|OPENAI_API_KEY=" {
		t.Errorf("claude started as %q", runs[0])
	}
	d.Fail(t, "invalid_params.assign_session", 2, "pane", "spawn", "--workspace", "proj", "--assign-session", "--", "codex")
	d.Fail(t, "invalid_params.agent", 2, "pane", "spawn", "--workspace", "proj", "--agent", "emacs", "--", "true")
}

// The agent block of an older snapshot (no resume_source) is read, and the
// next save writes it back instead of dropping it.
func TestAnOlderAgentBlockSurvivesTheNextSave(t *testing.T) {
	t.Parallel()
	w := newAgentWorld(t)
	d := w.d
	d.CreateWorkspace(t, "proj")
	p := w.spawnAgent(t, "proj", "claude", "--env", "FAKE_SESSION=old-1")
	waitAgent(t, d, p.ID, "session", func(p agentPane) bool { return p.session() == "old-1" })
	d.Stop(t)
	file := filepath.Join(stateDir(d), "snapshot.json")
	snap := savedSnapshot(t, d)
	for _, sp := range snap["panes"].([]any) {
		delete(sp.(map[string]any)["agent"].(map[string]any), "resume_source")
	}
	b, _ := json.Marshal(snap)
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	w.d = harness.Start(t, harness.Options{Dir: d.Dir, Env: w.env})
	if got := getAgentPane(t, w.d, p.ID); got.RestoreState != "RESUMABLE" || got.Agent.ResumeReported {
		t.Fatalf("older block: %+v", got)
	}
	w.d.JSON(t, nil, "save")
	w.restart(t)
	if got := getAgentPane(t, w.d, p.ID); got.RestoreState != "RESUMABLE" || got.session() != "old-1" {
		t.Fatalf("after the next save and a restart: %+v", got)
	}
	if !strings.Contains(fmt.Sprint(savedSnapshot(t, w.d)["panes"]), "resume_source:official") {
		t.Errorf("the next save did not write the block back: %v", savedSnapshot(t, w.d)["panes"])
	}
}

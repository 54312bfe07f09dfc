package service

import "testing"

// A hook event the adapter does not know is not applied: it changes
// nothing, its session id included; a known one records the session.
func TestUnrecognizedHookChangesNothing(t *testing.T) {
	s := newTestService(t)
	w, _ := s.CreateWorkspace("w", t.TempDir())
	p, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sleep", "60"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.HookEvent(HookRequest{Agent: "claude", Event: "BogusEvent", Pane: p.ID, Payload: map[string]any{"session_id": "bogus-2"}})
	if err != nil || res.Accepted || res.Reason != "unrecognized_hook" {
		t.Fatalf("unknown hook: %+v %v", res, err)
	}
	if g, _ := s.GetPane(p.ID); g.Agent != nil && g.Agent.SessionID != "" {
		t.Fatalf("an unrecognized hook recorded session %q", g.Agent.SessionID)
	}
	res, err = s.HookEvent(HookRequest{Agent: "claude", Event: "SessionStart", Pane: p.ID, Payload: map[string]any{"session_id": "real-1"}})
	if err != nil || !res.Accepted {
		t.Fatalf("SessionStart: %+v %v", res, err)
	}
	if g, _ := s.GetPane(p.ID); g.Agent == nil || g.Agent.SessionID != "real-1" {
		t.Fatalf("SessionStart did not record its session: %+v", g.Agent)
	}
}

// hookStep is one hook event and the lifecycle and attention it leaves.
type hookStep struct {
	event     string
	payload   map[string]any
	lifecycle string
	attention string
}

func runHookSteps(t *testing.T, agent string, steps []hookStep) {
	t.Helper()
	s := newTestService(t)
	w, _ := s.CreateWorkspace("w", t.TempDir())
	p, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sleep", "60"}})
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range steps {
		res, err := s.HookEvent(HookRequest{Agent: agent, Event: st.event, Pane: p.ID, Payload: st.payload})
		if err != nil || !res.Accepted {
			t.Fatalf("step %d %s: %+v %v", i, st.event, res, err)
		}
		if res.Lifecycle != st.lifecycle || res.Attention != st.attention {
			t.Fatalf("step %d %s: lifecycle %s attention %s, want %s %s", i, st.event, res.Lifecycle, res.Attention, st.lifecycle, st.attention)
		}
	}
}

// Claude Code 2.1: a permission dialog blocks the pane at once
// (PermissionRequest), the answered permission returns it to working (the
// tool's PostToolUse), the turn's end leaves no permission behind, the
// idle_prompt notification a minute later changes nothing, and an API
// error (StopFailure) fails the turn.
func TestClaudePermissionAnsweredIdlePromptAndAPIError(t *testing.T) {
	sid := map[string]any{"session_id": "0b5c7a36-5d0e-4c43-9d3b-2f1f0c1e6a11", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp"}
	with := func(kv ...string) map[string]any {
		m := map[string]any{}
		for k, v := range sid {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	runHookSteps(t, "claude", []hookStep{
		{"SessionStart", with("hook_event_name", "SessionStart", "source", "startup", "model", "claude-sonnet"), "idle", "none"},
		{"UserPromptSubmit", with("hook_event_name", "UserPromptSubmit", "prompt", "run ls"), "working", "none"},
		{"PreToolUse", with("hook_event_name", "PreToolUse", "tool_name", "Bash"), "working", "none"},
		{"PermissionRequest", with("hook_event_name", "PermissionRequest", "tool_name", "Bash"), "blocked", "permission_required"},
		{"Notification", with("hook_event_name", "Notification", "notification_type", "permission_prompt", "message", "Claude needs your permission to use Bash"), "blocked", "permission_required"},
		{"PostToolUse", with("hook_event_name", "PostToolUse", "tool_name", "Bash"), "working", "none"},
		{"PermissionRequest", with("hook_event_name", "PermissionRequest", "tool_name", "Bash"), "blocked", "permission_required"},
		{"Stop", with("hook_event_name", "Stop", "last_assistant_message", "done"), "done", "unread"},
		{"Notification", with("hook_event_name", "Notification", "notification_type", "idle_prompt", "message", "Claude is waiting for your input"), "done", "unread"},
		{"UserPromptSubmit", with("hook_event_name", "UserPromptSubmit"), "working", "none"},
		{"StopFailure", with("hook_event_name", "StopFailure", "error", "rate_limit"), "failed", "error"},
		{"UserPromptSubmit", with("hook_event_name", "UserPromptSubmit"), "working", "none"},
		{"SessionStart", with("hook_event_name", "SessionStart", "source", "compact"), "working", "none"},
	})
}

// Codex 0.171: Esc fires Interrupt and no Stop; the pane leaves working
// and a pending approval goes with the turn.
func TestCodexInterruptLeavesWorking(t *testing.T) {
	sid := func(ev string) map[string]any {
		return map[string]any{"session_id": "019a1b2c-3d4e-7f60-8a9b-0c1d2e3f4a5b", "turn_id": "t1", "hook_event_name": ev, "cwd": "/tmp", "model": "gpt-5"}
	}
	runHookSteps(t, "codex", []hookStep{
		{"SessionStart", sid("SessionStart"), "idle", "none"},
		{"UserPromptSubmit", sid("UserPromptSubmit"), "working", "none"},
		{"PreModelRequest", sid("PreModelRequest"), "working", "none"},
		{"PermissionRequest", sid("PermissionRequest"), "blocked", "permission_required"},
		{"Interrupt", sid("Interrupt"), "idle", "none"},
		{"UserPromptSubmit", sid("UserPromptSubmit"), "working", "none"},
		{"Stop", sid("Stop"), "done", "unread"},
	})
}

// opencode 1.18: busy is session.status {type: busy}; permission.asked
// raises attention and permission.replied returns the pane to working.
func TestOpencodeStatusAndPermissionEvents(t *testing.T) {
	runHookSteps(t, "opencode", []hookStep{
		{"session.created", map[string]any{"sessionID": "ses_1", "info": map[string]any{"id": "ses_1"}}, "idle", "none"},
		{"session.status", map[string]any{"sessionID": "ses_1", "status": map[string]any{"type": "busy"}}, "working", "none"},
		{"permission.asked", map[string]any{"id": "per_1", "sessionID": "ses_1", "permission": "bash"}, "blocked", "permission_required"},
		{"session.status", map[string]any{"sessionID": "ses_1", "status": map[string]any{"type": "busy"}}, "blocked", "permission_required"},
		{"permission.replied", map[string]any{"sessionID": "ses_1", "requestID": "per_1", "reply": "once"}, "working", "none"},
		{"session.status", map[string]any{"sessionID": "ses_1", "status": map[string]any{"type": "idle"}}, "done", "unread"},
		{"session.idle", map[string]any{"sessionID": "ses_1"}, "done", "unread"},
	})
}

// Gemini CLI 0.61: a ToolPermission notification asks for a permission;
// AfterTool means it was answered.
func TestGeminiToolPermission(t *testing.T) {
	sid := map[string]any{"session_id": "5f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"}
	runHookSteps(t, "gemini", []hookStep{
		{"SessionStart", sid, "idle", "none"},
		{"BeforeAgent", sid, "working", "none"},
		{"Notification", map[string]any{"session_id": sid["session_id"], "notification_type": "ToolPermission", "message": "run ls?"}, "blocked", "permission_required"},
		{"AfterTool", sid, "working", "none"},
		{"AfterAgent", sid, "done", "unread"},
	})
}

// pi: the extension's events give a lifecycle; a session_start before
// the session file exists carries no session id, so nothing is resumable.
func TestPiExtensionEvents(t *testing.T) {
	runHookSteps(t, "pi", []hookStep{
		{"session_start", map[string]any{"reason": "startup"}, "idle", "none"},
		{"agent_start", map[string]any{"session_id": "p1"}, "working", "none"},
		{"agent_end", map[string]any{"session_id": "p1"}, "done", "unread"},
	})
}

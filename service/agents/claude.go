package agents

import "strings"

// Claude Code, checked against its public documentation (2026-12) and the
// hook table of Claude Code 2.1.332 itself:
//   - hooks: https://code.claude.com/docs/en/hooks — hooks are configured in
//     settings.json under "hooks", each event a list of {matcher, hooks:
//     [{type: "command", command, timeout (seconds)}]}; a command hook gets
//     the event's JSON on stdin with session_id, transcript_path, cwd and
//     hook_event_name; SessionStart adds source (startup, resume, clear,
//     compact), Notification adds message and notification_type
//     (permission_prompt, idle_prompt 60 s after a turn, elicitation_dialog,
//     auth_success), PermissionRequest (a permission dialog opened) adds
//     tool_name, Stop adds last_assistant_message, StopFailure fires instead
//     of Stop when an API error ended the turn, PostToolUseFailure adds
//     error and is_interrupt.
//   - resume: https://code.claude.com/docs/en/cli-reference — `claude --resume
//     <session id>` (short -r) resumes a conversation by id; `claude
//     --session-id <uuid>` starts one with a chosen id.
//   - settings: https://code.claude.com/docs/en/settings — CLAUDE_CONFIG_DIR
//     moves ~/.claude (settings, sessions) elsewhere.
func init() {
	register(&Adapter{
		Kind:        "claude",
		Program:     "claude",
		Binaries:    []string{"claude"},
		SessionKeys: []string{"session_id"},
		ResumeArgs:  func(id string) []string { return []string{"--resume", id} },
		AssignArgs:  func(id string) []string { return []string{"--session-id", id} },
		ConfigEnv:   []string{"CLAUDE_CONFIG_DIR"},
		Hooks: map[string]Decision{
			"SessionStart":       {Lifecycle: LifecycleIdle, Message: "session started"},
			"UserPromptSubmit":   {Lifecycle: LifecycleWorking, ClearAttention: true},
			"PreToolUse":         {Lifecycle: LifecycleWorking, Tool: true},
			"PostToolUse":        {Lifecycle: LifecycleWorking, Answered: true},
			"PostToolUseFailure": {Lifecycle: LifecycleWorking, Answered: true},
			"PermissionDenied":   {Lifecycle: LifecycleWorking, Tool: true},
			"PreCompact":         {Lifecycle: LifecycleWorking, Tool: true},
			"PostCompact":        {Lifecycle: LifecycleWorking, Tool: true},
			"SubagentStart":      {Lifecycle: LifecycleWorking, Tool: true},
			"SubagentStop":       {Lifecycle: LifecycleWorking, Tool: true},
			"PermissionRequest": {Lifecycle: LifecycleBlocked, Attention: AttentionPermissionRequired, Message: "permission requested",
				NotifyTitle: "Claude needs approval", NotifySeverity: "warning", NotifyBodyKey: "tool_name"},
			"Elicitation": {Lifecycle: LifecycleBlocked, Attention: AttentionInputRequired, Message: "input requested",
				NotifyTitle: "Claude needs input", NotifySeverity: "info", NotifyBodyKey: "message"},
			"ElicitationResult": {Lifecycle: LifecycleWorking, Answered: true},
			"Notification": {Lifecycle: LifecycleBlocked, Attention: AttentionInputRequired, Message: "input requested",
				NotifyTitle: "Claude needs input", NotifySeverity: "info", NotifyBodyKey: "message"},
			"Stop": {Lifecycle: LifecycleDone, Attention: AttentionUnread, Message: "turn complete", EndsTurn: true,
				NotifyTitle: "Claude finished", NotifySeverity: "info", NotifyBodyKey: "last_assistant_message"},
			"StopFailure": {Lifecycle: LifecycleFailed, Attention: AttentionError, Message: "turn failed", EndsTurn: true,
				NotifyTitle: "Claude stopped on an error", NotifySeverity: "error", NotifyBodyKey: "error"},
			"SessionEnd": {Lifecycle: LifecycleDone, Attention: AttentionUnread, Message: "session ended", KeepFinished: true, EndsTurn: true},
		},
		Refine: claudeRefine,
	})
}

// claudeRefine reads a Notification by its notification_type: a permission
// prompt asks for a permission; idle_prompt (sent 60 s after a finished
// turn) and auth_success ask for nothing and change nothing; a
// SessionStart after a compaction happens inside a turn and changes
// nothing either.
func claudeRefine(event string, payload map[string]any, d Decision) Decision {
	switch event {
	case "SessionStart":
		if src, _ := payload["source"].(string); src == "compact" {
			return Decision{}
		}
	case "Notification":
		t, _ := payload["notification_type"].(string)
		switch {
		case t == "idle_prompt" || t == "auth_success":
			return Decision{}
		case strings.Contains(t, "permission"):
			d.Attention, d.Message = AttentionPermissionRequired, "permission requested"
			d.NotifyTitle, d.NotifySeverity = "Claude needs approval", "warning"
		}
	}
	return d
}

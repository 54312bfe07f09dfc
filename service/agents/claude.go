package agents

import "strings"

// Claude Code, checked against its public documentation (2026-12):
//   - hooks: https://code.claude.com/docs/en/hooks — hooks are configured in
//     settings.json under "hooks", each event a list of {matcher, hooks:
//     [{type: "command", command}]}; a command hook gets the event's JSON on
//     stdin with session_id, transcript_path, cwd and hook_event_name;
//     SessionStart adds source (startup, resume, clear, compact), Notification
//     adds message and notification_type, Stop adds last_assistant_message.
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
			"SessionStart":     {Lifecycle: LifecycleIdle, Message: "session started"},
			"UserPromptSubmit": {Lifecycle: LifecycleWorking, ClearAttention: true},
			"PreToolUse":       {Lifecycle: LifecycleWorking, Tool: true},
			"PostToolUse":      {Lifecycle: LifecycleWorking, Tool: true},
			"PreCompact":       {Lifecycle: LifecycleWorking, Tool: true},
			"Notification": {Lifecycle: LifecycleBlocked, Attention: AttentionInputRequired, Message: "input requested",
				NotifyTitle: "Claude needs input", NotifySeverity: "info", NotifyBodyKey: "message"},
			"Stop": {Lifecycle: LifecycleDone, Attention: AttentionUnread, Message: "turn complete",
				NotifyTitle: "Claude finished", NotifySeverity: "info", NotifyBodyKey: "last_assistant_message"},
			"SessionEnd": {Lifecycle: LifecycleDone, Attention: AttentionUnread, Message: "session ended", KeepFinished: true},
		},
		Refine: permissionNotification("Claude needs approval"),
	})
}

// permissionNotification makes a Notification whose notification_type
// speaks of a permission ask for permission instead of input.
func permissionNotification(title string) func(string, map[string]any, Decision) Decision {
	return func(event string, payload map[string]any, d Decision) Decision {
		if event != "Notification" {
			return d
		}
		if t, _ := payload["notification_type"].(string); strings.Contains(t, "permission") {
			d.Attention, d.Message = AttentionPermissionRequired, "permission requested"
			d.NotifyTitle, d.NotifySeverity = title, "warning"
		}
		return d
	}
}

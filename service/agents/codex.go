package agents

// Codex CLI, checked against its public documentation (2026-12):
//   - hooks: https://developers.openai.com/codex/hooks — hooks sit behind
//     `[features] codex_hooks = true` in config.toml, are read from
//     ~/.codex/hooks.json (or [hooks] tables in config.toml) in the same
//     event → [{matcher, hooks: [{type: "command", command}]}] shape as
//     Claude Code's, and must be reviewed and trusted before they run;
//     events: SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest,
//     PostToolUse, PreCompact, PostCompact, SubagentStop, Stop. Every input
//     carries session_id (openai/codex
//     codex-rs/hooks/schema/generated/session-start.command.input.schema.json).
//   - resume: https://developers.openai.com/codex/cli/reference — `codex
//     resume <SESSION_ID>` continues a recorded session.
//   - CODEX_HOME selects the directory holding config.toml, hooks.json and
//     sessions/ (https://developers.openai.com/codex/config-advanced).
func init() {
	register(&Adapter{
		Kind:        "codex",
		Program:     "codex",
		Binaries:    []string{"codex"},
		SessionKeys: []string{"session_id"},
		ResumeArgs:  func(id string) []string { return []string{"resume", id} },
		ConfigEnv:   []string{"CODEX_HOME"},
		Hooks: map[string]Decision{
			"SessionStart":     {Lifecycle: LifecycleIdle, Message: "session started"},
			"UserPromptSubmit": {Lifecycle: LifecycleWorking, ClearAttention: true},
			"PreToolUse":       {Lifecycle: LifecycleWorking, Tool: true},
			"PostToolUse":      {Lifecycle: LifecycleWorking, Tool: true},
			"PreCompact":       {Lifecycle: LifecycleWorking, Tool: true},
			"PostCompact":      {Lifecycle: LifecycleWorking, Tool: true},
			"PermissionRequest": {Lifecycle: LifecycleBlocked, Attention: AttentionPermissionRequired, Message: "approval requested",
				NotifyTitle: "Codex needs approval", NotifySeverity: "warning", NotifyBodyKey: "tool_name"},
			"Stop": {Lifecycle: LifecycleDone, Attention: AttentionUnread, Message: "turn complete",
				NotifyTitle: "Codex finished", NotifySeverity: "info", NotifyBodyKey: "last_assistant_message"},
			"agent-turn-complete": {Lifecycle: LifecycleDone, Attention: AttentionUnread, Message: "turn complete"},
			"SubagentStop":        {},
		},
	})
}

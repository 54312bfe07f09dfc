package agents

import "path/filepath"

// Codex CLI, checked against its public documentation (2026-12) and the
// hook schemas built into Codex 0.171.0 (codex-rs/hooks/schema/generated):
//   - hooks: https://developers.openai.com/codex/hooks — hooks are on by
//     default (no feature flag), are read from ~/.codex/hooks.json (or
//     [hooks] tables in config.toml) in the same event → [{matcher, hooks:
//     [{type: "command", command}]}] shape as Claude Code's, and must be
//     reviewed and trusted before they run ("Hooks need review" at start,
//     or /hooks). Its 14 events: PreToolUse, PermissionRequest,
//     PostToolUse, PreCompact, PostCompact, SessionStart, SessionEnd,
//     UserPromptSubmit, SubagentStart, SubagentStop, Stop, Interrupt (Esc
//     ended the turn; no Stop follows), PreModelRequest, PostModelRequest.
//     Every input carries session_id and turn_id; Stop and Interrupt carry
//     last_assistant_message, PermissionRequest tool_name.
//   - Codex's `notify` program gets an agent-turn-complete JSON (kebab-case
//     keys: thread-id, turn-id, last-assistant-message) as its last
//     argument; `signaltty hook codex agent-turn-complete JSON` reads it as
//     a Stop (setup installs the Stop hook, not notify).
//   - SessionStart runs when the first turn starts (the TUI's session has
//     no hook before its first prompt), so a pane learns its session id
//     with its first prompt.
//   - resume: https://developers.openai.com/codex/cli/reference — `codex
//     resume <SESSION_ID>` continues a recorded session.
//   - shared app-server: with [features] daemon_auto_start (on by default)
//     the first codex starts `codex app-server --managed-daemon` in a
//     session of its own and every later codex TUI of the user talks to
//     it; it runs their hooks and MCP servers, so their processes descend
//     from it whichever pane they serve. `daemon_auto_start = false` makes
//     each codex run its own server under its pane.
//   - CODEX_HOME selects the directory holding config.toml, hooks.json and
//     sessions/ (https://developers.openai.com/codex/config-advanced).
func init() {
	register(&Adapter{
		Kind:         "codex",
		Program:      "codex",
		Binaries:     []string{"codex"},
		SessionKeys:  []string{"session_id", "thread-id"},
		ResumeArgs:   func(id string) []string { return []string{"resume", id} },
		ConfigEnv:    []string{"CODEX_HOME"},
		SharedHelper: codexSharedAppServer,
		SharedHelperFix: "run `signaltty agent setup codex --write` (it sets [features] daemon_auto_start = false in Codex's config.toml) " +
			"and restart every codex, so each pane's codex runs its own app-server",
		Hooks: map[string]Decision{
			"SessionStart":     {Lifecycle: LifecycleIdle, Message: "session started"},
			"UserPromptSubmit": {Lifecycle: LifecycleWorking, ClearAttention: true},
			"PreToolUse":       {Lifecycle: LifecycleWorking, Tool: true},
			"PostToolUse":      {Lifecycle: LifecycleWorking, Answered: true},
			"PreCompact":       {Lifecycle: LifecycleWorking, Tool: true},
			"PostCompact":      {Lifecycle: LifecycleWorking, Tool: true},
			"SubagentStart":    {Lifecycle: LifecycleWorking, Tool: true},
			"SubagentStop":     {Lifecycle: LifecycleWorking, Tool: true},
			"PreModelRequest":  {Lifecycle: LifecycleWorking, Tool: true},
			"PostModelRequest": {Lifecycle: LifecycleWorking, Tool: true},
			"PermissionRequest": {Lifecycle: LifecycleBlocked, Attention: AttentionPermissionRequired, Message: "approval requested",
				NotifyTitle: "Codex needs approval", NotifySeverity: "warning", NotifyBodyKey: "tool_name"},
			"Stop": {Lifecycle: LifecycleDone, Attention: AttentionUnread, Message: "turn complete", EndsTurn: true,
				NotifyTitle: "Codex finished", NotifySeverity: "info", NotifyBodyKey: "last_assistant_message"},
			"agent-turn-complete": {Lifecycle: LifecycleDone, Attention: AttentionUnread, Message: "turn complete", EndsTurn: true,
				NotifyTitle: "Codex finished", NotifySeverity: "info", NotifyBodyKey: "last-assistant-message"},
			"Interrupt":  {Lifecycle: LifecycleIdle, Message: "turn interrupted", EndsTurn: true},
			"SessionEnd": {Lifecycle: LifecycleDone, Attention: AttentionUnread, Message: "session ended", KeepFinished: true, EndsTurn: true},
		},
	})
}

// codexSharedAppServer recognises Codex's shared app-server: argv
// `codex app-server … --managed-daemon …`, the program named directly or
// through its node launcher (codex.js).
func codexSharedAppServer(argv []string) bool {
	for i := 1; i < len(argv) && i <= 2; i++ {
		if argv[i] != "app-server" {
			continue
		}
		if b := filepath.Base(argv[i-1]); b != "codex" && b != "codex.js" {
			continue
		}
		for _, a := range argv[i+1:] {
			if a == "--managed-daemon" {
				return true
			}
		}
	}
	return false
}

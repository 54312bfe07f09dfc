package agents

// Gemini CLI, checked against its public documentation (2026-12):
//   - resume: google-gemini/gemini-cli docs/cli/session-management.md —
//     `gemini --resume <session id>` (or an index from --list-sessions)
//     reopens a saved session.
//   - hooks: https://geminicli.com/docs/hooks — settings.json "hooks" with
//     events SessionStart, BeforeAgent, AfterAgent, Notification, SessionEnd
//     (among others); a command hook reads JSON with session_id on stdin.
//   - GEMINI_CLI_HOME is the root under which .gemini (settings, sessions)
//     is kept (https://geminicli.com/docs/reference/configuration).
func init() {
	register(&Adapter{
		Kind:        "gemini",
		Program:     "gemini",
		Binaries:    []string{"gemini"},
		SessionKeys: []string{"session_id"},
		ResumeArgs:  func(id string) []string { return []string{"--resume", id} },
		ConfigEnv:   []string{"GEMINI_CLI_HOME"},
		Hooks: map[string]Decision{
			"SessionStart": {Lifecycle: LifecycleIdle, Message: "session started"},
			"BeforeAgent":  {Lifecycle: LifecycleWorking, ClearAttention: true},
			"BeforeTool":   {Lifecycle: LifecycleWorking, Tool: true},
			"AfterTool":    {Lifecycle: LifecycleWorking, Tool: true},
			"Notification": {Lifecycle: LifecycleBlocked, Attention: AttentionInputRequired, Message: "input requested"},
			"AfterAgent":   {Lifecycle: LifecycleDone, Attention: AttentionUnread, Message: "turn complete"},
			"SessionEnd":   {Lifecycle: LifecycleDone, Attention: AttentionUnread, Message: "session ended", KeepFinished: true},
		},
	})
}

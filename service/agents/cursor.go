package agents

// Cursor's CLI agent, checked against its public documentation (2026-12):
//   - resume: https://docs.cursor.com/en/cli/using — `cursor-agent --resume
//     <chatId>` continues a chat (`cursor-agent ls` lists them).
//   - hooks: https://docs.cursor.com/en/agent/hooks — hooks.json events
//     sessionStart, beforeSubmitPrompt, preToolUse, postToolUse, stop,
//     sessionEnd get JSON on stdin with conversation_id.
func init() {
	register(&Adapter{
		Kind:        "cursor",
		Program:     "cursor-agent",
		Binaries:    []string{"cursor-agent"},
		SessionKeys: []string{"session_id", "sessionId", "conversation_id", "chatId"},
		ResumeArgs:  func(id string) []string { return []string{"--resume", id} },
		Hooks: map[string]Decision{
			"sessionStart":       {Lifecycle: LifecycleIdle, Message: "session started"},
			"beforeSubmitPrompt": {Lifecycle: LifecycleWorking, ClearAttention: true},
			"preToolUse":         {Lifecycle: LifecycleWorking, Tool: true},
			"postToolUse":        {Lifecycle: LifecycleWorking, Tool: true},
			"stop":               {Lifecycle: LifecycleDone, Attention: AttentionUnread, Message: "turn complete"},
			"sessionEnd":         {Lifecycle: LifecycleDone, Attention: AttentionUnread, Message: "session ended", KeepFinished: true},
		},
	})
}

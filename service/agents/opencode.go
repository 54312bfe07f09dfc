package agents

// opencode, checked against its public documentation (2026-12):
//   - resume: https://opencode.ai/docs/cli — `opencode --session <id>` (-s)
//     continues a session.
//   - plugins receive session events (session.created, session.status,
//     session.idle, session.error) with the session id as sessionID
//     (https://opencode.ai/docs/plugins); a plugin calls `signaltty hook
//     opencode <event>` with that event's JSON.
//   - OPENCODE_CONFIG_DIR names an extra configuration directory
//     (https://opencode.ai/docs/config).
func init() {
	register(&Adapter{
		Kind:        "opencode",
		Program:     "opencode",
		Binaries:    []string{"opencode"},
		SessionKeys: []string{"session_id", "sessionID"},
		ResumeArgs:  func(id string) []string { return []string{"--session", id} },
		ConfigEnv:   []string{"OPENCODE_CONFIG_DIR"},
		Hooks: map[string]Decision{
			"session.created": {Lifecycle: LifecycleIdle, Message: "session started"},
			"session.busy":    {Lifecycle: LifecycleWorking, ClearAttention: true},
			"session.idle":    {Lifecycle: LifecycleDone, Attention: AttentionUnread, Message: "session idle"},
			"session.error":   {Lifecycle: LifecycleFailed, Attention: AttentionError, Message: "session error"},
			"session.status":  {},
		},
		Refine: func(event string, payload map[string]any, d Decision) Decision {
			if event != "session.status" {
				return d
			}
			st, _ := payload["status"].(string)
			if m, ok := payload["status"].(map[string]any); ok {
				st, _ = m["type"].(string)
			}
			switch st {
			case "busy":
				return Decision{Lifecycle: LifecycleWorking, ClearAttention: true}
			case "idle":
				return Decision{Lifecycle: LifecycleDone, Attention: AttentionUnread, Message: "session idle"}
			}
			return d
		},
	})
}

package agents

// opencode, checked against its public documentation (2026-12) and the
// events of opencode 1.18.33:
//   - resume: https://opencode.ai/docs/cli — `opencode --session <id>` (-s)
//     continues a session.
//   - plugins (https://opencode.ai/docs/plugins): a .js or .ts file in
//     plugin/ or plugins/ of a configuration directory (~/.config/opencode,
//     $OPENCODE_CONFIG_DIR) gets every bus event {type, properties}. The
//     ones that matter here: session.created, session.status (properties
//     {sessionID, status: {type: busy|idle|retry}}; there is no
//     session.busy), session.idle, session.error, permission.asked
//     ({id, sessionID, permission, …}) and permission.replied ({sessionID,
//     requestID, reply}); message.updated ({info: {role, sessionID,
//     modelID, …}}) names an assistant message's model. An interrupted turn is a session.error whose
//     error is {name: "MessageAbortedError"}. The plugin `signaltty agent setup opencode` writes
//     calls `signaltty hook opencode <type>` with the properties as JSON,
//     one event at a time, in order.
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
			"session.idle":    {Lifecycle: LifecycleDone, Attention: AttentionUnread, Message: "session idle", EndsTurn: true},
			"session.error": {Lifecycle: LifecycleFailed, Attention: AttentionError, Message: "session error", EndsTurn: true,
				NotifyTitle: "opencode stopped on an error", NotifySeverity: "error"},
			"session.status": {},
			"permission.asked": {Lifecycle: LifecycleBlocked, Attention: AttentionPermissionRequired, Message: "permission requested",
				NotifyTitle: "opencode needs approval", NotifySeverity: "warning", NotifyBodyKey: "permission"},
			"permission.replied": {Lifecycle: LifecycleWorking, Answered: true},
			// The plugin passes an assistant message.updated on as
			// {sessionID, model} when the session's model changes: the
			// pane's agent.model, nothing else.
			"message.updated": {},
		},
		Refine: func(event string, payload map[string]any, d Decision) Decision {
			if event == "session.error" {
				// An interrupt (Esc twice) ends the turn with
				// MessageAbortedError, which opencode's own screen does
				// not show as an error.
				if e, _ := payload["error"].(map[string]any); e != nil && e["name"] == "MessageAbortedError" {
					return Decision{Lifecycle: LifecycleIdle, Message: "turn interrupted", EndsTurn: true}
				}
				return d
			}
			if event != "session.status" {
				return d
			}
			st, _ := payload["status"].(string)
			if m, ok := payload["status"].(map[string]any); ok {
				st, _ = m["type"].(string)
			}
			switch st {
			case "busy", "retry":
				return Decision{Lifecycle: LifecycleWorking, Tool: true}
			case "idle":
				return Decision{Lifecycle: LifecycleDone, Attention: AttentionUnread, Message: "session idle", EndsTurn: true}
			}
			return d
		},
	})
}

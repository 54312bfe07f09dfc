package agents

// pi (the pi coding agent), checked against its documentation as shipped
// in @mariozechner/pi-coding-agent 0.73.1 (README.md, docs/extensions.md,
// docs/sessions.md): `pi --session <path|id>` opens an existing session
// (there is no --session-id flag). pi has no hooks but extensions: a
// module in ~/.pi/agent/extensions/ gets session_start, agent_start
// (once per prompt), agent_end and session_shutdown, with
// ctx.sessionManager.getSessionId() and getSessionFile(). pi writes the
// session file only after the first message, so the extension `signaltty
// agent setup pi` writes passes session_id only once that file exists: a
// session that was never written is not resumable. Without the extension
// `signaltty report-session` still records a session.
func init() {
	register(&Adapter{
		Kind:        "pi",
		Program:     "pi",
		Binaries:    []string{"pi"},
		SessionKeys: []string{"session_id"},
		ResumeArgs:  func(id string) []string { return []string{"--session", id} },
		Hooks: map[string]Decision{
			"session_start":    {Lifecycle: LifecycleIdle, Message: "session started"},
			"agent_start":      {Lifecycle: LifecycleWorking, ClearAttention: true},
			"agent_end":        {Lifecycle: LifecycleDone, Attention: AttentionUnread, Message: "turn complete", EndsTurn: true},
			"session_shutdown": {Lifecycle: LifecycleDone, Message: "session ended", KeepFinished: true, EndsTurn: true},
		},
		Refine: piRefine,
	})
}

// piRefine reads agent_end by the stop_reason the extension passes (the
// last assistant message's stopReason, pi's docs/session-format.md): a
// model call that failed ("error") ends the turn failed.
func piRefine(event string, payload map[string]any, d Decision) Decision {
	if event == "agent_end" {
		if r, _ := payload["stop_reason"].(string); r == "error" {
			return Decision{Lifecycle: LifecycleFailed, Attention: AttentionError, Message: "model call failed", EndsTurn: true,
				NotifyTitle: "pi stopped on an error", NotifySeverity: "error", NotifyBodyKey: "error_message"}
		}
	}
	return d
}

package agents

// Gemini CLI, checked against its public documentation (2026-12) and the
// hook events of Gemini CLI 0.61.0 (HookEventName in its bundle):
//   - resume: google-gemini/gemini-cli docs/cli/session-management.md —
//     `gemini --resume <session id>` (or an index from --list-sessions)
//     reopens a saved session.
//   - hooks: https://geminicli.com/docs/hooks — settings.json "hooks" in
//     Claude Code's shape, but each hook's timeout is in milliseconds
//     (default 60000); hooksConfig.enabled is on by default. Events:
//     SessionStart, BeforeAgent, AfterAgent, BeforeTool, AfterTool,
//     BeforeModel, AfterModel, BeforeToolSelection, PreCompress,
//     Notification (notification_type "ToolPermission" when a tool waits
//     for confirmation), SessionEnd; a command hook reads JSON with
//     session_id on stdin. BeforeModel (once per model call, before it
//     is sent) carries the request, its model in llm_request.model
//     (toHookLLMRequest in the bundle); AfterModel fires once per
//     streamed chunk, so it is not used.
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
		ModelPath:   []string{"llm_request", "model"},
		Hooks: map[string]Decision{
			"SessionStart": {Lifecycle: LifecycleIdle, Message: "session started"},
			"BeforeAgent":  {Lifecycle: LifecycleWorking, ClearAttention: true},
			"BeforeTool":   {Lifecycle: LifecycleWorking, Tool: true},
			"BeforeModel":  {Lifecycle: LifecycleWorking, Tool: true},
			"AfterTool":    {Lifecycle: LifecycleWorking, Answered: true},
			"PreCompress":  {Lifecycle: LifecycleWorking, Tool: true},
			"Notification": {Lifecycle: LifecycleBlocked, Attention: AttentionInputRequired, Message: "input requested",
				NotifyTitle: "Gemini needs input", NotifySeverity: "info", NotifyBodyKey: "message"},
			"AfterAgent": {Lifecycle: LifecycleDone, Attention: AttentionUnread, Message: "turn complete", EndsTurn: true},
			"SessionEnd": {Lifecycle: LifecycleDone, Attention: AttentionUnread, Message: "session ended", KeepFinished: true, EndsTurn: true},
		},
		Refine: func(event string, payload map[string]any, d Decision) Decision {
			if t, _ := payload["notification_type"].(string); event == "Notification" && t == "ToolPermission" {
				d.Attention, d.Message = AttentionPermissionRequired, "permission requested"
				d.NotifyTitle, d.NotifySeverity = "Gemini needs approval", "warning"
			}
			return d
		},
	})
}

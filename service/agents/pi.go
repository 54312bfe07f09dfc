package agents

// pi (the pi coding agent), checked against its public documentation
// (2026-12): badlogic/pi-mono packages/coding-agent README — `pi --session
// <path|id>` opens an existing session. Its --session-id starts a new
// session when the id is unknown, so it is never used to resume. pi has no
// hooks: a session id reaches signaltty through `signaltty report-session`.
func init() {
	register(&Adapter{
		Kind:        "pi",
		Program:     "pi",
		Binaries:    []string{"pi"},
		SessionKeys: []string{"session_id"},
		ResumeArgs:  func(id string) []string { return []string{"--session", id} },
	})
}

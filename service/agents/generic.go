package agents

// generic is an agent signaltty has no adapter for (a wrapper script, an
// agent declared with --agent generic). It may report a session id, but it
// has no official resume command: only a self-reported one, run on an
// explicit resume.
func init() {
	register(&Adapter{Kind: KindGeneric, SessionKeys: []string{"session_id"}})
}

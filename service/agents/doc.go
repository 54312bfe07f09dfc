// Package agents owns what signaltty knows of the coding agents in its
// panes (docs/agents.md).
//
// The adapters are the table of agents: how to recognise one from its
// command, which hook payload key carries its session id, which command
// resumes a session, which configuration directory variables it reads, and
// how its hook events map to a pane's lifecycle and attention. Each agent's
// entry sits beside the public documentation it was checked against.
//
// State is one pane's agent: its kind, session, resume command, lifecycle,
// attention and last message, with the rules that change them (a hook
// event, a reported session, a question answered, an exit, a scan's
// promotion) and the rule of which resume command is the official one.
// NoteList is the kept notifications. Both are guarded by their caller's
// lock; their methods return the events a change means (Change) for the
// caller to publish, and never publish, block or touch the disk.
//
// The package never imports service.
package agents

// Package service is signaltty's domain: workspaces, tabs and panes, the
// verbs that change them, runs, and the events they publish.
//
// One mutex (Service.mu) owns the whole state; every field of the model is
// read and written with it held, except the process handle and terminal of
// a removed pane, which no longer change and are released by its remover
// after unlocking. A verb's changes and the events they cause are made in
// one critical section, so subscribers see them together and in order.
//
// A pane's lifecycle (docs/pane-lifecycle.md) is one field changed by one
// function, transition in lifecycle.go, which publishes the events of each
// move. Starting a process is one path for every verb (start.go): reserve
// under the lock, fork/exec without it, commit under it if the world is
// still as reserved.
//
// Rule: nothing that takes a terminal or PTY lock (capture, resize,
// signals, input, termination), and no fork/exec or disk access, happens
// while Service.mu is held; terminals call back into the service
// (observations, exits) with their own locks held, so the reverse order
// would deadlock.
//
// Requests are validated once, at the service boundary, in one file per
// request kind (validate_*.go); the layers below trust what they are given.
// The service never imports the varlink layer: it returns *Error values
// with a dotted code ("not_found.pane", docs/errors.md) that adapters map
// to interface errors.
//
// Files: service.go (the Service, status, shutdown, lookups), model.go
// (entities and their snapshots), lifecycle.go (pane states and the one
// transition function), start.go (the start path: spawn), relaunch.go,
// terminate.go (stop sequence, kill), remove.go (pane, tab and workspace
// removal), pane.go (the other pane verbs: list, get, input, resize,
// signal, capture), observe.go (observations and exits of a pane's
// process), workspace.go, tab.go, layout.go (split trees), run.go (runs and
// how they follow their pane; their rules: service/runs), service/events (every event
// type with its data), events.go (subscriptions), persist.go (snapshots and
// restore), env.go (children's environment), git.go (workspaces' git state:
// computed by running git outside s.mu, stored under it), worktree.go (a
// workspace in a new git worktree, removal of a clean one), publish.go
// (events through the journal), errors.go, validate_*.go;
// agents (docs/agents.md): agent.go (a pane's agent, lifecycle, attention,
// and the observer that follows its process), agent_hook.go (hooks and
// session reports), agent_scan.go (the on-demand /proc look), resume.go
// (resume and auto-resume through the start path), agent_persist.go,
// notify.go; the adapters are in service/agents, one file per agent.
package service

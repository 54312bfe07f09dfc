// Package service is signaltty's domain: workspaces, tabs and panes, the
// verbs that change them, runs, and the events they publish.
//
// One mutex (Service.mu) owns the whole state; every field of the model is
// read and written with it held, except the process handle and terminal of
// a removed pane, which no longer change and are released by its remover
// after unlocking. A verb's changes and the events they cause are made in
// one critical section, so subscribers see them together and in order.
//
// Lock rule: a function that wants Service.mu held is named …Locked and
// never takes it itself (it may let it go while it waits and take it
// back); the methods of model, the workspaces, tabs and panes with their
// lookups, all want it by their type's rule. lock_names_test.go holds the
// package to this.
//
// A pane's lifecycle (docs/pane-lifecycle.md) is one field changed by one
// function, transitionLocked in lifecycle.go, which publishes the events
// of each move; whether a pane was announced, and the state clients see
// while it starts, are read from that field. Starting a process is one
// sequence for every verb (startPane in start.go: reserve under the lock,
// fork/exec without it, commit under it if the world is still as
// reserved, settle); a spawn, a run and a relaunch or resume differ only
// in the startSteps they give it.
//
// Service holds the model, the lock and the pane verbs (Mux); the other
// interfaces' verbs are on views of it that share both: Runs (Run.*),
// Access (who is calling and what it may do), Settings (Server.GetConfig
// and SetConfig, history depth, emulator release, limits), Notifications
// and Git (workspaces' git state and worktrees).
//
// Rule: nothing that takes a terminal or PTY lock (capture, resize,
// signals, input, termination), and no fork/exec or disk access, happens
// while Service.mu is held; terminals call back into the service
// (observations, exits) with their own locks held, so the reverse order
// would deadlock.
//
// Requests are validated once, at the service boundary (validate_*.go,
// with the bounds and the checks that need no state in service/request);
// the layers below trust what they are given. The service never imports
// the varlink layer: it returns *Error values with a dotted code
// ("not_found.pane", docs/errors.md) that adapters map to interface
// errors.
//
// The service keeps the verbs, the model and the one lock; the rules that
// need neither live in leaf packages, which never import service and whose
// methods that touch shared state run under the caller's lock:
//
//   - service/errcode: the error type and every code.
//   - service/events: event types, their data and declarations, filters, subscribers.
//   - service/request: request bounds and the checks of request values.
//   - service/runs: a run's record, key, ids, output tail and retention.
//   - service/authz: principals, grants, creator rights and decisions.
//   - service/procs: the pane mark, what is read of processes in /proc, the sweep of escapees, previous daemons' leftovers.
//   - service/persist: what a snapshot holds, the saver and its schedule, how panes restore; settings.
//   - service/agents: the coding agents signaltty knows, their adapters, a pane's agent state, notifications.
package service

// Package service is signaltty's domain: workspaces, tabs and panes, the
// verbs that change them, and the events they publish.
//
// One mutex (Service.mu) owns the whole state. A verb's changes and the
// events they cause are made in one critical section, so subscribers see
// them together and in order. Rule: nothing that takes a pty lock (capture,
// resize, signals, input, termination) is called while Service.mu is held;
// the pty package calls back into the service (observations, exits) with its
// own locks held, so the reverse order would deadlock.
//
// The service never imports the varlink layer: it returns *Error values with
// a dotted code ("not_found.pane") that adapters map to interface errors.
package service

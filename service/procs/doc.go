// Package procs owns what the daemon reads of other processes in /proc and
// their resource limits: the pane mark (docs/security.md, "The pane mark")
// with the marks of process instances (docs/termination.md, "Descendants
// outside the process group"), a process's argv, parent, process group,
// session, start time and name, and the one scan of /proc for marks. On
// that scan it builds the sweep that stops what an exited instance left
// running (Sweeper) and the record of what earlier daemons' panes left
// (Leftovers, docs/termination.md, "Leftovers"). It holds no state of the
// service's model and never imports it.
package procs

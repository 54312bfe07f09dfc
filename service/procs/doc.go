// Package procs owns what the daemon reads of other processes in /proc and
// their resource limits: the pane mark (docs/security.md, "The pane mark")
// with the marks of process instances (docs/termination.md, "Descendants
// outside the process group"), and a process's argv, parent, process group,
// session, start time and name. It holds no state of the model.
package procs

package service

import "github.com/signaltty/signaltty/service/procs"

// Leftovers of a previous daemon (docs/termination.md, "When the daemon
// dies") are the processes its panes left running, found by the mark it
// gave them; procs.Leftovers keeps the record and finds and stops them.

// PreviousDaemon is an earlier daemon of this state directory with the
// processes of its panes that still run (procs.PreviousDaemon).
type PreviousDaemon = procs.PreviousDaemon

// LeftoverProcess is a process a previous daemon's pane left running
// (procs.LeftoverProcess).
type LeftoverProcess = procs.LeftoverProcess

// Leftovers is the record of the previous daemons of the state directory
// and their leftovers (Server.GetStatus previous_daemons,
// Server.StopLeftovers); the daemon fills it once, before the first pane
// starts (procs.Leftovers.Find). Never nil.
func (s *Service) Leftovers() *procs.Leftovers { return s.leftovers }

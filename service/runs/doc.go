// Package runs owns a run's rules (docs/run-wait.md): the run record and
// its states, outcomes and causes ("States", "Outcomes and status",
// "Causes"), the key's digest and the binding of a key to one run
// ("Keys"), run ids and their durable reservation ("Run ids and source"),
// the output tail a completed record keeps ("Output tail"), the
// max_active count and the eviction of completed records ("Retention",
// "Config").
//
// A Table holds every record of one daemon. It is not safe for concurrent
// use: its methods run under the caller's lock (the service holds its
// mutex while calling them), and the few that must wait or write a file
// (Claim, StartIDs, TakeID) are given that lock and take it only around
// their reads and writes of the table. Methods never publish events: they
// return them (values of the types of service/events) for the caller to
// publish in the same critical section. Panes are not the Table's
// business: a record names its pane by id, and the caller starts, follows
// and stops the pane.
package runs

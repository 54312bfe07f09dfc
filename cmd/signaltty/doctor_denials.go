package main

import (
	"fmt"
	"io"

	srv "github.com/signaltty/signaltty/varlink/devsignalttyserver"
)

// writeDenials is doctor's section on authorization: requests denied
// since the daemon started, by verb (docs/security.md, "Audit").
func writeDenials(w io.Writer, s srv.Status) {
	if s.Denials == nil || len(*s.Denials) == 0 {
		fmt.Fprintf(w, "denied requests: none\n")
		return
	}
	total := int64(0)
	for _, d := range *s.Denials {
		total += d.Count
	}
	fmt.Fprintf(w, "denied requests: %d (each logged at notice level with principal, verb and resource)\n", total)
	for _, d := range *s.Denials {
		fmt.Fprintf(w, "    %s: %d\n", d.Verb, d.Count)
	}
}

// writeUnattributed is doctor's section on processes that came from a pane
// but connected while no live pane claimed them (docs/security.md, "The
// pane mark"): an agent's helper shared by several panes, or one that
// outlived its pane, shows here.
func writeUnattributed(w io.Writer, s srv.Status) {
	if s.Unattributed == nil || len(*s.Unattributed) == 0 {
		return
	}
	fmt.Fprintf(w, "processes from panes that no live pane claims (denied, never the owner):\n")
	for _, u := range *s.Unattributed {
		fmt.Fprintf(w, "    %s (pid %d, last at %s): %d connections\n", u.Name, u.Pid, u.Last_at, u.Connections)
	}
	fmt.Fprintf(w, "    a helper that outlived its pane or serves several panes (an agent's shared server, such as\n"+
		"    Codex's app-server with daemon_auto_start) acts for no pane; run one per pane (docs/agents.md)\n")
}

// writeSharedHelpers is doctor's section on live agent helpers shared by
// several panes (docs/security.md, "Shared agent helpers"): signaltty
// cannot tell which pane a call through one is for, so each is denied.
func writeSharedHelpers(w io.Writer, s srv.Status) {
	if s.Shared_helpers == nil || len(*s.Shared_helpers) == 0 {
		return
	}
	fmt.Fprintf(w, "shared agent helpers serving panes signaltty cannot attribute (their calls are denied.shared_helper):\n")
	for _, h := range *s.Shared_helpers {
		from := "a pane that has ended"
		if h.Pane != nil && *h.Pane != "" {
			from = "pane " + *h.Pane
		}
		fmt.Fprintf(w, "    %s's shared helper (pid %d, started from %s): %d connections denied, last at %s\n", h.Agent, h.Pid, from, h.Connections, h.Last_at)
		fmt.Fprintf(w, "      %s\n", h.Fix)
	}
}

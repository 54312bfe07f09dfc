package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	srv "github.com/signaltty/signaltty/varlink/devsignalttyserver"
	"github.com/spf13/cobra"
)

// Earlier daemons that exited uncleanly (or stopped leaving processes) and
// what their panes left running
// (docs/termination.md, "When the daemon dies").

// writeDoctorPrevious renders Status.previous_daemons: one warning per
// daemon that did not exit cleanly (or stopped leaving processes), one per
// daemon whose panes' processes still run.
func writeDoctorPrevious(w io.Writer, es *[]srv.PreviousDaemon, now time.Time, say, warn func(string, ...any)) {
	if es == nil || len(*es) == 0 {
		return
	}
	fmt.Fprintln(w, "previous daemons:")
	for _, e := range *es {
		warn("%s", previousLine(e, now))
		switch {
		case !e.Leftovers_known:
			say("its panes' processes cannot be told apart from others (its pane mark named no daemon); some may still run")
		case len(e.Leftovers) > 0:
			warn("%d %s of its panes still %s: %s; `signaltty doctor --stop-leftovers` stops them",
				len(e.Leftovers), plural(len(e.Leftovers), "process", "processes"), plural(len(e.Leftovers), "runs", "run"), leftoverList(e.Leftovers))
		default:
			say("none of its panes' processes still runs")
		}
	}
}

// previousLine says which daemon exited uncleanly, or stopped leaving
// processes running, and when.
func previousLine(e srv.PreviousDaemon, now time.Time) string {
	line := fmt.Sprintf("a previous daemon (pid %d", e.Pid)
	if e.Started_at != nil {
		line += ", started " + *e.Started_at
	}
	if e.State == "stopped" {
		line += ") stopped"
		if e.Last_seen_at != nil {
			line += " at " + ago(*e.Last_seen_at, now)
		}
		return line + " while processes of its panes still ran (outside their process groups, or after their leader exited)"
	}
	line += ") exited uncleanly"
	if e.State == "stopping" {
		line += " during its shutdown"
	}
	if e.Last_seen_at != nil {
		line += ", at or after " + ago(*e.Last_seen_at, now) + " (its last write to the state directory)"
	}
	return line + ": killed, crashed or the machine lost power; its running panes came back RESTORED"
}

// exitWord is how `status` says a previous daemon ended.
func exitWord(e srv.PreviousDaemon) string {
	if e.State == "stopped" {
		return "stopped leaving processes"
	}
	return "exited uncleanly"
}

// leftoverList is "pid name, pid name, …".
func leftoverList(ps []srv.LeftoverProcess) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("%d %s", p.Pid, p.Name)
	}
	return strings.Join(parts, ", ")
}

// stopLeftovers calls Server.StopLeftovers and says what ended; with
// --json it prints the reply.
func stopLeftovers(a *app, cmd *cobra.Command) error {
	return a.run(cmd, "dev.signaltty.Server.StopLeftovers", nil, func(raw json.RawMessage) error {
		var r struct{ Stopped, Remaining []srv.LeftoverProcess }
		if err := decode(raw, &r); err != nil {
			return err
		}
		if len(r.Stopped) == 0 && len(r.Remaining) == 0 {
			fmt.Fprintln(a.out, "no leftover processes of a previous daemon run")
		}
		if len(r.Stopped) > 0 {
			fmt.Fprintf(a.out, "stopped %d leftover %s: %s\n", len(r.Stopped), plural(len(r.Stopped), "process", "processes"), leftoverList(r.Stopped))
		}
		if len(r.Remaining) > 0 {
			fmt.Fprintf(a.out, "! still running after SIGKILL: %s\n", leftoverList(r.Remaining))
		}
		return nil
	})
}

// leftoverSummary is what `status` says of a previous daemon's leftovers.
func leftoverSummary(e srv.PreviousDaemon) string {
	switch {
	case !e.Leftovers_known:
		return "unknown"
	case len(e.Leftovers) == 0:
		return "none"
	}
	return fmt.Sprintf("%d (%s; signaltty doctor --stop-leftovers)", len(e.Leftovers), leftoverList(e.Leftovers))
}

// orDash is prefix + *s, or "start unknown" when s is nil.
func orDash(s *string, prefix string) string {
	if s == nil {
		return "start unknown"
	}
	return prefix + *s
}

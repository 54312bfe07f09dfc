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

func doctorCmd(a *app) *cobra.Command {
	var stop bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Report the daemon's health: runs, persistence, the event journal and the logind shutdown monitor (Server.GetStatus)",
		Long: `doctor asks the daemon for its status and explains it: the daemon itself,
saving of the state directory, the logind monitor that saves the
workspaces before the host shuts down, earlier daemons of the state
directory that did not exit cleanly (or stopped while processes of their
panes still ran) with the processes their panes left running, and agent
settings that make one helper serve several panes (Codex's shared
app-server). Lines starting with "!" need attention. With --json it prints
the GetStatus reply.

--stop-leftovers first stops those leftover processes (SIGTERM, after 2 s
SIGKILL; Server.StopLeftovers) and says which ended; with --json it prints
that call's reply instead of the report.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if stop {
				if err := stopLeftovers(a, cmd); err != nil || a.json {
					return err
				}
			}
			return a.run(cmd, "dev.signaltty.Server.GetStatus", nil, func(raw json.RawMessage) error {
				var r struct{ Status srv.Status }
				if err := decode(raw, &r); err != nil {
					return err
				}
				writeDoctor(a.out, r.Status, time.Now())
				writeDenials(a.out, r.Status)
				writeUnattributed(a.out, r.Status)
				writeSharedHelpers(a.out, r.Status)
				writeAgentConfig(a.out)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&stop, "stop-leftovers", false, "first stop the processes that earlier daemons' panes left running (Server.StopLeftovers)")
	return cmd
}

// writeDoctor renders a health report of s as of now.
func writeDoctor(w io.Writer, s srv.Status, now time.Time) {
	problems := 0
	warn := func(format string, args ...any) {
		problems++
		fmt.Fprintf(w, "  ! "+format+"\n", args...)
	}
	say := func(format string, args ...any) { fmt.Fprintf(w, "    "+format+"\n", args...) }

	fmt.Fprintf(w, "daemon: signalttyd %s, pid %d, up %s\n", s.Version, s.Pid, (time.Duration(s.Uptime_ms) * time.Millisecond).Round(time.Second))
	activated := ""
	if s.Socket_activated {
		activated = " (socket activated)"
	}
	say("listening on %s%s", s.Address, activated)
	say("%d workspaces, %d tabs, %d panes (%d live)", s.Workspaces, s.Tabs, s.Panes, s.Live_panes)

	r := s.Runs
	fmt.Fprintln(w, "runs:")
	say("%d active, %d records kept, %d started since start", r.Active, r.Retained, r.Started)
	if r.Escaped > 0 {
		warn("%d pane(s) ended while a descendant that left the process group still ran and was not stopped; those processes may still run and are not part of any result", r.Escaped)
	}

	writeDoctorCgroups(w, s.Cgroups, say, warn)
	writeDoctorPrevious(w, s.Previous_daemons, now, say, warn)

	p := s.Persistence
	fmt.Fprintln(w, "persistence:")
	if !p.Enabled {
		warn("off: nothing is saved, nothing comes back after a restart")
	} else {
		say("state directory %s", p.State_dir)
		if after, ok := strings.CutPrefix(p.Restored_from, "corrupt: "); ok {
			warn("the snapshot could not be read at start; it was set aside as %s and the daemon started empty", after)
		} else {
			say("restored at start from: %s", p.Restored_from)
		}
		if rr := p.Restored_at_runtime; rr != nil {
			say("restored at runtime %s from: %s", ago(rr.At, now), rr.From)
			if rr.Kept != nil {
				say("the state that restore replaced is kept as snapshots/%s (snapshot restore %s brings it back)", *rr.Kept, *rr.Kept)
			}
			if !rr.Rows_kept {
				say("that copy kept no rows: its panes came back without their earlier output")
			}
		}
		if p.Last_saved_at != nil {
			say("last save %s: %d bytes in %d ms", ago(*p.Last_saved_at, now), p.Last_bytes, p.Last_ms)
		} else {
			say("no save yet")
		}
		if p.Last_error != nil {
			warn("the last save failed: %s", *p.Last_error)
		}
		if p.Dirty {
			say("changes not saved yet (a save follows within 2 s)")
		}
		if p.Frozen {
			say("frozen: a shutdown save was written and nothing overwrites it")
		}
	}

	j := s.Journal
	fmt.Fprintln(w, "event journal:")
	switch {
	case !j.Enabled && j.Error != nil:
		warn("off: %s; event numbers restart at every start and nothing can be replayed", *j.Error)
	case !j.Enabled:
		say("off (no state directory): event numbers restart at every start and nothing can be replayed")
	default:
		replayAfter := max(j.Retained_after, j.Broken_through)
		for _, g := range j.Lost {
			replayAfter = max(replayAfter, g.Last)
		}
		say("last event seq %d (published %d; numbers reserved through %d: a restart continues after that, so numbers jump); replay possible after seq %d", j.Seq, j.Published, j.Reserved, replayAfter)
		var open *srv.JournalOutage
		for i, o := range j.Outages {
			if o.Recovered_at == nil {
				open = &j.Outages[i]
				continue
			}
			say("broke at %s (seq %d), recovered at %s", ago(o.Broke_at, now), o.First_seq, ago(*o.Recovered_at, now))
		}
		switch {
		case open != nil:
			warn("events cannot be journaled since %s (from seq %d): %s; they are still delivered live, the journal retries every few seconds", ago(open.Broke_at, now), open.First_seq, open.Error)
		case j.Error != nil:
			warn("events cannot be journaled, so none are published: %s", *j.Error)
		}
		for _, g := range j.Lost {
			say("events %d..%d were delivered but not journaled (cursors below %d get conflict.history_lost)", g.First, g.Last, g.Last)
		}
		if j.Broken_through > 0 {
			say("history through seq %d cannot be proven complete (cursors below it get unavailable.journal)", j.Broken_through)
		}
		for _, p := range j.Problems {
			warn("found at start: %s", p)
		}
	}

	l := s.Logind
	fmt.Fprintf(w, "logind shutdown monitor: %s\n", l.State)
	delay := "logind's delay is not known yet"
	if l.Inhibit_delay_ms != nil {
		delay = fmt.Sprintf("logind waits up to %s for it", time.Duration(*l.Inhibit_delay_ms)*time.Millisecond)
	}
	switch l.State {
	case "off":
		say("off (SIGNALTTY_LOGIND=0): a host shutdown is noticed only by the daemon's SIGTERM, without a delay inhibitor")
	case "holding":
		say("a delay inhibitor is held since %s; at shutdown the snapshot is written first, %s", ago(l.Since, now), delay)
	case "connecting":
		say("connecting to the system bus and logind (since %s)", ago(l.Since, now))
	case "backoff":
		next := "soon"
		if l.Next_retry_at != nil {
			next = "at " + *l.Next_retry_at
		}
		warn("no delay inhibitor: a host shutdown would not wait for the save; next attempt %s, or when logind appears on the bus", next)
	case "stopping":
		say("the host is shutting down: saving, then stopping (since %s)", ago(l.Since, now))
	default:
		say("unknown state %q", l.State)
	}
	if l.Owner != nil {
		say("logind on the bus: %s; inhibitors taken since start: %d", *l.Owner, l.Inhibits)
	}
	if l.Last_error != nil {
		when := ""
		if l.Last_error_at != nil {
			when = " (" + ago(*l.Last_error_at, now) + ")"
		}
		say("last error%s: %s", when, *l.Last_error)
	}
	if l.Last_save_at != nil {
		line := fmt.Sprintf("last shutdown save %s", ago(*l.Last_save_at, now))
		if l.Last_save_ms != nil {
			line += fmt.Sprintf(": write %d ms", *l.Last_save_ms)
		}
		if l.Last_release_ms != nil {
			line += fmt.Sprintf(", inhibitor released after %d ms", *l.Last_release_ms)
		}
		say("%s", line)
		if l.Last_save_error != nil {
			warn("the shutdown save failed: %s", *l.Last_save_error)
		}
		if l.Last_release_ms != nil && l.Inhibit_delay_ms != nil && *l.Last_release_ms*2 > *l.Inhibit_delay_ms {
			warn("the shutdown save took more than half of logind's delay (%d ms of %d ms)", *l.Last_release_ms, *l.Inhibit_delay_ms)
		}
	}

	writeDoctorSessionBus(w, s.Session_bus, now, say, warn)

	if problems == 0 {
		fmt.Fprintln(w, "no problems found")
	} else {
		fmt.Fprintf(w, "%d %s (lines with !)\n", problems, plural(problems, "thing needs attention", "things need attention"))
	}
}

// ago renders an RFC 3339 time as "<time> (<n> ago)".
func ago(ts string, now time.Time) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ts
	}
	d := now.Sub(t)
	switch {
	case d < -time.Second:
		return fmt.Sprintf("%s (in %s)", ts, (-d).Round(time.Second))
	case d < time.Second:
		return ts + " (now)"
	}
	return fmt.Sprintf("%s (%s ago)", ts, d.Round(time.Second))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// writeDoctorSessionBus renders GetStatus's session_bus (docs/dbus.md,
// "Connection"); nothing for a daemon that does not report it. Only a
// lost connection needs attention: a machine without a session bus
// works as well, without dev.signaltty1.
func writeDoctorSessionBus(w io.Writer, b *srv.SessionBus, now time.Time, say, warn func(string, ...any)) {
	if b == nil {
		return
	}
	fmt.Fprintf(w, "session bus: %s\n", b.State)
	reason := ""
	if b.Reason != nil {
		reason = *b.Reason
	}
	switch b.State {
	case "on":
		say("owns dev.signaltty1 since %s", ago(b.Since, now))
	case "connecting":
		say("connecting (since %s)", ago(b.Since, now))
	case "reconnecting":
		warn("not on the session bus since %s (%s): reconnecting; status bars and notifiers miss events meanwhile", ago(b.Since, now), reason)
	case "none":
		say("not on D-Bus: %s; varlink works as usual, only dev.signaltty1 is missing (not looked for again until a restart)", reason)
	case "off":
		say("off (SIGNALTTY_DBUS=0): not on D-Bus")
	default:
		say("unknown state %q", b.State)
	}
}

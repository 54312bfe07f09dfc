package main

import (
	"encoding/json"
	"fmt"

	ev "github.com/signaltty/signaltty/varlink/devsignalttyevents"
	"github.com/spf13/cobra"
)

func eventsCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "events [--follow] [--after SEQ] [--type PREFIX]... [--resource ID]...",
		Short: "Print events as they happen (Events.Subscribe)",
		Long: `Subscribe to the daemon's events. Without --follow only the current position
(source and seq) is printed. With --follow every event is printed as it
happens: "seq time type resource data", or with --json one reply object per
line (the first is the ready reply).

--after SEQ first replays every journaled event after SEQ (a seq printed
earlier, by this daemon or one before a restart: numbers never repeat), then
follows live; where the events' source changes (a daemon restart) a line
"source NEW (the daemon restarted; seq numbers go on)" comes first, with nothing repeated or left out. It fails at once with
conflict.history_lost when those events were rotated away or could not be
written (a full disk: data.first..data.last names them), or
unavailable.journal when the journal cannot prove them complete. A stream
that falls behind ends with unavailable.lagged; its data.last_seq is where to
resume with --after.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p := map[string]any{}
			if t := arrayFlag(cmd.Flags(), "type"); len(t) > 0 {
				p["types"] = t
			}
			if r := arrayFlag(cmd.Flags(), "resource"); len(r) > 0 {
				p["resources"] = r
			}
			if snap, _ := cmd.Flags().GetBool("snapshot"); snap {
				p["snapshot"] = true
			}
			if cmd.Flags().Changed("after") {
				after, _ := cmd.Flags().GetInt64("after")
				p["after_seq"] = after
			}
			follow, _ := cmd.Flags().GetBool("follow")
			if !follow && cmd.Flags().Changed("after") {
				return usageError("--after replays events into a stream: it needs --follow")
			}
			if cmd.Flags().Changed("snapshot") && (!follow || !a.json) {
				return usageError("--snapshot prints the state a stream starts from: it needs --follow and --json")
			}
			if !follow {
				return a.run(cmd, "dev.signaltty.Events.Subscribe", p, func(raw json.RawMessage) error {
					var r struct {
						Source string
						Seq    int64
					}
					if err := decode(raw, &r); err != nil {
						return err
					}
					fmt.Fprintf(a.out, "source %s seq %d\n", r.Source, r.Seq)
					return nil
				})
			}
			c, err := a.dial(cmd.Context())
			if err != nil {
				return err
			}
			defer c.conn.Close()
			lastSource := ""
			err = c.stream(cmd.Context(), "dev.signaltty.Events.Subscribe", p, func(raw json.RawMessage) error {
				if a.json {
					fmt.Fprintln(a.out, string(compact(raw)))
					return nil
				}
				var r struct {
					Ready bool
					Event *ev.Event
				}
				if err := decode(raw, &r); err != nil {
					return err
				}
				if r.Event != nil {
					e := r.Event
					if lastSource != "" && e.Source != lastSource { // events replayed across a daemon restart
						fmt.Fprintf(a.out, "source %s (the daemon restarted; seq numbers go on)\n", e.Source)
					}
					lastSource = e.Source
					fmt.Fprintf(a.out, "%d %s %s %s %s\n", e.Seq, e.Ts, e.Type, e.Resource, string(compact(e.Data)))
				}
				return nil
			})
			if cmd.Context().Err() != nil {
				return nil // Ctrl-C ends the stream, not an error
			}
			return err
		},
	}
	c.Flags().BoolP("follow", "f", false, "stream events until interrupted")
	c.Flags().Bool("snapshot", false, "also print the state the stream starts from (with --follow --json)")
	c.Flags().StringArray("type", nil, "only events whose type has this dotted prefix (repeatable)")
	c.Flags().StringArray("resource", nil, "only events about this resource id (repeatable)")
	c.Flags().Int64("after", 0, "replay the journaled events after this seq first (with --follow)")
	return c
}

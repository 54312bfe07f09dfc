package main

import (
	"encoding/json"
	"fmt"

	ev "github.com/signaltty/signaltty/varlink/devsignalttyevents"
	"github.com/spf13/cobra"
)

func eventsCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "events [--follow] [--type PREFIX]... [--resource ID]...",
		Short: "Print events as they happen (Events.Subscribe)",
		Long: `Subscribe to the daemon's events. Without --follow only the current position
(source and seq) is printed. With --follow every event is printed as it
happens: "seq time type resource data", or with --json one reply object per
line (the first is the ready reply).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p := map[string]any{}
			if t, _ := cmd.Flags().GetStringArray("type"); len(t) > 0 {
				p["types"] = t
			}
			if r, _ := cmd.Flags().GetStringArray("resource"); len(r) > 0 {
				p["resources"] = r
			}
			if snap, _ := cmd.Flags().GetBool("snapshot"); snap {
				p["snapshot"] = true
			}
			follow, _ := cmd.Flags().GetBool("follow")
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
	c.Flags().Bool("snapshot", false, "also print the state the stream starts from (with --json)")
	c.Flags().StringArray("type", nil, "only events whose type has this dotted prefix (repeatable)")
	c.Flags().StringArray("resource", nil, "only events about this resource id (repeatable)")
	return c
}

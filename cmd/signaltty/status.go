package main

import (
	"encoding/json"
	"fmt"

	srv "github.com/signaltty/signaltty/varlink/devsignalttyserver"
	"github.com/spf13/cobra"
)

func statusCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Show the daemon's status (dev.signaltty.Server.GetStatus)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Server.GetStatus", nil, func(raw json.RawMessage) error {
				var r struct{ Status srv.Status }
				if err := decode(raw, &r); err != nil {
					return err
				}
				s := r.Status
				fmt.Fprintf(a.out, "signalttyd %s, pid %d, up %.1fs\naddress: %s (socket activated: %v)\nsource: %s\n"+
					"workspaces: %d  tabs: %d  panes: %d (%d live)  events: %d\n",
					s.Version, s.Pid, float64(s.Uptime_ms)/1000, s.Address, s.Socket_activated, s.Source,
					s.Workspaces, s.Tabs, s.Panes, s.Live_panes, s.Seq)
				return nil
			})
		},
	}
}

func shutdownCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "shutdown",
		Short: "Stop the daemon, terminating every pane (dev.signaltty.Server.Shutdown)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Server.Shutdown", nil, nil)
		},
	}
}

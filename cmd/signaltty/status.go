package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	srv "github.com/signaltty/signaltty/varlink/devsignalttyserver"
	"github.com/spf13/cobra"
)

func statusCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Show the daemon's status (Server.GetStatus)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Server.GetStatus", nil, func(raw json.RawMessage) error {
				var r struct{ Status srv.Status }
				if err := decode(raw, &r); err != nil {
					return err
				}
				s := r.Status
				fmt.Fprintf(a.out, "signalttyd %s, pid %d, up %.1fs\naddress: %s (socket activated: %v)\nstate directory: %s\nsource: %s\n"+
					"workspaces: %d  tabs: %d  panes: %d (%d live)  last event seq: %d\n",
					s.Version, s.Pid, float64(s.Uptime_ms)/1000, s.Address, s.Socket_activated, s.Persistence.State_dir, s.Source,
					s.Workspaces, s.Tabs, s.Panes, s.Live_panes, s.Seq)
				if s.Previous_daemons != nil {
					for _, e := range *s.Previous_daemons {
						fmt.Fprintf(a.out, "previous daemon: pid %d (%s) %s; leftover processes: %s\n", e.Pid, orDash(e.Started_at, "started "), exitWord(e), leftoverSummary(e))
					}
				}
				return nil
			})
		},
	}
}

func shutdownCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "shutdown",
		Short: "Stop the daemon, terminating every pane, and wait until it is gone (Server.Shutdown)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.dial(cmd.Context())
			if err != nil {
				return err
			}
			defer c.conn.Close()
			var st struct{ Status srv.Status }
			raw, err := c.call(cmd.Context(), "dev.signaltty.Server.GetStatus", nil)
			if err == nil {
				err = decode(raw, &st)
			}
			if err != nil {
				return err
			}
			if raw, err = c.call(cmd.Context(), "dev.signaltty.Server.Shutdown", nil); err != nil {
				return err
			}
			// The reply comes before the panes' grace periods end; wait for
			// the process, so a following command never meets it stopping.
			pid := int(st.Status.Pid)
			deadline := time.Now().Add(30 * time.Second)
			for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
				if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); strings.Contains(string(b), ") Z ") {
					break // exited; its parent has not reaped it yet
				}
				time.Sleep(20 * time.Millisecond)
			}
			if a.json {
				fmt.Fprintln(a.out, string(compact(raw)))
			}
			return nil
		},
	}
}

package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
)

// whoamiCmd shows the principal the daemon resolved this process to
// (dev.signaltty.Server.WhoAmI; docs/security.md).
func whoamiCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "whoami",
		Short: "Show the principal the daemon resolves this process to, and its grants (Server.WhoAmI)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Server.WhoAmI", nil, func(raw json.RawMessage) error {
				var r struct {
					Principal string `json:"principal"`
					Pid       int64  `json:"pid"`
					Grants    []struct{ Right, Scope string }
					Reason    string  `json:"reason"`
					Address   *string `json:"address"`
					StateDir  *string `json:"state_dir"`
				}
				if err := decode(raw, &r); err != nil {
					return err
				}
				fmt.Fprintf(a.out, "%s (pid %d)\n", r.Principal, r.Pid)
				if r.Reason == "shared_helper" {
					fmt.Fprintln(a.out, "  runs under an agent's helper shared by several panes: every call is denied (docs/security.md, \"Shared agent helpers\")")
				}
				if r.Reason == "unattributed" {
					fmt.Fprintln(a.out, "  started inside a pane, but no live pane claims this process: every call is denied (docs/security.md)")
				}
				for _, g := range r.Grants {
					fmt.Fprintf(a.out, "  %s on %s\n", g.Right, g.Scope)
				}
				if r.Address != nil && r.StateDir != nil {
					fmt.Fprintf(a.out, "daemon at %s, state directory %s\n", *r.Address, *r.StateDir)
				}
				return nil
			})
		},
	}
}

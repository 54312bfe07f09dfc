package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
)

func paneRemoveCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "remove (--pane P [--kill] | --exited --workspace W)",
		Short: "Remove a pane, or every exited pane of a workspace (Mux.RemovePane, Mux.RemoveExitedPanes)",
		Long: `Remove an exited pane, or a live one with --kill; the layout closes around it
and a tab it empties is removed too. --exited --workspace W removes every pane
of W whose program has exited (tombstones restored after a restart stay) and
prints their ids.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			exited, _ := cmd.Flags().GetBool("exited")
			f := cmd.Flags()
			switch {
			case exited && (f.Changed("pane") || f.Changed("kill")):
				return usageError("--exited goes with --workspace, not --pane or --kill")
			case exited && !f.Changed("workspace"):
				return usageError("--exited needs --workspace")
			case !exited && f.Changed("workspace"):
				return usageError("--workspace goes with --exited")
			case !exited && !f.Changed("pane"):
				return usageError("remove needs --pane (or --exited --workspace)")
			case exited:
				return a.run(cmd, "dev.signaltty.Mux.RemoveExitedPanes", params(cmd, "workspace"), func(raw json.RawMessage) error {
					var r struct{ Panes []string }
					if err := decode(raw, &r); err != nil {
						return err
					}
					for _, id := range r.Panes {
						fmt.Fprintln(a.out, id)
					}
					return nil
				})
			}
			return a.run(cmd, "dev.signaltty.Mux.RemovePane", params(cmd, "pane", "kill"), nil)
		},
	}
	c.Flags().String("pane", "", "pane id")
	c.Flags().Bool("kill", false, "terminate the pane first if it is live")
	c.Flags().Bool("exited", false, "remove every exited pane of --workspace")
	c.Flags().String("workspace", "", "with --exited: workspace id, handle or name")
	return c
}

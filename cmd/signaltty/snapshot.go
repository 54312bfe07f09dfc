package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	srv "github.com/signaltty/signaltty/varlink/devsignalttyserver"
	"github.com/spf13/cobra"
)

func saveCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "save",
		Short: "Write the snapshot now (Server.Save)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Server.Save", nil, func(raw json.RawMessage) error {
				var r struct {
					Path        string
					Bytes       int64
					Duration_ms int64
				}
				if err := decode(raw, &r); err != nil {
					return err
				}
				fmt.Fprintf(a.out, "saved %s (%d bytes, %d ms)\n", r.Path, r.Bytes, r.Duration_ms)
				return nil
			})
		},
	}
}

func snapshotCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "snapshot", Short: "List and restore older snapshots"}
	list := &cobra.Command{
		Use:   "list",
		Short: "List older snapshots kept for recovery, newest first (Server.ListSnapshots)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Server.ListSnapshots", nil, func(raw json.RawMessage) error {
				var r struct{ Snapshots []srv.SnapshotEntry }
				if err := decode(raw, &r); err != nil {
					return err
				}
				tw := tabwriter.NewWriter(a.out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tSAVED\tWORKSPACES\tPANES\tBYTES\tROWS")
				for _, e := range r.Snapshots {
					rows := "no"
					if e.Rows_kept != nil && *e.Rows_kept {
						rows = "kept"
					}
					fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\n", e.Name, e.Saved_at, e.Workspaces, e.Panes, e.Bytes, rows)
				}
				return tw.Flush()
			})
		},
	}
	restore := &cobra.Command{
		Use:   "restore NAME",
		Short: "Replace the current state with an older snapshot; no pane may be live (Server.RestoreSnapshot)",
		Long: `Replace the current state with an older snapshot from "snapshot list", every
pane as a tombstone (no process is started). It fails while a pane is live.

First the current state is saved and copied into snapshots/ with its panes'
rows; the reply names that copy, so restoring it gives back the state just
replaced, rows included. Panes come back with the rows the restored copy
kept: the newest 8 copies keep their panes' rows (ROWS "kept" in "snapshot
list"), older ones snapshot.json only, and restoring one of those says that
its panes come back without rows.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.run(cmd, "dev.signaltty.Server.RestoreSnapshot", map[string]any{"name": args[0]}, func(raw json.RawMessage) error {
				var r struct {
					Status    srv.Status
					Kept      *string
					Rows_kept *bool
				}
				if err := decode(raw, &r); err != nil {
					return err
				}
				fmt.Fprintf(a.out, "restored %s: %d workspaces, %d tabs, %d panes\n", args[0], r.Status.Workspaces, r.Status.Tabs, r.Status.Panes)
				if r.Rows_kept != nil && !*r.Rows_kept && r.Status.Panes > 0 {
					fmt.Fprintf(a.out, "this copy kept no rows: its panes come back without their earlier output\n")
				}
				if r.Kept != nil {
					fmt.Fprintf(a.out, "the state it replaced is kept as %s (snapshot restore %s brings it back)\n", *r.Kept, *r.Kept)
				}
				return nil
			})
		},
	}
	c.AddCommand(list, restore)
	return c
}

func paneRelaunchCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "relaunch --pane P [--env NAME=VALUE]... [--unset-env NAME]...",
		Short: "Start a restored or exited pane's saved command again in the same pane (Mux.RelaunchPane)",
		Long: `Start PANE's saved command again in the same pane, with the environment it
was started with (while the daemon runs, values included; after a restart
only the saved, allowlisted part). --env adds variables for this start
(never saved), --unset-env removes some. The variables the pane was started
with that the new process will not have are named on standard error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p := params(cmd, "pane")
			if err := addEnv(cmd.Flags(), p); err != nil {
				return err
			}
			return a.run(cmd, "dev.signaltty.Mux.RelaunchPane", p, a.printRestarted)
		},
	}
	requiredString(c, "pane", "pane id")
	envFlags(c.Flags())
	return c
}

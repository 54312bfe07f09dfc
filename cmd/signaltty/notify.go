package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
	"github.com/spf13/cobra"
)

func notifyCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "notify [--pane P | --workspace W] --title T [--body B] [--severity info|warning|error]",
		Short: "Record a notification; a pane's attention rises by its severity (Mux.Notify)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Mux.Notify", params(cmd, "pane", "workspace", "title", "body", "severity"), func(raw json.RawMessage) error {
				var r struct{ Notification mux.Notification }
				if err := decode(raw, &r); err != nil {
					return err
				}
				return a.printNotifications([]mux.Notification{r.Notification})
			})
		},
	}
	f := c.Flags()
	f.String("pane", "", "the pane it is about")
	f.String("workspace", "", "the workspace it is about")
	f.String("title", "", "title (at most 200 characters)")
	f.String("body", "", "body (at most 2000 characters)")
	f.String("severity", "", "info (default), warning or error")
	return c
}

func notificationsCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "notifications", Short: "List notifications and mark them read"}
	list := &cobra.Command{
		Use:   "list [--pane P] [--unread]",
		Short: "List the kept notifications, oldest first (Mux.ListNotifications)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Mux.ListNotifications", params(cmd, "pane", "unread"), func(raw json.RawMessage) error {
				var r struct{ Notifications []mux.Notification }
				if err := decode(raw, &r); err != nil {
					return err
				}
				return a.printNotifications(r.Notifications)
			})
		},
	}
	list.Flags().String("pane", "", "only this pane's")
	list.Flags().Bool("unread", false, "only unread ones")
	read := &cobra.Command{
		Use:   "read [--id N]... [--pane P]",
		Short: "Mark notifications read: the given ones, a pane's, or all (Mux.MarkNotificationsRead)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p := params(cmd, "pane")
			if ids := arrayFlag(cmd.Flags(), "id"); len(ids) > 0 {
				p["ids"] = ids
			}
			return a.run(cmd, "dev.signaltty.Mux.MarkNotificationsRead", p, func(raw json.RawMessage) error {
				var r struct{ Marked int64 }
				if err := decode(raw, &r); err != nil {
					return err
				}
				fmt.Fprintf(a.out, "%d marked read\n", r.Marked)
				return nil
			})
		},
	}
	read.Flags().StringArray("id", nil, "notification id (repeatable)")
	read.Flags().String("pane", "", "all of this pane's")
	c.AddCommand(list, read)
	return c
}

func (a *app) printNotifications(ns []mux.Notification) error {
	tw := tabwriter.NewWriter(a.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPANE\tSEVERITY\tSOURCE\tREAD\tTITLE\tBODY")
	for _, n := range ns {
		pane, body, read := "-", "", "no"
		if n.Pane != nil {
			pane = *n.Pane
		}
		if n.Body != nil {
			body = *n.Body
		}
		if n.Read_at != nil {
			read = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", n.Id, pane, n.Severity, n.Source, read, n.Title, body)
	}
	return tw.Flush()
}

package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
	"github.com/spf13/cobra"
)

func workspaceCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "workspace", Aliases: []string{"ws"}, Short: "Create, list, inspect, rename and remove workspaces"}

	create := &cobra.Command{
		Use:   "create",
		Short: "Create a workspace (Mux.CreateWorkspace)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Mux.CreateWorkspace", params(cmd, "name", "cwd"), a.printWorkspace)
		},
	}
	create.Flags().String("name", "", "name (default \"workspace\"); the handle is made from it")
	create.Flags().String("cwd", "", "default working directory of its panes (default $HOME)")

	list := &cobra.Command{
		Use:   "list",
		Short: "List workspaces (Mux.ListWorkspaces)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Mux.ListWorkspaces", nil, func(raw json.RawMessage) error {
				var r struct{ Workspaces []mux.Workspace }
				if err := decode(raw, &r); err != nil {
					return err
				}
				tw := tabwriter.NewWriter(a.out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tHANDLE\tNAME\tTABS\tCWD")
				for _, w := range r.Workspaces {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", w.Id, w.Handle, w.Name, len(w.Tabs), w.Cwd)
				}
				return tw.Flush()
			})
		},
	}

	get := &cobra.Command{
		Use:   "get",
		Short: "Show a workspace with its tabs and panes (Mux.GetWorkspace)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Mux.GetWorkspace", params(cmd, "workspace"), func(raw json.RawMessage) error {
				var r struct {
					Workspace mux.Workspace
					Tabs      []mux.Tab
					Panes     []mux.Pane
				}
				if err := decode(raw, &r); err != nil {
					return err
				}
				if err := a.printWorkspaceValue(r.Workspace); err != nil {
					return err
				}
				for _, t := range r.Tabs {
					fmt.Fprintf(a.out, "tab %s %q\n", t.Id, t.Title)
				}
				return a.printPanes(r.Panes)
			})
		},
	}
	requiredString(get, "workspace", "workspace id or handle")

	rename := &cobra.Command{
		Use:   "rename",
		Short: "Rename a workspace; its handle stays (Mux.RenameWorkspace)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Mux.RenameWorkspace", params(cmd, "workspace", "name"), a.printWorkspace)
		},
	}
	requiredString(rename, "workspace", "workspace id or handle")
	requiredString(rename, "name", "new name")

	remove := &cobra.Command{
		Use:   "remove",
		Short: "Remove a workspace; --recursive stops its live panes first (Mux.RemoveWorkspace)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Mux.RemoveWorkspace", params(cmd, "workspace", "recursive"), nil)
		},
	}
	requiredString(remove, "workspace", "workspace id or handle")
	remove.Flags().BoolP("recursive", "r", false, "terminate live panes (SIGHUP, 2 s grace, SIGKILL) and remove everything")

	c.AddCommand(create, list, get, rename, remove, workspaceSetCmd(a))
	return c
}

func (a *app) printWorkspace(raw json.RawMessage) error {
	var r struct{ Workspace mux.Workspace }
	if err := decode(raw, &r); err != nil {
		return err
	}
	return a.printWorkspaceValue(r.Workspace)
}

func (a *app) printWorkspaceValue(w mux.Workspace) error {
	fmt.Fprintf(a.out, "workspace %s handle %s name %q cwd %s tabs %d auto-resume %v\n", w.Id, w.Handle, w.Name, w.Cwd, len(w.Tabs), w.Auto_resume)
	return nil
}

// requiredString adds a string flag the command cannot run without.
func requiredString(c *cobra.Command, name, usage string) {
	c.Flags().String(name, "", usage+" (required)")
	_ = c.MarkFlagRequired(name)
}

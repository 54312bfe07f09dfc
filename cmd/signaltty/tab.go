package main

import (
	"encoding/json"
	"fmt"

	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
	"github.com/spf13/cobra"
)

func tabCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "tab", Short: "Create and remove tabs"}

	create := &cobra.Command{
		Use:   "create",
		Short: "Create an empty tab (Mux.CreateTab)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Mux.CreateTab", params(cmd, "workspace", "title"), func(raw json.RawMessage) error {
				var r struct{ Tab mux.Tab }
				if err := decode(raw, &r); err != nil {
					return err
				}
				fmt.Fprintf(a.out, "tab %s %q in workspace %s\n", r.Tab.Id, r.Tab.Title, r.Tab.Workspace)
				return nil
			})
		},
	}
	requiredString(create, "workspace", "workspace id, handle or name")
	create.Flags().String("title", "", "title (default \"tab\")")

	remove := &cobra.Command{
		Use:   "remove",
		Short: "Remove a tab; --recursive stops its live panes first (Mux.RemoveTab)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Mux.RemoveTab", params(cmd, "tab", "recursive"), nil)
		},
	}
	requiredString(remove, "tab", "tab id")
	remove.Flags().BoolP("recursive", "r", false, "terminate live panes (SIGHUP, 2 s grace, SIGKILL) and remove the tab")

	c.AddCommand(create, remove)
	return c
}

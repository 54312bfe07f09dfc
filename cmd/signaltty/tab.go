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

	ratio := &cobra.Command{
		Use:   "ratio --tab TAB --pane PANE --ratio R",
		Short: "Set the share (0.05..0.95) of the split before a pane: its left or upper border (Mux.SetSplitRatio)",
		Long: `Set the ratio of the split of TAB whose second part starts with PANE (the
border on PANE's left for a split along cols, above it along rows): the first
part's share of the area, 0.05..0.95. It is saved with the layout; the tab view
draws the panes by it (dragging the border with attach --tab --mouse does the
same). See docs/attach.md, "Tab view".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Mux.SetSplitRatio", params(cmd, "tab", "pane", "ratio"), func(raw json.RawMessage) error {
				var r struct{ Tab mux.Tab }
				if err := decode(raw, &r); err != nil {
					return err
				}
				fmt.Fprintf(a.out, "tab %s: the split before %s has ratio %s\n", r.Tab.Id, cmd.Flag("pane").Value, cmd.Flag("ratio").Value)
				return nil
			})
		},
	}
	requiredString(ratio, "tab", "tab id")
	requiredString(ratio, "pane", "the pane the split's second part starts with")
	ratio.Flags().Float64("ratio", 0.5, "the first part's share, 0.05..0.95 (required)")
	_ = ratio.MarkFlagRequired("ratio")

	c.AddCommand(create, remove, ratio)
	return c
}

// Package layout reads the split tree of a tab (dev.signaltty.Mux Layout)
// for the programs that show tabs: the CLI's navigator and the tab view.
// Leaves lists a tab's panes in the tree's order, and Urgency and NeedsYou
// rank a pane's attention (docs/agents.md, "Attention") for the views that
// list panes. It draws nothing and makes no calls.
package layout

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/signaltty/signaltty/cmd/internal/layout"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	xterm "github.com/charmbracelet/x/term"
	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
	"github.com/spf13/cobra"
)

// navigate is `signaltty` without a command: the tree of workspaces, tabs
// and panes; on a terminal, a numbered prompt then attaches to the pane
// (or the tab view of the tab) picked.
func (a *app) navigate(cmd *cobra.Command, _ []string) error {
	return a.navigateWith(cmd.Context(), attachOptions{detach: 0x1c, prefix: 0x02})
}

// navigateWith is the navigator attaching with o.
func (a *app) navigateWith(ctx context.Context, o attachOptions) error {
	c, err := a.dial(ctx)
	if err != nil {
		return err
	}
	tree, err := loadTree(ctx, c)
	c.conn.Close()
	if err != nil {
		return err
	}
	if a.json {
		return printTreeJSON(a.out, tree)
	}
	items := printTree(a.out, tree)
	interactive := xterm.IsTerminal(os.Stdin.Fd()) && xterm.IsTerminal(os.Stdout.Fd())
	if !interactive || len(items) == 0 {
		return nil
	}
	in := bufio.NewReader(os.Stdin)
	for {
		fmt.Fprintf(a.out, "attach to [1-%d] (tN: that pane's tab view, a: the first pane marked ! that needs you, q: quit): ", len(items))
		line, err := in.ReadString('\n')
		line = strings.TrimSpace(line)
		if err != nil && line == "" || line == "q" || line == "" {
			return nil
		}
		if line == "a" {
			n := nextNeedingYou(items)
			if n < 0 {
				fmt.Fprintln(a.out, "no pane needs you")
				continue
			}
			return a.attach(ctx, items[n].Id, o)
		}
		tabView := strings.HasPrefix(line, "t")
		n, perr := strconv.Atoi(strings.TrimPrefix(line, "t"))
		if perr != nil || n < 1 || n > len(items) {
			fmt.Fprintf(a.out, "no pane %q\n", line)
			continue
		}
		p := items[n-1]
		if tabView {
			return a.attachTab(ctx, p.Tab, o)
		}
		return a.attach(ctx, p.Id, o)
	}
}

// tree is every workspace with its tabs and panes.
type tree []struct {
	Workspace mux.Workspace `json:"workspace"`
	Tabs      []mux.Tab     `json:"tabs"`
	Panes     []mux.Pane    `json:"panes"`
}

func loadTree(ctx context.Context, c *client) (tree, error) {
	raw, err := c.call(ctx, "dev.signaltty.Mux.ListWorkspaces", nil)
	if err != nil {
		return nil, err
	}
	var ws struct{ Workspaces []mux.Workspace }
	if err := decode(raw, &ws); err != nil {
		return nil, err
	}
	out := tree{}
	for _, w := range ws.Workspaces {
		raw, err := c.call(ctx, "dev.signaltty.Mux.GetWorkspace", map[string]any{"workspace": w.Id})
		if err != nil {
			var ce *callError
			if errors.As(err, &ce) && ce.Code == "not_found.workspace" {
				continue // removed meanwhile
			}
			return nil, err
		}
		var node struct {
			Workspace mux.Workspace `json:"workspace"`
			Tabs      []mux.Tab     `json:"tabs"`
			Panes     []mux.Pane    `json:"panes"`
		}
		if err := decode(raw, &node); err != nil {
			return nil, err
		}
		out = append(out, node)
	}
	return out, nil
}

func printTreeJSON(w io.Writer, t tree) error {
	b, err := json.Marshal(map[string]any{"workspaces": t})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, string(b))
	return nil
}

// printTree prints the tree (docs/attach.md, "Navigator"): each
// workspace, then its panes (those of run tabs folded into one line), the
// panes that need the user first (layout.Urgency), then in their tabs'
// order; it returns the panes in the order numbered.
func printTree(w io.Writer, t tree) []mux.Pane {
	if len(t) == 0 {
		fmt.Fprintln(w, "no workspaces (signaltty workspace create --name NAME; signaltty pane spawn --workspace NAME -- PROGRAM)")
		return nil
	}
	var items []mux.Pane
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, node := range t {
		fmt.Fprintf(tw, "workspace %s (%s)  %s\n", node.Workspace.Name, node.Workspace.Handle, node.Workspace.Cwd)
		byID := map[string]mux.Pane{}
		for _, p := range node.Panes {
			byID[p.Id] = p
		}
		var panes []mux.Pane
		tabTitle := map[string]string{}
		runs, runsLive := 0, 0
		for _, tab := range node.Tabs {
			tabTitle[tab.Id] = tab.Title
			for _, id := range layout.Leaves(tab.Layout) {
				p, ok := byID[id]
				switch {
				case !ok:
				case tab.Run != nil:
					runs++
					if p.State == "live" {
						runsLive++
					}
				default:
					panes = append(panes, p)
				}
			}
		}
		sort.SliceStable(panes, func(i, j int) bool { return layout.Urgency(panes[i].Attention) < layout.Urgency(panes[j].Attention) })
		for _, p := range panes {
			items = append(items, p)
			mark := " "
			if layout.NeedsYou(p.Attention) {
				mark = "!"
			}
			fmt.Fprintf(tw, "  %s %d\t%s\t%s\t%s\t%s\t%s\t%s\ttab %s\t%s\n", mark, len(items), p.Id, p.Restore_state, paneState(p),
				agentKind(p), p.Lifecycle, p.Attention, tabTitle[p.Tab], p.Title)
		}
		if runs > 0 {
			fmt.Fprintf(tw, "    runs: %d panes, %d live, %d finished (signaltty run list)\n", runs, runsLive, runs-runsLive)
		}
	}
	_ = tw.Flush()
	return items
}

// nextNeedingYou is the first of items that needs the user, -1 for none.
func nextNeedingYou(items []mux.Pane) int {
	for i, p := range items {
		if layout.NeedsYou(p.Attention) {
			return i
		}
	}
	return -1
}

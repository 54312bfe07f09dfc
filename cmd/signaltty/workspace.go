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
		Use:   "create [--name N] [--cwd DIR | --worktree BRANCH --repo DIR [--from REF]] [--grant RIGHT:SCOPE]... [-- PROGRAM [ARG...]]",
		Short: "Create a workspace, in a new git worktree with --worktree, running PROGRAM with -- (Mux.CreateWorkspace)",
		Long: `Create a workspace. With --worktree BRANCH --repo DIR, git worktree add makes a
worktree of DIR's repository for BRANCH (an existing branch, or a new one from
--from, default HEAD) in <repository>-worktrees/BRANCH (or
$SIGNALTTY_WORKTREE_ROOT/<repository name>/BRANCH of the daemon), and the
workspace works there. With -- PROGRAM [ARG...], PROGRAM starts in the
workspace's first pane, whose principal holds the --grant grants (default:
read, write and spawn on self, spawn on home; docs/security.md). A failure
leaves nothing behind.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p := params(cmd, "name", "cwd", "worktree", "repo", "from")
			if len(args) > 0 {
				p["argv"] = args
			}
			if r, ok := p["repo"].(string); ok {
				p["repo"] = absPath(r)
			}
			if err := addGrants(cmd, p); err != nil {
				return err
			}
			a.localCwd(p)
			return a.run(cmd, "dev.signaltty.Mux.CreateWorkspace", p, a.printCreated)
		},
	}
	create.Flags().String("name", "", "name (default \"workspace\", or the branch); the handle is made from it")
	create.Flags().String("cwd", "", "default working directory of its panes (default $HOME)")
	create.Flags().String("worktree", "", "make a git worktree for this branch and work there (needs --repo)")
	create.Flags().String("repo", "", "with --worktree: a directory of the git repository (relative to the current one)")
	create.Flags().String("from", "", "with --worktree: start point of a new branch (default HEAD); the branch must not exist")
	grantFlag(create.Flags())

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
				fmt.Fprintln(tw, "ID\tHANDLE\tNAME\tTABS\tBRANCH\tGIT\tCWD")
				for _, w := range r.Workspaces {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", w.Id, w.Handle, w.Name, len(w.Tabs), gitBranch(w.Git), gitFlags(w.Git), w.Cwd)
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
			return a.run(cmd, "dev.signaltty.Mux.GetWorkspace", params(cmd, "workspace", "refresh-git"), func(raw json.RawMessage) error {
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
	requiredString(get, "workspace", "workspace id, handle or name")
	get.Flags().Bool("refresh-git", false, "run git again for the workspace's git state first")

	rename := &cobra.Command{
		Use:   "rename",
		Short: "Rename a workspace; its handle stays (Mux.RenameWorkspace)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Mux.RenameWorkspace", params(cmd, "workspace", "name"), a.printWorkspace)
		},
	}
	requiredString(rename, "workspace", "workspace id, handle or name")
	requiredString(rename, "name", "new name")

	remove := &cobra.Command{
		Use:   "remove",
		Short: "Remove a workspace; --recursive stops its live panes first (Mux.RemoveWorkspace)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Mux.RemoveWorkspace", params(cmd, "workspace", "recursive", "remove-worktree"), a.printRemoved)
		},
	}
	requiredString(remove, "workspace", "workspace id, handle or name")
	remove.Flags().BoolP("recursive", "r", false, "terminate live panes (SIGHUP, 2 s grace, SIGKILL) and remove everything")
	remove.Flags().Bool("remove-worktree", false, "also remove the workspace's git worktree if it is clean (its branch stays)")

	setCwd := &cobra.Command{
		Use:   "set-cwd",
		Short: "Change the directory new panes start in; git state is computed again (Mux.SetWorkspaceCwd)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p := params(cmd, "workspace", "cwd")
			a.localCwd(p)
			return a.run(cmd, "dev.signaltty.Mux.SetWorkspaceCwd", p, a.printWorkspace)
		},
	}
	requiredString(setCwd, "workspace", "workspace id, handle or name")
	requiredString(setCwd, "cwd", "the new directory")

	c.AddCommand(create, list, get, rename, remove, setCwd, workspaceSetCmd(a))
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
	a.printGit(w.Git)
	return nil
}

// requiredString adds a string flag the command cannot run without.
func requiredString(c *cobra.Command, name, usage string) {
	c.Flags().String(name, "", usage+" (required)")
	_ = c.MarkFlagRequired(name)
}

package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
)

// The git parts of the workspace commands' output (docs/workspaces.md).

// gitBranch is the BRANCH column: the branch, "@" and 12 digits of a
// detached commit, or "-" without git state.
func gitBranch(g *mux.GitState) string {
	switch {
	case g == nil:
		return "-"
	case g.Branch != nil:
		return *g.Branch
	case g.Commit != nil:
		c := *g.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		return "@" + c
	}
	return "?"
}

// gitFlags is the GIT column: "clean" or "dirty", plus "worktree" and
// "missing" when they apply, comma-separated; "-" without git state.
func gitFlags(g *mux.GitState) string {
	if g == nil {
		return "-"
	}
	var f []string
	switch {
	case g.Missing:
		f = append(f, "missing")
	case g.Dirty == nil:
		f = append(f, "unknown")
	case *g.Dirty:
		f = append(f, "dirty")
	default:
		f = append(f, "clean")
	}
	if g.Detached {
		f = append(f, "detached")
	}
	if g.Worktree {
		f = append(f, "worktree")
	}
	return strings.Join(f, ",")
}

func (a *app) printGit(g *mux.GitState) {
	if g == nil {
		return
	}
	fmt.Fprintf(a.out, "git root %s branch %s %s", g.Root, gitBranch(g), gitFlags(g))
	if g.Worktree {
		fmt.Fprintf(a.out, " of %s", g.Repo)
	}
	fmt.Fprintln(a.out)
}

func (a *app) printCreated(raw json.RawMessage) error {
	var r struct {
		Workspace mux.Workspace
		Pane      *mux.Pane
	}
	if err := decode(raw, &r); err != nil {
		return err
	}
	if err := a.printWorkspaceValue(r.Workspace); err != nil {
		return err
	}
	if r.Pane != nil {
		return a.printPanes([]mux.Pane{*r.Pane})
	}
	return nil
}

func (a *app) printRemoved(raw json.RawMessage) error {
	var r struct {
		Removed_worktree *string
		Kept_branch      *string
	}
	if err := decode(raw, &r); err != nil {
		return err
	}
	if r.Removed_worktree != nil {
		fmt.Fprintf(a.out, "removed worktree %s", *r.Removed_worktree)
		if r.Kept_branch != nil {
			fmt.Fprintf(a.out, "; branch %s kept", *r.Kept_branch)
		}
		fmt.Fprintln(a.out)
	}
	return nil
}

// localCwd makes a relative "cwd" parameter absolute against the CLI's
// working directory when the daemon is local (a remote daemon's directories
// are not the CLI's: there it is sent as given, and refused if relative).
func (a *app) localCwd(p map[string]any) {
	addr := a.address
	if addr == "" {
		addr = defaultAddress()
	}
	if c, ok := p["cwd"].(string); ok && !isRemote(addr) {
		p["cwd"] = absPath(c)
	}
}

// absPath makes a directory given on the command line absolute, relative to
// the CLI's working directory (the daemon has its own).
func absPath(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

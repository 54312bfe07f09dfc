package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
	"github.com/spf13/cobra"
)

func resumeCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "resume [PANE] [--env NAME=VALUE]... [--unset-env NAME]...",
		Short: "Resume a pane's agent session after a restart (Mux.ResumePane)",
		Long: `Start the command that resumes PANE's agent session (for example
claude --resume <id>) in the same pane, with the environment the pane was
started with (while the daemon runs, values included; after a restart only
the saved, allowlisted part) and the agent's configuration directory
variables. --env adds variables for this start, such as an API key, and is
never saved; --unset-env removes some. The variables the pane was started
with that the resumed agent will not have are named on standard error
(names only). A pane started as a shell stays a shell: the shell starts and
the resume command is typed into it. Without PANE, the only RESUMABLE pane
is resumed; when there are several, they are listed and nothing is started.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p := map[string]any{}
			if err := addEnv(cmd.Flags(), p); err != nil {
				return err
			}
			if len(args) == 1 {
				p["pane"] = args[0]
				return a.run(cmd, "dev.signaltty.Mux.ResumePane", p, a.printRestarted)
			}
			c, err := a.dial(cmd.Context())
			if err != nil {
				return err
			}
			raw, err := c.call(cmd.Context(), "dev.signaltty.Mux.ListPanes", map[string]any{})
			c.conn.Close()
			if err != nil {
				return err
			}
			var r struct{ Panes []mux.Pane }
			if err := decode(raw, &r); err != nil {
				return err
			}
			var resumable []mux.Pane
			for _, p := range r.Panes {
				if p.Restore_state == "RESUMABLE" {
					resumable = append(resumable, p)
				}
			}
			switch len(resumable) {
			case 0:
				return &callError{Code: "not_found.pane", Message: "no pane is RESUMABLE", Data: map[string]any{"reason": "none_resumable"}}
			case 1:
				p["pane"] = resumable[0].Id
				return a.run(cmd, "dev.signaltty.Mux.ResumePane", p, a.printRestarted)
			}
			ids := make([]string, len(resumable))
			for i, p := range resumable {
				ids[i] = p.Id
			}
			if !a.json {
				fmt.Fprintln(os.Stderr, "several panes can be resumed; name one: signaltty resume PANE")
				if err := a.printPanes(resumable); err != nil {
					return err
				}
			}
			return &callError{Code: "invalid_params.pane", Message: fmt.Sprintf("%d panes are RESUMABLE; name one", len(resumable)),
				Data: map[string]any{"param": "pane", "reason": "ambiguous", "panes": ids}}
		},
	}
	envFlags(c.Flags())
	return c
}

// printRestarted prints a resumed or relaunched pane, and on standard
// error the variables it was started with that the new process lacks.
func (a *app) printRestarted(raw json.RawMessage) error {
	var r struct {
		EnvLost []string `json:"env_lost"`
	}
	_ = json.Unmarshal(raw, &r)
	if err := a.printPane(raw); err != nil {
		return err
	}
	if len(r.EnvLost) > 0 {
		fmt.Fprintf(a.errw, "not set in the new process (their values were not saved; give them with --env): %s\n", strings.Join(r.EnvLost, ", "))
	}
	return nil
}

// agentKind is the pane's agent kind for listings ("-" for none).
func agentKind(p mux.Pane) string {
	if p.Agent == nil || p.Agent.Kind == "none" {
		return "-"
	}
	return p.Agent.Kind
}

// listAttention lists the panes that need the user: attention other than none.
func (a *app) listAttention(cmd *cobra.Command) error {
	c, err := a.dial(cmd.Context())
	if err != nil {
		return err
	}
	defer c.conn.Close()
	raw, err := c.call(cmd.Context(), "dev.signaltty.Mux.ListPanes", params(cmd, "workspace", "tab"))
	if err != nil {
		return err
	}
	var r struct {
		Panes []mux.Pane `json:"panes"`
	}
	if err := decode(raw, &r); err != nil {
		return err
	}
	out := []mux.Pane{}
	for _, p := range r.Panes {
		if p.Attention != "" && p.Attention != "none" {
			out = append(out, p)
		}
	}
	if a.json {
		b, _ := json.Marshal(map[string]any{"panes": out})
		fmt.Fprintln(a.out, string(b))
		return nil
	}
	return a.printPanes(out)
}

func paneMarkSeenCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "mark-seen --pane P",
		Short: "Clear a pane's attention (Mux.MarkSeen)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Mux.MarkSeen", params(cmd, "pane"), a.printPane)
		},
	}
	requiredString(c, "pane", "pane id")
	return c
}

func workspaceSetCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "set --workspace W [--auto-resume[=false]]",
		Short: "Change a workspace's settings (Mux.SetWorkspace)",
		Long: `--auto-resume: at daemon start, resume this workspace's RESUMABLE panes whose
resume command is their agent's official one (never a self-reported one,
never a plain pane's command). Off by default; saved with the workspace.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Mux.SetWorkspace", params(cmd, "workspace", "auto-resume"), a.printWorkspace)
		},
	}
	requiredString(c, "workspace", "workspace id, handle or name")
	c.Flags().Bool("auto-resume", false, "resume the workspace's agents at daemon start")
	return c
}

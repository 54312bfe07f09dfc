package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"
)

// maxHookInput bounds what a hook reads from stdin.
const maxHookInput = 1 << 20

// hookCmd is what an agent's hook configuration runs (docs/agents.md,
// "Setting up the hooks"). It never fails the agent: whatever happens it exits 0, prints
// nothing on stdout (Claude Code adds a SessionStart hook's stdout to the
// conversation) and explains a problem on stderr.
func hookCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "hook AGENT EVENT [PAYLOAD]",
		Short: "Report an agent's hook event to its pane (Mux.HookEvent); for hook configurations",
		Long: `Read the hook's JSON input on stdin (unless stdin is a terminal) and send it, with AGENT (claude, codex,
opencode, cursor, gemini, pi) and EVENT (the agent's event name, such as
SessionStart or Stop), to the pane named by $SIGNALTTY_PANE, or else the
pane this process runs in. The pane learns the agent's session id (so it can
be resumed after a restart), lifecycle and attention. A program that gets
its JSON as its last argument instead (Codex's notify program) is served
too: "hook codex agent-turn-complete JSON", or "hook codex JSON" (the event
is then the JSON's "type"). Always exits 0, whatever its arguments, and
prints nothing on stdout; problems are noted on stderr. It never starts the
daemon. See "signaltty agent setup".`,
		// An agent reads a hook's failure as a verdict (Codex blocks a
		// prompt on exit 2): arguments are checked here, never by cobra.
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			note := func(format string, v ...any) {
				fmt.Fprintf(a.errw, "signaltty hook: "+format+"\n", v...)
			}
			agent, event, argPayload, err := hookArgs(args)
			if err != nil {
				note("%v (ignored)", err)
				return nil
			}
			p := map[string]any{"agent": agent, "event": event, "client_pid": os.Getpid()}
			if pane := os.Getenv("SIGNALTTY_PANE"); pane != "" {
				p["pane"] = pane
			}
			var in []byte
			if _, err := unix.IoctlGetTermios(int(os.Stdin.Fd()), unix.TCGETS); err != nil { // not a terminal: the hook's input
				if in, err = io.ReadAll(io.LimitReader(os.Stdin, maxHookInput)); err != nil {
					note("reading stdin: %v", err)
				}
			}
			if len(in) == 0 && argPayload != nil {
				p["payload"] = argPayload
			} else if len(in) > 0 {
				var obj map[string]any
				if err := json.Unmarshal(in, &obj); err != nil {
					note("stdin is not a JSON object (%v); sent without payload", err)
				} else {
					p["payload"] = obj
				}
			}
			os.Setenv("SIGNALTTY_NO_AUTOSTART", "1")
			ctx, cancel := context.WithTimeout(cmd.Context(), 5*time.Second)
			defer cancel()
			c, err := a.dial(ctx)
			if err != nil {
				note("%v (ignored)", err)
				return nil
			}
			defer c.conn.Close()
			raw, err := c.call(ctx, "dev.signaltty.Mux.HookEvent", p)
			if err != nil {
				note("%v (ignored)", err)
				return nil
			}
			var r struct {
				Accepted bool   `json:"accepted"`
				Reason   string `json:"reason"`
			}
			_ = json.Unmarshal(raw, &r)
			if !r.Accepted {
				note("not applied: %s", r.Reason)
			}
			if a.json {
				fmt.Fprintln(a.out, string(compact(raw)))
			}
			return nil
		},
	}
}

// hookArgs reads `hook AGENT EVENT [PAYLOAD]` and `hook AGENT PAYLOAD`,
// PAYLOAD being a JSON object (whose "type" is the event in the second
// form).
func hookArgs(args []string) (agent, event string, payload map[string]any, err error) {
	if len(args) < 2 || len(args) > 3 {
		return "", "", nil, fmt.Errorf("usage: signaltty hook AGENT EVENT [PAYLOAD] (got %d arguments)", len(args))
	}
	agent, event = args[0], args[1]
	last := args[len(args)-1]
	if len(args) == 3 || strings.HasPrefix(strings.TrimSpace(last), "{") {
		if err := json.Unmarshal([]byte(last), &payload); err != nil {
			return "", "", nil, fmt.Errorf("the last argument is not a JSON object: %v", err)
		}
		if len(args) == 2 {
			event, _ = payload["type"].(string)
			if event == "" {
				return "", "", nil, fmt.Errorf("the JSON argument has no \"type\" to name its event")
			}
		}
	}
	return agent, event, payload, nil
}

func reportSessionCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "report-session --session ID [--agent K] [--resume-argv JSON] [--pane P]",
		Short: "Record the session an agent holds, for agents without hooks (Mux.ReportSession)",
		Long: `Record that the agent in this pane ($SIGNALTTY_PANE, or --pane, or the pane
this process runs in) holds session ID, so that "signaltty resume" can bring
it back after a restart. --resume-argv '["tool","--continue","ID"]' gives
the command that resumes it (at most 64 arguments and 8 KiB, no control
characters, a plain command name first); it runs only on an explicit
resume, never automatically. Without it the agent's official command is used.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p := params(cmd, "session", "agent", "model", "pane")
			if _, ok := p["pane"]; !ok {
				if pane := os.Getenv("SIGNALTTY_PANE"); pane != "" {
					p["pane"] = pane
				}
			}
			p["client_pid"] = os.Getpid()
			if s, _ := cmd.Flags().GetString("resume-argv"); cmd.Flags().Changed("resume-argv") {
				var argv []string
				if err := json.Unmarshal([]byte(s), &argv); err != nil {
					return &callError{Code: "invalid_params.resume_argv", Message: "--resume-argv must be a JSON array of strings: " + err.Error(),
						Data: map[string]any{"param": "resume_argv", "reason": "syntax"}}
				}
				p["resume_argv"] = argv
			}
			return a.run(cmd, "dev.signaltty.Mux.ReportSession", p, a.printPane)
		},
	}
	requiredString(c, "session", "the agent's session id")
	c.Flags().String("agent", "", "agent kind (default the pane's, else generic)")
	c.Flags().String("resume-argv", "", "JSON array: the command that resumes the session")
	c.Flags().String("model", "", "the model the agent uses")
	c.Flags().String("pane", "", "pane id (default $SIGNALTTY_PANE)")
	return c
}

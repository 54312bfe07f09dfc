package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	runv "github.com/signaltty/signaltty/varlink/devsignalttyrun"
	"github.com/spf13/cobra"
)

func runCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "run --key K (--workspace W | --pane P --axis cols|rows) [--cwd DIR] [--env K=V]... [--unset-env K]... (--argv JSON | --shell TEXT | -- PROGRAM [ARG...])",
		Short: "Start a command as a trusted run (Run.Start); then: run wait",
		Long: `Start a process in a new pane as a run: its result will come only from the
daemon's own wait status, never from what it prints. --key makes retries safe:
the same key with the same parameters returns the same run instead of starting
the command again. The program is executed directly, with no shell, unless
given with --shell (run as /bin/sh -c TEXT).

Then "signaltty run wait --run R" waits and exits with the run's status:
0 succeeded, the exit code when failed, 128+N when killed by signal N,
124 when its --deadline-ms ended it, 125 when otherwise stopped. With --wait
this command does both on one connection: the start reply goes to stderr at
once, then it waits and prints and exits as "run wait" does.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p := params(cmd, "key", "workspace", "pane", "axis", "shell", "cwd", "name", "cols", "rows",
				"deadline-ms", "output-rows", "output-bytes", "source")
			a.localCwd(p)
			if err := addGrants(cmd, p); err != nil {
				return err
			}
			if err := addEnv(cmd.Flags(), p); err != nil {
				return err
			}
			if cmd.Flags().Changed("argv") {
				if len(args) > 0 {
					return &callError{Code: "invalid_params.command", Message: "give the program either with --argv or after --, not both",
						Data: map[string]any{"param": "command", "reason": "exclusive"}}
				}
				s, _ := cmd.Flags().GetString("argv")
				var argv []string
				if err := json.Unmarshal([]byte(s), &argv); err != nil {
					return &callError{Code: "invalid_params.argv", Message: "--argv must be a JSON array of strings: " + err.Error(),
						Data: map[string]any{"param": "argv", "reason": "syntax"}}
				}
				p["argv"] = argv
			} else if len(args) > 0 {
				p["argv"] = args
			}
			if wait, _ := cmd.Flags().GetBool("wait"); wait {
				return a.startAndWait(cmd, p)
			}
			for _, n := range []string{"timeout-ms", "output"} {
				if cmd.Flags().Changed(n) {
					return &callError{Code: "invalid_params.usage", Message: "--" + n + " needs --wait", Data: map[string]any{"flag": n}}
				}
			}
			return a.run(cmd, "dev.signaltty.Run.Start", p, func(raw json.RawMessage) error { return a.printStart(a.out, raw) })
		},
	}
	f := c.Flags()
	f.String("key", "", "idempotency key, 1-128 of [A-Za-z0-9._:-] (required)")
	_ = c.MarkFlagRequired("key")
	f.String("workspace", "", "run in a new tab of this workspace (id, handle or name)")
	f.String("pane", "", "run in a new pane split from this live pane")
	f.String("axis", "", "with --pane: cols (side by side) or rows (stacked)")
	f.String("argv", "", `program and arguments as a JSON array, e.g. '["make","test"]'`)
	f.String("shell", "", "command line run as /bin/sh -c TEXT")
	f.String("cwd", "", "working directory (default the workspace's; a relative one is taken from the CLI's)")
	envFlags(f)
	f.String("name", "", "title of the new tab (with --workspace)")
	f.Int64("cols", 0, "width in cells (default 80)")
	f.Int64("rows", 0, "height in cells (default 24)")
	f.Int64("deadline-ms", 0, "terminate the command this many ms after it starts")
	f.Int64("output-rows", 0, "most rows of output kept in the result (default 100)")
	f.Int64("output-bytes", 0, "most bytes of output lines kept in the result (default 65536)")
	f.String("source", "", "fail with conflict.source unless the daemon's event source is this one")
	grantFlag(f)
	runWaitFlags(f)
	c.AddCommand(runWaitCmd(a), runGetCmd(a), runListCmd(a), runCancelCmd(a))
	return c
}

func runWaitCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "wait --run R [--timeout-ms N] [--output=false]",
		Short: "Wait until a run completes; exit with its status (Run.Wait)",
		Long: `Wait until the run completes and print its output tail and outcome. The exit
status is the run's status. --timeout-ms ends only the wait (exit 7,
timeout.wait), as does Ctrl-C (exit 8): the command keeps running.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			last, err := a.waitRun(cmd.Context(), params(cmd, "run", "timeout-ms", "output", "source", "trim"))
			if err != nil {
				return err
			}
			return a.waitResult(last)
		},
	}
	requiredString(c, "run", "run id")
	c.Flags().Int64("timeout-ms", 0, "give up waiting after this many ms (exit 7; default: no limit; 0: just check)")
	c.Flags().Bool("output", true, "include the output tail")
	c.Flags().String("source", "", "fail with conflict.source unless the daemon's event source is this one")
	c.Flags().Bool("trim", false, "output lines without their trailing spaces (in --json; text output is always trimmed)")
	return c
}

// waitRun makes a Run.Wait call with "more" and returns the final reply
// (the one --json prints and the MCP tool run_wait returns).
func (a *app) waitRun(ctx context.Context, p map[string]any) (json.RawMessage, error) {
	cl, err := a.dial(ctx)
	if err != nil {
		return nil, err
	}
	defer cl.conn.Close()
	return waitOn(ctx, cl, p)
}

// waitOn is waitRun on an open connection (daemon.Client.WaitRun).
func waitOn(ctx context.Context, cl *client, p map[string]any) (json.RawMessage, error) {
	return cl.d.WaitRun(ctx, p)
}

// waitResult prints the final Run.Wait reply (raw with --json, else the
// output tail and outcome) and ends the CLI with the run's status
// (docs/run-wait.md, "Outcomes and status"): nil for 0, else exitStatus.
func (a *app) waitResult(last json.RawMessage) error {
	var r struct{ Record runv.Record }
	if err := decode(last, &r); err != nil {
		return err
	}
	if a.json {
		fmt.Fprintln(a.out, string(compact(last)))
	} else {
		a.printRecord(r.Record, true)
	}
	if r.Record.Status != nil && *r.Record.Status != 0 {
		return exitStatus(int(*r.Record.Status))
	}
	return nil
}

// printStart prints a Run.Start reply to w: one line for humans, or the
// reply object with --json.
func (a *app) printStart(w io.Writer, raw json.RawMessage) error {
	if a.json {
		fmt.Fprintln(w, string(compact(raw)))
		return nil
	}
	var r struct {
		Run, Pane, Tab, Workspace string
		Pid                       int64
		Reused                    bool
	}
	if err := decode(raw, &r); err != nil {
		return err
	}
	reused := ""
	if r.Reused {
		reused = " (existing run for this key; nothing started)"
	}
	fmt.Fprintf(w, "run %s in pane %s (tab %s, workspace %s), pid %d%s\n", r.Run, r.Pane, r.Tab, r.Workspace, r.Pid, reused)
	return nil
}

func runGetCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "get --run R [--output=false]",
		Short: "Show a run's record (Run.Get)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Run.Get", params(cmd, "run", "output", "source", "trim"), a.printRecordReply)
		},
	}
	requiredString(c, "run", "run id")
	c.Flags().Bool("output", true, "include the output tail")
	c.Flags().String("source", "", "fail with conflict.source unless the daemon's event source is this one")
	c.Flags().Bool("trim", false, "output lines without their trailing spaces (in --json; text output is always trimmed)")
	return c
}

func runListCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "list [--pane P] [--key K] [--after R] [--limit N]",
		Short: "List retained runs (Run.List)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Run.List", params(cmd, "pane", "key", "after", "limit"), func(raw json.RawMessage) error {
				var r struct {
					Runs []runv.Record
					Next *string
				}
				if err := decode(raw, &r); err != nil {
					return err
				}
				tw := tabwriter.NewWriter(a.out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "RUN\tKEY\tPANE\tSTATE\tOUTCOME\tSTATUS")
				for _, rec := range r.Runs {
					outcome, status := "-", "-"
					if rec.Outcome != nil {
						outcome = *rec.Outcome
					}
					if rec.Status != nil {
						status = fmt.Sprint(*rec.Status)
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", rec.Run, rec.Key, rec.Pane, rec.State, outcome, status)
				}
				tw.Flush()
				if r.Next != nil {
					fmt.Fprintf(a.out, "more: --after %s\n", *r.Next)
				}
				return nil
			})
		},
	}
	c.Flags().String("pane", "", "only runs of this pane")
	c.Flags().String("key", "", "only the run with this key")
	c.Flags().String("after", "", "only runs after this run id (paging)")
	c.Flags().Int64("limit", 0, "at most this many (1-1024, default 256)")
	return c
}

func runCancelCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "cancel --run R [--signal HUP] [--grace-ms 2000]",
		Short: "Stop a run: destructive (Run.Cancel)",
		Long: `Stop the run's command: --signal (default HUP) and SIGCONT to its process
group, SIGKILL after --grace-ms (default 2000). Prints the completed record.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Run.Cancel", params(cmd, "run", "signal", "grace-ms", "source"), a.printRecordReply)
		},
	}
	requiredString(c, "run", "run id")
	c.Flags().String("source", "", "fail with conflict.source unless the daemon's event source is this one")
	c.Flags().String("signal", "", "first signal (default HUP)")
	c.Flags().Int64("grace-ms", 0, "milliseconds before SIGKILL (default 2000)")
	return c
}

func (a *app) printRecordReply(raw json.RawMessage) error {
	var r struct{ Record runv.Record }
	if err := decode(raw, &r); err != nil {
		return err
	}
	a.printRecord(r.Record, true)
	return nil
}

// printRecord prints the output tail, then one line with the outcome.
func (a *app) printRecord(r runv.Record, tail bool) {
	if tail && r.Output != nil {
		for _, l := range r.Output.Lines {
			fmt.Fprintln(a.out, strings.TrimRight(l, " "))
		}
	}
	line := fmt.Sprintf("run %s %s", r.Run, r.State)
	if r.Outcome != nil {
		line += " " + *r.Outcome
	}
	if r.Exit_code != nil {
		line += fmt.Sprintf(", exit code %d", *r.Exit_code)
	}
	if r.Signal != nil {
		line += ", signal " + *r.Signal
	}
	if r.Cause != nil {
		line += ", cause " + *r.Cause
	}
	if r.Status != nil {
		line += fmt.Sprintf(", status %d", *r.Status)
	}
	if r.Duration_ms != nil {
		line += fmt.Sprintf(", %d ms", *r.Duration_ms)
	}
	fmt.Fprintln(a.out, line)
}

package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/signaltty/signaltty/service/request"
	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
	"github.com/spf13/cobra"
)

func paneCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "pane", Short: "Spawn, drive, read and stop panes"}
	c.AddCommand(paneSpawnCmd(a), paneListCmd(a), paneGetCmd(a), paneSendCmd(a), paneResizeCmd(a),
		paneSignalCmd(a), paneCaptureCmd(a), paneKillCmd(a), paneRemoveCmd(a), paneRelaunchCmd(a), paneMarkSeenCmd(a), paneWaitCmd(a))
	return c
}

func paneSpawnCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "spawn (--workspace W | --tab T | --split P --axis cols|rows) [flags] -- PROGRAM [ARG...]",
		Short: "Start a program in a new pane (Mux.SpawnPane)",
		Long: `Start PROGRAM with ARGs (executed directly, no shell) in a new pane: in a new
tab of --workspace, in the empty --tab, or beside the live pane --split
(--axis cols: side by side, rows: stacked).`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p := params(cmd, "workspace", "tab", "split", "axis", "cwd", "cols", "rows", "agent", "assign-session", "history-rows", "memory-max", "pids-max")
			a.localCwd(p)
			p["argv"] = args
			if err := addGrants(cmd, p); err != nil {
				return err
			}
			if err := addEnv(cmd.Flags(), p); err != nil {
				return err
			}
			return a.run(cmd, "dev.signaltty.Mux.SpawnPane", p, a.printPane)
		},
	}
	f := c.Flags()
	f.String("workspace", "", "workspace id, handle or name: the pane goes into a new tab")
	f.String("tab", "", "id of an empty tab to put the pane in")
	f.String("split", "", "id of a live pane to split")
	f.String("axis", "", "with --split: cols (side by side) or rows (stacked)")
	f.String("cwd", "", "working directory (default the workspace's; a relative one is taken from the CLI's)")
	envFlags(f)
	f.Int64("cols", 0, "width in cells (default 80)")
	f.Int64("rows", 0, "height in cells (default 24)")
	f.String("agent", "", "the kind of agent PROGRAM is (claude, codex, opencode, cursor, gemini, pi, generic, none; default from its name)")
	f.Bool("assign-session", false, "start the agent with a session id signaltty picks and records (claude: --session-id)")
	f.Int64("history-rows", 0, fmt.Sprintf("rows of history kept once scrolled off the screen, 1-%d (default the daemon's setting, %d unless changed)", request.MaxHistoryRows, request.DefaultHistoryRows))
	spawnLimitFlags(f)
	grantFlag(f)
	return c
}

func paneListCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "list",
		Short: "List panes (Mux.ListPanes)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if on, _ := cmd.Flags().GetBool("attention"); on {
				return a.listAttention(cmd)
			}
			if f := arrayFlag(cmd.Flags(), "fields"); len(f) > 0 {
				return a.listPaneFields(cmd, f)
			} else if cmd.Flags().Changed("limit") || cmd.Flags().Changed("after") {
				return usageError("--limit and --after need --fields")
			}
			return a.run(cmd, "dev.signaltty.Mux.ListPanes", params(cmd, "workspace", "tab"), func(raw json.RawMessage) error {
				var r struct{ Panes []mux.Pane }
				if err := decode(raw, &r); err != nil {
					return err
				}
				return a.printPanes(r.Panes)
			})
		},
	}
	c.Flags().Bool("attention", false, "only panes that need the user (attention other than none)")
	c.Flags().String("workspace", "", "only panes of this workspace (id, handle or name)")
	c.Flags().String("tab", "", "only panes of this tab")
	paneFieldsFlag(c)
	return c
}

func paneGetCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "get",
		Short: "Show one pane (Mux.GetPane)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Mux.GetPane", params(cmd, "pane"), a.printPaneDetail)
		},
	}
	requiredString(c, "pane", "pane id")
	return c
}

func paneResizeCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "resize --pane P --cols C --rows R",
		Short: "Set a pane's size; the program gets SIGWINCH (Mux.ResizePane)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Mux.ResizePane", params(cmd, "pane", "cols", "rows"), a.printPane)
		},
	}
	requiredString(c, "pane", "pane id")
	c.Flags().Int64("cols", 0, "width in cells (required)")
	c.Flags().Int64("rows", 0, "height in cells (required)")
	_ = c.MarkFlagRequired("cols")
	_ = c.MarkFlagRequired("rows")
	return c
}

func paneSignalCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "signal --pane P --signal NAME",
		Short: "Send a signal to a pane's process group (Mux.SignalPane)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Mux.SignalPane", params(cmd, "pane", "signal"), nil)
		},
	}
	requiredString(c, "pane", "pane id")
	requiredString(c, "signal", "HUP INT QUIT KILL TERM USR1 USR2 CONT STOP TSTP WINCH ALRM, with or without SIG")
	return c
}

func paneCaptureCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "capture --pane P [--start N] [--end N] [--last N | --history] [--clamp] [--escapes] [--epoch E]",
		Short: "Print a pane's screen, or rows of its history (Mux.CaptureRows)",
		Long: `Print a pane's visible screen, or the rows [--start, --end) of its history and
screen. Rows are numbered from 0 since the pane started; --json shows oldest,
end and epoch for paging. --last N prints the last N rows ending at the
screen's bottom, --history starts at the oldest kept row. A range outside the
kept rows fails unless --clamp, which serves the rows that exist (stderr names
them). --escapes keeps colours and attributes as SGR escape sequences (as
tmux capture-pane -e). Without --json trailing spaces and trailing empty rows
are left out.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p := params(cmd, "pane", "start", "end", "epoch", "trim", "last", "history", "clamp", "escapes", "max-bytes")
			if !a.json {
				p["trim"] = true // text output is trimmed anyway
			}
			return a.run(cmd, "dev.signaltty.Mux.CaptureRows", p, func(raw json.RawMessage) error {
				var r struct {
					Lines         []string
					First, Next   int64
					Restored_rows int64
					Clamped, Cut  bool
				}
				if err := decode(raw, &r); err != nil {
					return err
				}
				lines := r.Lines
				if r.First < r.Restored_rows {
					fmt.Fprintf(a.errw, "(rows before %d were shown by an earlier process of this pane, before a restart or relaunch)\n", r.Restored_rows)
				}
				if r.Clamped {
					fmt.Fprintf(a.errw, "(clamped to the rows kept: %d..%d)\n", r.First, r.Next)
				}
				if r.Cut {
					fmt.Fprintf(a.errw, "(cut at --max-bytes: rows %d..%d; go on with --start %d)\n", r.First, r.Next, r.Next)
				}
				for len(lines) > 0 && strings.TrimRight(lines[len(lines)-1], " ") == "" {
					lines = lines[:len(lines)-1]
				}
				for _, l := range lines {
					fmt.Fprintln(a.out, strings.TrimRight(l, " "))
				}
				return nil
			})
		},
	}
	requiredString(c, "pane", "pane id")
	f := c.Flags()
	f.Int64("start", 0, "first row (inclusive)")
	f.Int64("end", 0, "last row (exclusive)")
	f.Int64("last", 0, "the last N rows, ending at the screen's bottom (not with --start or --end)")
	f.Bool("history", false, "from the oldest row kept (not with --start or --last)")
	f.Bool("clamp", false, "serve the rows that exist of a range reaching past them, instead of failing")
	f.Bool("escapes", false, "colours and attributes as SGR escape sequences")
	f.Int64("max-bytes", 0, "cut the rows after the last one within this many bytes of the reply's lines, instead of refusing")
	f.Int64("epoch", 0, "fail with conflict.epoch unless the numbering is still this epoch")
	f.Bool("trim", false, "rows without their trailing spaces (in --json; text output is always trimmed)")
	return c
}

func paneKillCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "kill --pane P [--signal HUP] [--grace-ms 2000]",
		Short: "Terminate a pane's processes and wait for the exit (Mux.KillPane)",
		Long: `Send --signal (default HUP) and SIGCONT to the pane's process group, wait
--grace-ms (default 2000) for the program to exit, then SIGKILL the group, and
print the exited pane.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Mux.KillPane", params(cmd, "pane", "signal", "grace-ms"), a.printPane)
		},
	}
	requiredString(c, "pane", "pane id")
	c.Flags().String("signal", "", "first signal (default HUP)")
	c.Flags().Int64("grace-ms", 0, "milliseconds before SIGKILL (default 2000)")
	return c
}

func (a *app) printPane(raw json.RawMessage) error {
	var r struct{ Pane mux.Pane }
	if err := decode(raw, &r); err != nil {
		return err
	}
	return a.printPanes([]mux.Pane{r.Pane})
}

func (a *app) printPanes(ps []mux.Pane) error {
	tw := tabwriter.NewWriter(a.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PANE\tWORKSPACE\tTAB\tAGENT\tLIFECYCLE\tATTENTION\tRESTORE\tSTATE\tSIZE\tTITLE")
	for _, p := range ps {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%dx%d\t%s\n", p.Id, p.Workspace, p.Tab, agentKind(p), p.Lifecycle, p.Attention,
			p.Restore_state, paneState(p), p.Cols, p.Rows, p.Title)
	}
	return tw.Flush()
}

// paneState is "live (pid N)", "terminating", "exited 3" or "killed SIGKILL".
func paneState(p mux.Pane) string {
	switch {
	case p.State == "live" && p.Terminating:
		return "terminating"
	case p.State == "live" && p.Pid != nil:
		return "live pid " + strconv.FormatInt(*p.Pid, 10)
	case p.Status != nil && p.Status.Signal != nil:
		return "killed " + *p.Status.Signal
	case p.Status != nil && p.Status.Code != nil:
		return "exited " + strconv.FormatInt(*p.Status.Code, 10)
	case p.Restore_state == "RESTORED" || p.Restore_state == "RESUMABLE":
		return "no process (restored)"
	}
	return p.State
}

// unescape interprets \n \r \t \e \a \b \\ \0 \xHH in s.
func unescape(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 >= len(s) {
			return "", fmt.Errorf("--text ends with a lone backslash")
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'e':
			b.WriteByte(0x1b)
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case '0':
			b.WriteByte(0)
		case '\\':
			b.WriteByte('\\')
		case 'x':
			if i+2 >= len(s) {
				return "", fmt.Errorf("--text: \\x needs two hex digits")
			}
			v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return "", fmt.Errorf("--text: bad escape \\x%s", s[i+1:i+3])
			}
			b.WriteByte(byte(v))
			i += 2
		default:
			return "", fmt.Errorf("--text: unknown escape \\%c", s[i])
		}
	}
	return b.String(), nil
}

package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// pane wait: Mux.Wait (docs/agents.md, "Waiting").
func paneWaitCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "wait --pane P (--until STATE[,STATE...] | [--send TEXT] [--match RE] [--quiet-ms N]) [--after BASELINE] [--timeout-ms N]",
		Short: "Wait until a pane's agent reaches a state (Mux.Wait) or its output does (Mux.WaitOutput)",
		Long: `With --match, --quiet-ms or --send it waits on what the pane prints
(Mux.WaitOutput; docs/rows.md, "Output waits"): until a row that changed
since the baseline matches --match (an RE2 regular expression tested on
the row without trailing spaces), the pane printed nothing for --quiet-ms,
or its process exited; --send TEXT (escapes as pane send --text) writes
TEXT first and waits from the screen just before it (Mux.SendWait), the
way to answer a prompt. --after takes the JSON of the baseline of pane send
--json or of an earlier output wait (default: the screen when the wait
begins). It prints the changed rows; with --json the reply. Exit status 7
when --timeout-ms passed first (the rows so far are printed).

With --until it waits until the pane's agent reaches one of the states: a lifecycle (unknown,
working, blocked, done, idle, failed, exited), an attention (none, unread,
warning, input_required, permission_required, error), seen or
attention_cleared (attention back to none), or exited. Without --after it
returns at once when one holds now. --after takes a baseline, the JSON of
wait_baseline from "pane get --json" or of baseline from an earlier wait's
--json reply: then only a transition after it counts, also one the agent has
already left again. A wait never acts on the pane. It prints the state
reached; with --json the reply, whose baseline starts the next wait. Exit
status 7 (timeout.wait) when none was reached within --timeout-ms (default
one hour), 5 (conflict.identity_changed) when the baseline's process or
session is gone.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p := params(cmd, "pane", "timeout-ms")
			if output := cmd.Flags().Changed("match") || cmd.Flags().Changed("quiet-ms") || cmd.Flags().Changed("send"); output {
				if cmd.Flags().Changed("until") {
					return usageError("--until waits on the agent's state, --match, --quiet-ms and --send on the output: give one kind")
				}
				return a.waitOutput(cmd, p)
			}
			if !cmd.Flags().Changed("until") {
				return usageError("give --until, or --match, --quiet-ms or --send")
			}
			until, _ := cmd.Flags().GetString("until")
			var states []string
			for _, u := range strings.Split(until, ",") {
				if u = strings.TrimSpace(u); u != "" {
					states = append(states, u)
				}
			}
			p["until"] = states
			if err := afterFlag(cmd, p, "a wait baseline"); err != nil {
				return err
			}
			return a.run(cmd, "dev.signaltty.Mux.Wait", p, func(raw json.RawMessage) error {
				var r struct {
					Outcome       string
					TransitionSeq int64 `json:"transition_seq"`
					Lifecycle     string
					Attention     string
				}
				if err := decode(raw, &r); err != nil {
					return err
				}
				fmt.Fprintf(a.out, "%s (seq %d; lifecycle %s, attention %s)\n", r.Outcome, r.TransitionSeq, r.Lifecycle, r.Attention)
				return nil
			})
		},
	}
	requiredString(c, "pane", "pane id")
	c.Flags().String("until", "", "agent states to wait for, comma-separated")
	c.Flags().String("match", "", "wait for a changed row matching this regular expression")
	c.Flags().Int64("quiet-ms", 0, "wait until the pane printed nothing for N ms")
	c.Flags().String("send", "", "write TEXT first (escapes as pane send --text), then wait on its output")
	c.Flags().String("after", "", "a wait baseline (JSON) after which a transition (or output) counts")
	c.Flags().Int64("timeout-ms", 0, "how long to wait, in ms (default one hour)")
	return c
}

// waitOutput is pane wait with --match, --quiet-ms or --send: Mux.WaitOutput,
// or Mux.SendWait with --send.
func (a *app) waitOutput(cmd *cobra.Command, p map[string]any) error {
	for k, v := range params(cmd, "match", "quiet-ms") {
		p[k] = v
	}
	method := "dev.signaltty.Mux.WaitOutput"
	if cmd.Flags().Changed("send") {
		if cmd.Flags().Changed("after") {
			return usageError("--send waits from the screen before it: --after does not go with it")
		}
		t, _ := cmd.Flags().GetString("send")
		text, err := unescape(t)
		if err != nil {
			return &callError{Code: "invalid_params.text", Message: err.Error(), Data: map[string]any{"param": "text", "reason": "escape"}}
		}
		p["text"], method = text, "dev.signaltty.Mux.SendWait"
	}
	if err := afterFlag(cmd, p, "an output baseline"); err != nil {
		return err
	}
	raw, err := a.call(cmd.Context(), method, p)
	if err != nil {
		return err
	}
	var r struct {
		Outcome    string
		MatchedRow *int64 `json:"matched_row"`
		Lines      []string
		Omitted    int64
		Status     *struct {
			Code   *int
			Signal *string
		}
	}
	if err := decode(raw, &r); err != nil {
		return err
	}
	if a.json {
		fmt.Fprintln(a.out, string(compact(raw)))
	} else {
		if r.Omitted > 0 {
			fmt.Fprintf(a.out, "(%d earlier rows left out)\n", r.Omitted)
		}
		for _, l := range r.Lines {
			fmt.Fprintln(a.out, l)
		}
		switch {
		case r.Outcome == "matched" && r.MatchedRow != nil:
			fmt.Fprintf(a.errw, "matched (row %d)\n", *r.MatchedRow)
		case r.Outcome == "exited" && r.Status != nil && r.Status.Code != nil:
			fmt.Fprintf(a.errw, "exited (code %d)\n", *r.Status.Code)
		case r.Outcome == "exited" && r.Status != nil && r.Status.Signal != nil:
			fmt.Fprintf(a.errw, "exited (signal %s)\n", *r.Status.Signal)
		default:
			fmt.Fprintln(a.errw, r.Outcome)
		}
	}
	if r.Outcome == "timeout" {
		return exitStatus(7)
	}
	return nil
}

// afterFlag sets p["after"] from --after, the JSON of what (a baseline).
// Errors: invalid_params.after (reason "syntax").
func afterFlag(cmd *cobra.Command, p map[string]any, what string) error {
	after, _ := cmd.Flags().GetString("after")
	if after == "" {
		return nil
	}
	var b map[string]any
	if err := json.Unmarshal([]byte(after), &b); err != nil {
		return &callError{Code: "invalid_params.after", Message: "--after takes the JSON of " + what + ": " + err.Error(),
			Data: map[string]any{"param": "after", "reason": "syntax"}}
	}
	p["after"] = b
	return nil
}

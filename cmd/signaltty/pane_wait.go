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
		Use:   "wait --pane P --until STATE[,STATE...] [--after BASELINE] [--timeout-ms N]",
		Short: "Wait until a pane's agent reaches a state (Mux.Wait)",
		Long: `Waits until the pane's agent reaches one of the states: a lifecycle (unknown,
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
			until, _ := cmd.Flags().GetString("until")
			var states []string
			for _, u := range strings.Split(until, ",") {
				if u = strings.TrimSpace(u); u != "" {
					states = append(states, u)
				}
			}
			p["until"] = states
			if after, _ := cmd.Flags().GetString("after"); after != "" {
				var b map[string]any
				if err := json.Unmarshal([]byte(after), &b); err != nil {
					return &callError{Code: "invalid_params.after", Message: "--after takes the JSON of a wait baseline: " + err.Error(),
						Data: map[string]any{"param": "after", "reason": "syntax"}}
				}
				p["after"] = b
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
	requiredString(c, "until", "states to wait for, comma-separated")
	c.Flags().String("after", "", "a wait baseline (JSON) after which a transition counts")
	c.Flags().Int64("timeout-ms", 0, "how long to wait, in ms (default one hour)")
	return c
}

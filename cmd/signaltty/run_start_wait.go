package main

// `signaltty run --wait`: Run.Start, then Run.Wait on the same connection
// (docs/run-wait.md, "Start and wait in one call").

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// runWaitFlags adds the flags of `run --wait` to run's flags.
func runWaitFlags(f *pflag.FlagSet) {
	f.Bool("wait", false, "then wait on the same connection until the run completes and exit with its status, as run wait does; the start reply goes to stderr at once")
	f.Int64("timeout-ms", 0, "with --wait: give up waiting after this many ms (exit 7; the command keeps running; default: no limit)")
	f.Bool("output", true, "with --wait: include the output tail")
}

// startAndWait makes the Run.Start call p, prints its reply to stderr at
// once (a line for humans, the reply object with --json), then waits for
// that run on the same connection and ends as `run wait` does (waitResult).
// A failed start is the start's error; nothing is waited for then.
func (a *app) startAndWait(cmd *cobra.Command, p map[string]any) error {
	ctx := cmd.Context()
	cl, err := a.dial(ctx)
	if err != nil {
		return err
	}
	defer cl.conn.Close()
	raw, err := cl.call(ctx, "dev.signaltty.Run.Start", p)
	if err != nil {
		return err
	}
	if err := a.printStart(a.errw, raw); err != nil {
		return err
	}
	var st struct{ Run, Source string }
	if err := decode(raw, &st); err != nil {
		return err
	}
	wp := params(cmd, "timeout-ms", "output")
	wp["run"], wp["source"] = st.Run, st.Source
	last, err := waitOn(ctx, cl, wp)
	if err != nil {
		return err
	}
	return a.waitResult(last)
}

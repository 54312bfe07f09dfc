package main

import (
	"encoding/json"
	"fmt"

	"github.com/signaltty/signaltty/service/request"
	srv "github.com/signaltty/signaltty/varlink/devsignalttyserver"
	"github.com/spf13/cobra"
)

func configCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "config", Short: "Show and change settings (kept in $XDG_CONFIG_HOME/signaltty/settings.conf)"}
	show := &cobra.Command{
		Use:   "get",
		Short: "Show the settings, where each came from, and the limits fixed at start (Server.GetConfig)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, "dev.signaltty.Server.GetConfig", nil, a.printConfig)
		},
	}
	set := &cobra.Command{
		Use:   "set [--run-max-active N] [--run-retain-count N] [--run-retain-ms N] [--run-retain-bytes N] [--run-remove-panes=BOOL] [--save-interval-ms N] [--history-rows N]",
		Short: "Change settings and save them in the settings file (Server.SetConfig)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p := params(cmd, "run-max-active", "run-retain-count", "run-retain-ms", "run-retain-bytes", "run-remove-panes", "save-interval-ms", "history-rows")
			if len(p) == 0 {
				return usageError("config set needs at least one setting (see --help); config get shows them")
			}
			return a.run(cmd, "dev.signaltty.Server.SetConfig", p, a.printConfig)
		},
	}
	set.Flags().Int64("run-max-active", 0, fmt.Sprintf("runs not yet completed, %d-%d", request.MinRunMaxActive, request.MaxRunMaxActive))
	set.Flags().Int64("run-retain-count", 0, fmt.Sprintf("completed run records kept, 0-%d", request.MaxRunRetainCount))
	set.Flags().Int64("run-retain-ms", 0, "how long completed records are kept, ms")
	set.Flags().Int64("run-retain-bytes", 0, "output bytes kept over all completed records")
	set.Flags().Bool("run-remove-panes", false, "remove a run's exited pane (and the run's tab it empties) when its record is evicted")
	set.Flags().Int64("save-interval-ms", 0, fmt.Sprintf("also save the snapshot this often, ms: 0 (only after changes) or %d-%d",
		request.MinSaveInterval.Milliseconds(), request.MaxInterval.Milliseconds()))
	set.Flags().Int64("history-rows", 0, fmt.Sprintf("history rows of panes spawned from now on without --history-rows, 1-%d", request.MaxHistoryRows))
	c.AddCommand(show, set)
	return c
}

func (a *app) printConfig(raw json.RawMessage) error {
	var r struct{ Config srv.Config }
	if err := decode(raw, &r); err != nil {
		return err
	}
	rc := r.Config.Run
	origin := map[string]string{}
	for _, o := range r.Config.Origins {
		origin[o.Name] = " (" + o.Origin + ")"
	}
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"run.max_active", rc.Max_active}, {"run.retain_count", rc.Retain_count}, {"run.retain_ms", rc.Retain_ms},
		{"run.retain_bytes", rc.Retain_bytes}, {"save_interval_ms", r.Config.Save_interval_ms}, {"history_rows", r.Config.History_rows},
	} {
		fmt.Fprintf(a.out, "%s %d%s\n", f.name, f.v, origin[f.name])
		if f.name == "run.retain_bytes" {
			fmt.Fprintf(a.out, "run.remove_panes %t%s\n", rc.Remove_panes, origin["run.remove_panes"])
		}
	}
	fmt.Fprintf(a.out, "save_output_interval_ms %d\nemulator_release_ms %d\n", r.Config.Save_output_interval_ms, r.Config.Emulator_release_ms)
	if f := r.Config.Settings_file; f != nil {
		fmt.Fprintf(a.out, "settings_file %s\n", *f)
	}
	l := r.Config.Limits
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"max_panes", l.Max_panes}, {"input_max_bytes", l.Input_max_bytes},
		{"input_bytes_per_second", l.Input_bytes_per_second}, {"event_queue", l.Event_queue},
		{"capture_max_bytes", l.Capture_max_bytes}, {"history_bytes", l.History_bytes},
		{"history_total_bytes", l.History_total_bytes}, {"request_budget_bytes", l.Request_budget_bytes},
		{"request_timeout_ms", l.Request_timeout_ms}, {"max_connections", l.Max_connections},
	} {
		fmt.Fprintf(a.out, "limits.%s %d\n", f.name, f.v)
	}
	return nil
}

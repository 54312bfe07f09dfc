package tests

// History depth: per pane at spawn, and the daemon's setting for panes
// spawned without one (docs/rows.md, "Scrollback bounds").

import (
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

type historyConfig struct {
	Config struct {
		HistoryRows int `json:"history_rows"`
	} `json:"config"`
}

type historyPane struct {
	Pane struct {
		ID          string `json:"id"`
		HistoryRows int    `json:"history_rows"`
	} `json:"pane"`
}

// kept is how many rows of history a pane keeps after printing 300 lines.
func kept(t *testing.T, d *harness.Daemon, pane string) int64 {
	t.Helper()
	c := d.WaitLine(t, pane, "printed")
	return c.End - int64(c.Rows) - c.Oldest
}

func TestHistoryRowsPerPaneAndDaemonSetting(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "history")
	var cfg historyConfig
	d.JSON(t, &cfg, "config", "get")
	if cfg.Config.HistoryRows != 10000 {
		t.Errorf("default history_rows %d, want 10000", cfg.Config.HistoryRows)
	}
	const script = "seq 1 300; echo printed; exec sleep 100"
	var own historyPane
	d.JSON(t, &own, "pane", "spawn", "--workspace", w.ID, "--history-rows", "50", "--", "sh", "-c", script)
	if own.Pane.HistoryRows != 50 {
		t.Errorf("spawned with --history-rows 50, the pane says %d", own.Pane.HistoryRows)
	}
	if n := kept(t, d, own.Pane.ID); n != 50 {
		t.Errorf("a pane spawned with 50 history rows keeps %d", n)
	}
	d.JSON(t, &cfg, "config", "set", "--history-rows", "30")
	if cfg.Config.HistoryRows != 30 {
		t.Errorf("config set --history-rows 30 replied %d", cfg.Config.HistoryRows)
	}
	var later historyPane
	d.JSON(t, &later, "pane", "spawn", "--workspace", w.ID, "--", "sh", "-c", script)
	if n := kept(t, d, later.Pane.ID); n != 30 || later.Pane.HistoryRows != 30 {
		t.Errorf("a pane spawned after the setting became 30 keeps %d rows (says %d)", n, later.Pane.HistoryRows)
	}
	var again historyPane
	d.JSON(t, &again, "pane", "get", "--pane", own.Pane.ID)
	if again.Pane.HistoryRows != 50 {
		t.Errorf("the earlier pane's history_rows became %d", again.Pane.HistoryRows)
	}
	d.Fail(t, "invalid_params.history_rows", exitInvalid, "pane", "spawn", "--workspace", w.ID, "--history-rows", "0", "--", "true")
	d.Fail(t, "invalid_params.history_rows", exitInvalid, "config", "set", "--history-rows", "1000001")
	d.JSON(t, &cfg, "config", "get")
	if cfg.Config.HistoryRows != 30 {
		t.Errorf("a refused setting changed history_rows to %d", cfg.Config.HistoryRows)
	}
}

// A pane's history depth is saved with it: after a restart the listing
// shows what it was spawned with, and a relaunch keeps that many rows
// (docs/persistence.md, "What is saved").
func TestHistoryRowsSurviveRestartAndRelaunch(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "history")
	const script = "seq 1 300; echo printed; exec sleep 100"
	depth := map[string]int{}
	for _, n := range []string{"50", "70", "90"} {
		var p historyPane
		d.JSON(t, &p, "pane", "spawn", "--workspace", w.ID, "--history-rows", n, "--", "sh", "-c", script)
		depth[p.Pane.ID] = p.Pane.HistoryRows
	}
	var plain historyPane
	d.JSON(t, &plain, "pane", "spawn", "--workspace", w.ID, "--", "sh", "-c", script)
	depth[plain.Pane.ID] = 10000
	d.Stop(t)

	d2 := harness.Start(t, harness.Options{Dir: d.Dir})
	var list struct {
		Panes []struct {
			ID          string `json:"id"`
			HistoryRows int    `json:"history_rows"`
		} `json:"panes"`
	}
	d2.JSON(t, &list, "pane", "list")
	if len(list.Panes) != len(depth) {
		t.Fatalf("%d panes after the restart, want %d", len(list.Panes), len(depth))
	}
	for _, p := range list.Panes {
		if p.HistoryRows != depth[p.ID] {
			t.Errorf("pane %s lists history_rows %d after the restart, was spawned with %d", p.ID, p.HistoryRows, depth[p.ID])
		}
	}
	var first string
	for id, n := range depth {
		if n == 50 {
			first = id
		}
	}
	d2.CLI(t, "pane", "relaunch", "--pane", first)
	// The restored rows go above the new program's screen, which prints
	// 300 more lines: more than 50 rows of history in all.
	if n := kept(t, d2, first); n != 50 {
		t.Errorf("a pane spawned with 50 history rows keeps %d after a restart and a relaunch", n)
	}
	var again historyPane
	d2.JSON(t, &again, "pane", "get", "--pane", first)
	if again.Pane.HistoryRows != 50 {
		t.Errorf("relaunched, the pane says history_rows %d, want 50", again.Pane.HistoryRows)
	}
}

package tests

// Settings persist in the settings file across daemon restarts, the
// environment overrides the file, and config get says where each value
// came from (docs/persistence.md, "Settings").

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

type settingsReply struct {
	Config struct {
		Run struct {
			MaxActive   int `json:"max_active"`
			RetainCount int `json:"retain_count"`
		} `json:"run"`
		HistoryRows  int    `json:"history_rows"`
		SettingsFile string `json:"settings_file"`
		Origins      []struct {
			Name   string `json:"name"`
			Origin string `json:"origin"`
		} `json:"origins"`
	} `json:"config"`
}

func (r settingsReply) origin(name string) string {
	for _, o := range r.Config.Origins {
		if o.Name == name {
			return o.Origin
		}
	}
	return "(none)"
}

func TestSettingsSurviveRestartAndEnvironmentOverrides(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	file := filepath.Join(d.Home, ".config", "signaltty", "settings.conf")
	var cfg settingsReply
	d.JSON(t, &cfg, "config", "get")
	if cfg.Config.SettingsFile != file || len(cfg.Config.Origins) != 7 || cfg.origin("history_rows") != "default" {
		t.Fatalf("fresh daemon: settings_file %q, origins %+v; want %s and seven defaults", cfg.Config.SettingsFile, cfg.Config.Origins, file)
	}
	d.JSON(t, &cfg, "config", "set", "--history-rows", "5000", "--run-retain-count", "7")
	if cfg.Config.HistoryRows != 5000 || cfg.origin("history_rows") != "runtime" || cfg.origin("run.retain_count") != "runtime" ||
		cfg.origin("run.max_active") != "default" {
		t.Errorf("after config set: history_rows %d, origins %+v", cfg.Config.HistoryRows, cfg.Config.Origins)
	}
	saved, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(saved), "history_rows = 5000\n") || !strings.Contains(string(saved), "run.retain_count = 7\n") {
		t.Fatalf("settings file after config set: %v\n%s", err, saved)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("settings file mode: %v %v, want 0600", fi, err)
	}
	d.Fail(t, "invalid_params.max_active", exitInvalid, "config", "set", "--run-max-active", "0", "--history-rows", "10")
	if again, _ := os.ReadFile(file); string(again) != string(saved) {
		t.Errorf("a refused config set rewrote the file:\n%s", again)
	}
	d.Stop(t)

	d2 := harness.Start(t, harness.Options{Dir: d.Dir})
	d2.JSON(t, &cfg, "config", "get")
	if cfg.Config.HistoryRows != 5000 || cfg.Config.Run.RetainCount != 7 || cfg.origin("history_rows") != "file" ||
		cfg.origin("run.retain_count") != "file" || cfg.origin("run.max_active") != "default" || cfg.Config.Run.MaxActive != 64 {
		t.Errorf("after a restart: %+v", cfg.Config)
	}
	var p historyPane
	w := d2.CreateWorkspace(t, "settings")
	d2.JSON(t, &p, "pane", "spawn", "--workspace", w.ID, "--", "true")
	if p.Pane.HistoryRows != 5000 {
		t.Errorf("a pane spawned after the restart has history_rows %d, want the saved 5000", p.Pane.HistoryRows)
	}
	d2.Stop(t)

	d3 := harness.Start(t, harness.Options{Dir: d.Dir, Env: []string{"SIGNALTTY_HISTORY_ROWS=300"}})
	d3.JSON(t, &cfg, "config", "get")
	if cfg.Config.HistoryRows != 300 || cfg.origin("history_rows") != "environment" || cfg.Config.Run.RetainCount != 7 {
		t.Errorf("with SIGNALTTY_HISTORY_ROWS=300 and the file's 5000: %+v", cfg.Config)
	}
	text := d3.CLI(t, "config", "get").Stdout
	for _, line := range []string{"history_rows 300 (environment)\n", "run.retain_count 7 (file)\n", "run.max_active 64 (default)\n", "settings_file " + file + "\n"} {
		if !strings.Contains(text, line) {
			t.Errorf("config get lacks %q:\n%s", line, text)
		}
	}
}

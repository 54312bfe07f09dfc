package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/signaltty/signaltty/service"
)

// settingsFile is $XDG_CONFIG_HOME/signaltty/settings.conf, else
// ~/.config/signaltty/settings.conf (docs/persistence.md, "Settings").
func settingsFile() (string, error) {
	base := os.Getenv("XDG_CONFIG_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no settings file: neither XDG_CONFIG_HOME nor HOME is set")
		}
		base = filepath.Join(home, ".config")
	}
	return filepath.Join(base, "signaltty", "settings.conf"), nil
}

// loadSettings applies the settings file, then the environment's
// $SIGNALTTY_HISTORY_ROWS and $SIGNALTTY_SAVE_INTERVAL, which override it;
// what it ignored is logged.
func loadSettings(log *slog.Logger, svc *service.Service) {
	path, err := settingsFile()
	if err != nil {
		log.Warn("settings are not saved", "err", err)
	}
	env := map[string]int64{}
	if n := historyRows(log); n > 0 {
		env[service.SettingHistoryRows] = int64(n)
	}
	if d, ok := periodicSave(log); ok {
		env[service.SettingSaveInterval] = d.Milliseconds()
	}
	for _, p := range svc.Settings().Load(path, env) {
		log.Warn("settings file: "+p, "path", path)
	}
	log.Info("settings", "path", path)
}

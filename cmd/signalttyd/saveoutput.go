package main

import (
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/signaltty/signaltty/service"
)

// saveOutputInterval is $SIGNALTTY_SAVE_OUTPUT_INTERVAL_MS: how often panes
// whose rows changed are saved (docs/persistence.md); 0 turns it off; unset
// or invalid (logged) is the default, 30,000.
func saveOutputInterval(log *slog.Logger) time.Duration {
	s := os.Getenv("SIGNALTTY_SAVE_OUTPUT_INTERVAL_MS")
	if s == "" {
		return service.DefaultSaveOutputInterval
	}
	n, err := strconv.ParseInt(s, 10, 64)
	d := time.Duration(n) * time.Millisecond
	if err == nil {
		err = service.CheckSaveOutputInterval(d)
	}
	if err != nil {
		log.Warn("ignoring SIGNALTTY_SAVE_OUTPUT_INTERVAL_MS", "value", s, "err", err)
		return service.DefaultSaveOutputInterval
	}
	return d
}

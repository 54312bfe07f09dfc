package main

import (
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/signaltty/signaltty/service"
	"github.com/signaltty/signaltty/service/request"
)

// emulatorReleaseAfter is $SIGNALTTY_EMULATOR_RELEASE_MS: how long a pane's
// output stays idle before its emulator is released
// (docs/emulator-release.md); 0 turns release off; unset or invalid
// (logged) is the default, 30,000.
func emulatorReleaseAfter(log *slog.Logger) time.Duration {
	s := os.Getenv("SIGNALTTY_EMULATOR_RELEASE_MS")
	if s == "" {
		return service.DefaultEmulatorReleaseAfter
	}
	n, err := strconv.ParseInt(s, 10, 64)
	d := time.Duration(n) * time.Millisecond
	if err == nil {
		err = request.CheckEmulatorReleaseAfter(d)
	}
	if err != nil {
		log.Warn("ignoring SIGNALTTY_EMULATOR_RELEASE_MS", "value", s, "err", err)
		return service.DefaultEmulatorReleaseAfter
	}
	return d
}

package main

import (
	"log/slog"
	"os"
	"strconv"

	"github.com/signaltty/signaltty/service"
)

// historyRows is $SIGNALTTY_HISTORY_ROWS: the history depth of panes
// spawned without one (1..1000000); unset or invalid (logged) is the
// default, 10,000.
func historyRows(log *slog.Logger) int {
	s := os.Getenv("SIGNALTTY_HISTORY_ROWS")
	if s == "" {
		return 0
	}
	n, err := strconv.Atoi(s)
	if cerr := service.CheckHistoryRows(n); err == nil && cerr != nil { // a nil *Error is no error
		err = cerr
	}
	if err != nil {
		log.Warn("ignoring SIGNALTTY_HISTORY_ROWS", "value", s, "err", err)
		return 0
	}
	return n
}

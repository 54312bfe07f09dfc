package main

import (
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/signaltty/signaltty/service"
)

// serviceLimits reads the limits on panes, input, events, captures and
// rows (docs/limits.md) from the environment; unset or invalid (logged)
// keeps the default:
//
//	SIGNALTTY_MAX_PANES                panes running or starting (16384)
//	SIGNALTTY_INPUT_MAX_BYTES          bytes of one SendInput (1048576, also the most)
//	SIGNALTTY_INPUT_BYTES_PER_SECOND   input rate per pane (4194304)
//	SIGNALTTY_EVENT_QUEUE              events queued per subscriber (4096)
//	SIGNALTTY_CAPTURE_MAX_BYTES        line bytes of one capture (4194304, at most 6291456)
//	SIGNALTTY_HISTORY_TOTAL_BYTES      row store bytes of all panes (1073741824)
//
// and historyBytes, SIGNALTTY_HISTORY_BYTES: the row store bytes of one
// pane (16777216).
func serviceLimits(log *slog.Logger) service.Limits {
	return service.Limits{
		MaxPanes:            int(envNum(log, "SIGNALTTY_MAX_PANES")),
		InputMaxBytes:       int(envNum(log, "SIGNALTTY_INPUT_MAX_BYTES")),
		InputBytesPerSecond: int(envNum(log, "SIGNALTTY_INPUT_BYTES_PER_SECOND")),
		EventQueue:          int(envNum(log, "SIGNALTTY_EVENT_QUEUE")),
		CaptureMaxBytes:     int(envNum(log, "SIGNALTTY_CAPTURE_MAX_BYTES")),
		HistoryTotalBytes:   envNum(log, "SIGNALTTY_HISTORY_TOTAL_BYTES"),
	}
}

// titleInterval reads SIGNALTTY_TITLE_INTERVAL_MS, the least time between
// two pane.title events of a pane in milliseconds (0: every change;
// unset or invalid, logged: service.DefaultTitleInterval).
func titleInterval(log *slog.Logger) time.Duration {
	if os.Getenv("SIGNALTTY_TITLE_INTERVAL_MS") == "0" {
		return -1
	}
	return time.Duration(envNum(log, "SIGNALTTY_TITLE_INTERVAL_MS")) * time.Millisecond
}

func historyBytes(log *slog.Logger) int { return int(envNum(log, "SIGNALTTY_HISTORY_BYTES")) }

// envNum is a positive integer setting, or 0 (the default) when unset or
// invalid (logged).
func envNum(log *slog.Logger, name string) int64 {
	s := os.Getenv(name)
	if s == "" {
		return 0
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > 1<<40 {
		log.Warn("ignoring "+name, "value", s, "want", "a positive integer")
		return 0
	}
	return n
}

package main

import (
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/signaltty/signaltty/varlink"
)

// clientLimits reads the limits on what clients can make the daemon hold
// (docs/limits.md) from the environment; unset or invalid (logged) keeps
// the default:
//
//	SIGNALTTY_REQUEST_BUDGET_BYTES   total buffered request bytes (64 MiB)
//	SIGNALTTY_REQUEST_TIMEOUT_MS     time to complete a started message (10000)
//	SIGNALTTY_MAX_CONNECTIONS        client connections at once, the owner's and others' each (1024)
//	SIGNALTTY_MAX_CONNECTIONS_PER_PRINCIPAL  of one principal other than the owner (256)
//	SIGNALTTY_IDLE_CONNECTION_TIMEOUT_MS     silence allowed before a first message (30000)
func clientLimits(log *slog.Logger) varlink.Limits {
	num := func(name string) int64 {
		s := os.Getenv(name)
		if s == "" {
			return 0
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			log.Warn("ignoring "+name, "value", s, "want", "a positive integer")
			return 0
		}
		return n
	}
	return varlink.Limits{
		RequestBudget:              num("SIGNALTTY_REQUEST_BUDGET_BYTES"),
		IncompleteTimeout:          time.Duration(num("SIGNALTTY_REQUEST_TIMEOUT_MS")) * time.Millisecond,
		MaxConnections:             int(num("SIGNALTTY_MAX_CONNECTIONS")),
		MaxConnectionsPerPrincipal: int(num("SIGNALTTY_MAX_CONNECTIONS_PER_PRINCIPAL")),
		FirstRequestTimeout:        time.Duration(num("SIGNALTTY_IDLE_CONNECTION_TIMEOUT_MS")) * time.Millisecond,
	}
}

package main

import (
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/signaltty/signaltty/service"
	"github.com/signaltty/signaltty/varlink"
)

// idleExit returns a channel closed once a socket-activated daemon has been
// idle for $SIGNALTTY_EXIT_IDLE_AFTER_S seconds (exit_idle_after_s,
// docs/systemd.md, "Idle exit"): no varlink client connected, no pane with
// a process, no run under way. The daemon then stops as on SIGTERM (it
// saves first); the socket unit starts it again on the next connection.
// Unset, 0, or a daemon that bound its socket itself: never.
func idleExit(log *slog.Logger, activated bool, svc *service.Service, server *varlink.Server) <-chan struct{} {
	n, _ := strconv.Atoi(os.Getenv("SIGNALTTY_EXIT_IDLE_AFTER_S"))
	if !activated || n <= 0 {
		return nil
	}
	after := time.Duration(n) * time.Second
	ch := make(chan struct{})
	go func() {
		tick := time.NewTicker(min(after/4+time.Millisecond, time.Second))
		defer tick.Stop()
		since := time.Now()
		for range tick.C {
			st := svc.Status()
			if server.Connections() > 0 || st.LivePanes > 0 || st.RunsActive > 0 {
				since = time.Now()
				continue
			}
			if time.Since(since) >= after {
				log.Info("idle: exiting", "idle_for", time.Since(since).Round(time.Millisecond))
				close(ch)
				return
			}
		}
	}()
	return ch
}

package main

import (
	"log/slog"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"
	"github.com/signaltty/signaltty/service"
)

// startWatchdog sends WATCHDOG=1 while the service's state can be taken
// (docs/systemd.md, "Watchdog"): every third of WatchdogSec= it asks the
// service for its status, which takes the lock every state change holds;
// only when that returns is the watchdog fed. A state owner wedged on its
// lock (a deadlock, a call stuck while holding it) thus stops the pings,
// and systemd restarts the service (Restart=on-failure, which covers the watchdog). Without
// $WATCHDOG_USEC for this process it does nothing. stop ends it.
func startWatchdog(log *slog.Logger, svc *service.Service, stop <-chan struct{}) {
	interval, err := daemon.SdWatchdogEnabled(false)
	if err != nil || interval <= 0 {
		return
	}
	log.Info("watchdog", "interval", interval)
	go func() {
		tick := time.NewTicker(interval / 3)
		defer tick.Stop()
		probe := make(chan struct{}, 1)
		pending := false
		for {
			select {
			case <-stop:
				return
			case <-probe:
				pending = false
				daemon.SdNotify(false, daemon.SdNotifyWatchdog)
			case <-tick.C:
				if pending { // the last probe has not come back: no ping
					continue
				}
				pending = true
				go func() {
					svc.Status()
					probe <- struct{}{}
				}()
			}
		}
	}()
}

package main

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/signaltty/signaltty/logind"
	"github.com/signaltty/signaltty/service"
)

// logindSaveHook, set by test builds only (testhooks.go), runs before each
// shutdown save the logind monitor makes.
var logindSaveHook func()

// logindWatch runs the host-shutdown monitor (package logind) for the
// daemon: it saves through the service, and asks run to stop by closing
// stopping. With SIGNALTTY_LOGIND=0 there is no monitor and its status is
// "off".
type logindWatch struct {
	mon      *logind.Monitor
	stopping chan struct{} // closed when the host shuts down
	cancel   context.CancelFunc
	done     chan struct{}
	once     sync.Once
}

func newLogind(log *slog.Logger, svc *service.Service) *logindWatch {
	w := &logindWatch{stopping: make(chan struct{})}
	if os.Getenv("SIGNALTTY_LOGIND") == "0" {
		log.Info("logind shutdown monitor off (SIGNALTTY_LOGIND=0)")
		return w
	}
	var stop sync.Once
	w.mon = logind.New(logind.Config{
		Save: func() (time.Duration, error) {
			if logindSaveHook != nil {
				logindSaveHook()
			}
			res, err := svc.Persistence().SaveForShutdown("logind")
			return res.Duration, err
		},
		Stop:   func() { stop.Do(func() { close(w.stopping) }) },
		Thaw:   svc.Persistence().Thaw,
		Logger: log,
	})
	return w
}

// start runs the monitor in the background: it never delays the daemon.
func (w *logindWatch) start() {
	if w.mon == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel, w.done = cancel, make(chan struct{})
	go func() {
		defer close(w.done)
		w.mon.Run(ctx)
	}()
}

// close ends the monitor and waits until it has released its inhibitor
// (after a shutdown save under way). Safe to call more than once.
func (w *logindWatch) close() {
	w.once.Do(func() {
		if w.cancel != nil {
			w.cancel()
			<-w.done
		}
	})
}

// status is the monitor's state for Server.GetStatus.
func (w *logindWatch) status() logind.Status {
	if w.mon == nil {
		return logind.Status{State: logind.Off}
	}
	return w.mon.Status()
}

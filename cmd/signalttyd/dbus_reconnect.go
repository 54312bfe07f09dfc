package main

import (
	"log/slog"
	"sync"
	"time"

	"github.com/signaltty/signaltty/service"
	"github.com/signaltty/signaltty/varlink"
)

// Reconnecting to the session bus (docs/dbus.md): after a connection that
// was made ends while the daemon runs (the bus restarted), the daemon
// connects again and takes its name back, waiting busRetryMin after the
// loss and doubling the wait after each failed attempt up to busRetryMax.
// A daemon that found no session bus at start does not look for one later.
const (
	busRetryMin = time.Second
	busRetryMax = 60 * time.Second
)

// sessionBus is the daemon's presence on the session bus, kept across
// restarts of the bus.
type sessionBus struct {
	log              *slog.Logger
	svc              *service.Service
	version, address string
	state            *busState
	stop             chan struct{}
	done             chan struct{}
	mu               sync.Mutex
	cur              *busExport // nil while not connected
	closed           bool
}

// busState is what Server.GetStatus reports in session_bus: "connecting"
// until keepOnBus's first attempt ends.
type busState struct {
	mu sync.Mutex
	st varlink.SessionBusStatus
}

func newBusState() *busState {
	return &busState{st: varlink.SessionBusStatus{State: "connecting", Since: time.Now()}}
}

func (b *busState) set(state, reason string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.st = varlink.SessionBusStatus{State: state, Reason: reason, Since: time.Now()}
}

// status is the reporter given to varlink.WithSessionBusStatus.
func (b *busState) status() varlink.SessionBusStatus {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.st
}

// keepOnBus connects to the session bus (startBus) and keeps the daemon
// on it, telling state where it is; nil when there was no bus to connect
// to at start.
func keepOnBus(log *slog.Logger, svc *service.Service, version, address string, state *busState) *sessionBus {
	b, reason := startBus(log, svc, version, address)
	if b == nil {
		if reason == "SIGNALTTY_DBUS=0" {
			state.set("off", reason)
		} else {
			state.set("none", reason)
		}
		return nil
	}
	state.set("on", "")
	s := &sessionBus{log: log, svc: svc, version: version, address: address, state: state,
		stop: make(chan struct{}), done: make(chan struct{}), cur: b}
	go s.watch(b)
	return s
}

// watch waits for the connection of b to end, then reconnects with backoff.
func (s *sessionBus) watch(b *busExport) {
	defer close(s.done)
	for {
		select {
		case <-s.stop:
			return
		case <-b.conn.Context().Done():
		}
		s.mu.Lock()
		s.cur = nil
		s.mu.Unlock()
		b.closeSub() // ends its follow loop
		s.log.Warn("lost the session bus; reconnecting", "in", busRetryMin)
		s.state.set("reconnecting", "the connection to the session bus ended")
		wait := busRetryMin
		for b = nil; b == nil; {
			select {
			case <-s.stop:
				return
			case <-time.After(wait):
			}
			var reason string
			if b, reason = startBus(s.log, s.svc, s.version, s.address); b == nil {
				wait = min(wait*2, busRetryMax)
				s.log.Info("session bus: still not connected", "retry_in", wait)
				s.state.set("reconnecting", reason)
			}
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			b.close()
			return
		}
		s.cur = b
		s.mu.Unlock()
		s.state.set("on", "")
		s.log.Info("back on the session bus", "name", busName)
	}
}

// close leaves the bus and stops reconnecting.
func (s *sessionBus) close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.closed = true
	cur := s.cur
	s.cur = nil
	s.mu.Unlock()
	close(s.stop)
	<-s.done
	cur.close()
}

// closeSub ends the events b follows (and so its follow loop).
func (b *busExport) closeSub() {
	b.subMu.Lock()
	defer b.subMu.Unlock()
	b.sub.Close()
}

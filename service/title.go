package service

import (
	"time"

	"github.com/signaltty/signaltty/service/events"
)

// DefaultTitleInterval is the least time between two pane.title events of
// one pane (docs/events.md, "Observations"): a program that animates its
// title (a spinner, several frames a second) makes at most one event per
// interval, the latest title; the pane's title itself always is the last
// one set.
const DefaultTitleInterval = time.Second

// titleCoalescer holds a pane's pane.title publishing; s.mu guards it.
type titleCoalescer struct {
	sent    string    // the title of the last pane.title event
	at      time.Time // when it was published
	pending *time.Timer
}

// titleInterval is the interval in force (negative: none).
func (c *Config) titleInterval() time.Duration {
	if c.TitleInterval == 0 {
		return DefaultTitleInterval
	}
	return c.TitleInterval
}

// publish records title as sent now and returns its pane.title event.
func (tc *titleCoalescer) publish(pane, title string) events.PaneTitle {
	tc.sent, tc.at = title, time.Now()
	return events.PaneTitle{Pane: pane, Title: title}
}

// titleChangedLocked publishes p's new title now when the interval has
// passed since the last pane.title event, else once it has (the title then
// in force); s.mu is held.
func (s *Service) titleChangedLocked(p *pane) {
	tc := &p.titles
	if tc.pending != nil {
		return // the pending event will carry the latest title
	}
	wait := s.cfg.titleInterval() - time.Since(tc.at)
	if wait <= 0 {
		s.emitLocked(tc.publish(p.id, p.title))
		return
	}
	tc.pending = time.AfterFunc(wait, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		tc.pending = nil
		if !s.stopped && s.panes[p.id] == p && p.title != tc.sent {
			s.emitLocked(tc.publish(p.id, p.title))
		}
	})
}

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
func (s *Service) titleInterval() time.Duration {
	if s.cfg.TitleInterval == 0 {
		return DefaultTitleInterval
	}
	return s.cfg.TitleInterval
}

// titleChanged publishes p's new title now when the interval has passed
// since the last pane.title event, else once it has (the title then in
// force); s.mu is held.
func (s *Service) titleChanged(p *pane) {
	tc := &p.titles
	if tc.pending != nil {
		return // the pending event will carry the latest title
	}
	wait := s.titleInterval() - time.Since(tc.at)
	if wait <= 0 {
		s.publishTitle(p)
		return
	}
	tc.pending = time.AfterFunc(wait, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		tc.pending = nil
		if !s.stopped && s.panes[p.id] == p && p.title != tc.sent {
			s.publishTitle(p)
		}
	})
}

// publishTitle emits pane.title with p's title; s.mu is held.
func (s *Service) publishTitle(p *pane) {
	p.titles.sent, p.titles.at = p.title, time.Now()
	s.emit(events.PaneTitle{Pane: p.id, Title: p.title})
}

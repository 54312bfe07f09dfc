package service

import (
	"strings"
	"time"

	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/events"
)

// SubscriberQueue is how many undelivered events a subscriber may have before
// it is dropped as lagged (it is told, never silently skipped).
const SubscriberQueue = 4096

// Event is one published event (docs/events.md). Data never holds argv
// beyond argv0, the environment, input or output text.
type Event struct {
	Source   string
	Seq      int64
	Type     events.EventType
	Resource string
	Time     time.Time
	Data     events.EventData // one of the data types of service/events
}

// Filter selects events: Types are dotted prefixes ("pane" matches
// "pane.exited"), Resources are ids; empty lists match all.
type Filter struct {
	Types     []string
	Resources []string
}

func (f Filter) match(e *Event) bool {
	ok := len(f.Types) == 0
	for _, t := range f.Types {
		if string(e.Type) == t || strings.HasPrefix(string(e.Type), t+".") {
			ok = true
			break
		}
	}
	if !ok {
		return false
	}
	if len(f.Resources) == 0 {
		return true
	}
	for _, r := range f.Resources {
		if e.Resource == r {
			return true
		}
	}
	return false
}

// Subscription receives events published after it was made.
type Subscription struct {
	// Seq is the subscription's starting point: Events delivers the
	// matching events numbered above it (and Snapshot is the state at it).
	Seq int64
	// Snapshot is the state at Seq when asked for (see snapshotLocked).
	Snapshot map[string]any
	// Events delivers matching events in seq order. It is closed when the
	// subscription ends: by Close, by daemon shutdown, or because the
	// subscriber fell SubscriberQueue events behind (Lagged then reports true).
	Events <-chan Event

	// Replay holds, for a subscription from a cursor, the journaled events
	// after the cursor through Seq, in seq order; Events continues after Seq.
	Replay []Event

	ch     chan Event
	filter Filter
	lagged bool
	ended  *Error // why the service ended it (nil: Close or shutdown)
	closed bool
	svc    *Service
}

// Lagged reports whether the subscription ended because it fell behind.
func (s *Subscription) Lagged() bool {
	s.svc.mu.Lock()
	defer s.svc.mu.Unlock()
	return s.lagged
}

// Ended reports why the service ended the subscription: unavailable.lagged
// (it fell SubscriberQueue events behind), unavailable.journal (no event
// number could be reserved, so none are published; a journal that cannot
// be written does not end it: docs/events.md, "A full disk"), or nil
// (Close, shutdown).
func (s *Subscription) Ended() *Error {
	s.svc.mu.Lock()
	defer s.svc.mu.Unlock()
	return s.ended
}

// Close ends the subscription; Events is closed.
func (s *Subscription) Close() {
	s.svc.mu.Lock()
	defer s.svc.mu.Unlock()
	s.svc.dropSubscriber(s)
}

// Subscribe starts a subscription of the events after the last number
// issued, with a snapshot of the state at that point when withSnapshot.
// While no event number can be reserved the subscription is ended at once
// (Ended: unavailable.journal).
func (s *Service) Subscribe(f Filter, withSnapshot bool) *Subscription {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.subscribeLocked(f, s.seq, withSnapshot)
}

// subscribeLocked registers a subscription of the events after fence;
// s.mu is held.
func (s *Service) subscribeLocked(f Filter, fence int64, withSnapshot bool) *Subscription {
	ch := make(chan Event, s.cfg.Limits.EventQueue)
	sub := &Subscription{Seq: fence, Events: ch, ch: ch, filter: f, svc: s}
	if withSnapshot {
		sub.Snapshot = s.snapshotLocked()
	}
	if s.stopped || s.pub.broken != nil {
		sub.closed, sub.ended = true, s.pub.broken
		close(ch)
		return sub
	}
	s.subs[sub] = struct{}{}
	return sub
}

// dropSubscriber ends sub; s.mu is held.
func (s *Service) dropSubscriber(sub *Subscription) {
	if sub.closed {
		return
	}
	sub.closed = true
	delete(s.subs, sub)
	close(sub.ch)
}

// emit publishes an event; s.mu is held, so the events of one critical
// section reach every subscriber together and in order. A structural event
// schedules a save.
func (s *Service) emit(data events.EventData) {
	typ := data.EventType()
	spec, ok := events.Declared(typ)
	if !ok {
		panic("service: undeclared event type " + string(typ))
	}
	if spec.Structural {
		s.markDirty()
	}
	s.touchResource(data.EventResource()) // records.go
	if !s.numberAvailable() {
		return // no number may be issued: the event is not published (publish.go)
	}
	s.seq++
	e := Event{Source: s.source, Seq: s.seq, Type: typ, Resource: data.EventResource(), Time: time.Now(), Data: data}
	if s.journal == nil {
		if s.pub.openErr != "" && spec.Journaled { // a lost range if the journal opens later (AdoptJournal)
			if s.pub.unjournaled.First == 0 {
				s.pub.unjournaled.First = e.Seq
			}
			s.pub.unjournaled.Last = e.Seq
		}
		s.deliver(&e)
		return
	}
	s.pub.pending = append(s.pub.pending, e) // published once journaled (publish.go)
	s.pub.kickPublisher()
}

// deliver hands a published event to the subscribers it matches; s.mu is
// held. A subscriber whose queue is full is dropped as lagged.
func (s *Service) deliver(e *Event) {
	for sub := range s.subs {
		if e.Seq <= sub.Seq || !sub.filter.match(e) {
			continue
		}
		select {
		case sub.ch <- *e:
		default:
			sub.lagged = true
			sub.ended = newError(errcode.UnavailableLagged, map[string]any{"queue": cap(sub.ch)},
				"the subscriber fell %d events behind (SIGNALTTY_EVENT_QUEUE)", cap(sub.ch))
			s.dropSubscriber(sub)
		}
	}
}

// snapshotLocked lists the entities events are about; s.mu is held.
func (s *Service) snapshotLocked() map[string]any {
	ws, tabs, panes := []any{}, []any{}, []any{}
	for _, wid := range s.wsOrder {
		ws = append(ws, map[string]any{"workspace": wid})
		for _, tid := range s.workspaces[wid].tabs {
			tabs = append(tabs, map[string]any{"tab": tid, "workspace": wid})
			for _, p := range s.tabPanes(s.tabs[tid]) {
				panes = append(panes, map[string]any{"pane": p.id, "tab": tid, "state": p.publicState(), "restore_state": p.restoreState()})
			}
		}
	}
	return map[string]any{"workspaces": ws, "tabs": tabs, "panes": panes, "runs": s.runs.Entities()}
}

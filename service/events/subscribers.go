package events

import (
	"sync"

	"github.com/signaltty/signaltty/service/errcode"
)

// Subscription receives events published after it was made.
type Subscription struct {
	// Seq is the subscription's starting point: Events delivers the
	// matching events numbered above it (and Snapshot is the state at it).
	Seq int64
	// Snapshot is the state at Seq when asked for.
	Snapshot map[string]any
	// Events delivers matching events in seq order. It is closed when the
	// subscription ends: by Close, by daemon shutdown, or because the
	// subscriber fell its queue's length behind (Lagged then reports true).
	Events <-chan Event

	// Replay holds, for a subscription from a cursor, the journaled events
	// after the cursor through Seq, in seq order; Events continues after Seq.
	Replay []Event

	ch     chan Event
	filter Filter
	lagged bool
	ended  *errcode.Error // why it was ended (nil: Close or shutdown)
	closed bool
	set    *Subscribers
}

// Lagged reports whether the subscription ended because it fell behind.
func (s *Subscription) Lagged() bool {
	s.set.mu.Lock()
	defer s.set.mu.Unlock()
	return s.lagged
}

// Ended reports why the subscription was ended: unavailable.lagged (it
// fell its queue's length behind), unavailable.journal (no event number
// could be reserved, so none are published; a journal that cannot be
// written does not end it: docs/events.md, "A full disk"), or nil (Close,
// shutdown).
func (s *Subscription) Ended() *errcode.Error {
	s.set.mu.Lock()
	defer s.set.mu.Unlock()
	return s.ended
}

// Close ends the subscription; Events is closed.
func (s *Subscription) Close() {
	s.set.mu.Lock()
	defer s.set.mu.Unlock()
	s.set.drop(s)
}

// Subscribers is the set of live subscriptions and their fan-out. Every
// method but NewSubscribers runs with mu (the lock given to NewSubscribers)
// held; a Subscription's own methods take mu themselves.
type Subscribers struct {
	mu   sync.Locker
	subs map[*Subscription]struct{}
}

// NewSubscribers returns an empty set guarded by mu.
func NewSubscribers(mu sync.Locker) *Subscribers {
	return &Subscribers{mu: mu, subs: map[*Subscription]struct{}{}}
}

// Len is how many subscriptions are live.
func (s *Subscribers) Len() int { return len(s.subs) }

// Add registers a subscription of the events matching f numbered above
// fence, with a queue of queue events. When ended is true the
// subscription is returned already ended with why (nil: as by shutdown)
// and is never registered.
func (s *Subscribers) Add(f Filter, fence int64, queue int, ended bool, why *errcode.Error) *Subscription {
	ch := make(chan Event, queue)
	sub := &Subscription{Seq: fence, Events: ch, ch: ch, filter: f, set: s}
	if ended {
		sub.closed, sub.ended = true, why
		close(ch)
		return sub
	}
	s.subs[sub] = struct{}{}
	return sub
}

// Deliver hands a published event to the subscriptions it matches, those
// whose fence is below it. A subscription whose queue is full is ended
// unavailable.lagged (data.queue: its length).
func (s *Subscribers) Deliver(e *Event) {
	for sub := range s.subs {
		if e.Seq <= sub.Seq || !sub.filter.Match(e) {
			continue
		}
		select {
		case sub.ch <- *e:
		default:
			sub.lagged = true
			sub.ended = errcode.New(errcode.UnavailableLagged, map[string]any{"queue": cap(sub.ch)},
				"the subscriber fell %d events behind (SIGNALTTY_EVENT_QUEUE)", cap(sub.ch))
			s.drop(sub)
		}
	}
}

// EndAll ends every subscription with why (nil: shutdown).
func (s *Subscribers) EndAll(why *errcode.Error) {
	for sub := range s.subs {
		sub.ended = why
		s.drop(sub)
	}
}

// drop ends sub; mu is held.
func (s *Subscribers) drop(sub *Subscription) {
	if sub.closed {
		return
	}
	sub.closed = true
	delete(s.subs, sub)
	close(sub.ch)
}

package service

import "github.com/signaltty/signaltty/service/events"

// SubscriberQueue is how many undelivered events a subscriber may have before
// it is dropped as lagged (it is told, never silently skipped).
const SubscriberQueue = 4096

// Event is one published event (docs/events.md).
type Event = events.Event

// Filter selects events (events.Filter).
type Filter = events.Filter

// Subscription receives events published after it was made
// (events.Subscription); its Snapshot is the state at its Seq when asked
// for (see snapshotLocked).
type Subscription = events.Subscription

// Subscribe starts a subscription of the events after the last number
// issued, with a snapshot of the state at that point when withSnapshot.
// While no event number can be reserved the subscription is ended at once
// (Ended: unavailable.journal).
func (s *Service) Subscribe(f Filter, withSnapshot bool) *Subscription {
	s.mu.Lock()
	defer s.mu.Unlock()
	sub := s.pub.subscribeLocked(f, s.pub.seq)
	if withSnapshot {
		sub.Snapshot = s.snapshotLocked()
	}
	return sub
}

// emitLocked publishes an event; s.mu is held, so the events of one critical
// section reach every subscriber together and in order. A structural event
// schedules a save.
func (s *Service) emitLocked(data events.EventData) {
	typ := data.EventType()
	spec, ok := events.Declared(typ)
	if !ok {
		panic("service: undeclared event type " + string(typ))
	}
	if spec.Structural {
		s.persist.MarkDirtyLocked()
	}
	s.records.touchResource(s.panes, data.EventResource()) // records.go
	s.pub.publishLocked(data, spec.Journaled)              // publish.go
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

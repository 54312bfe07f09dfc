// Package events owns the events signaltty publishes (docs/events.md):
// each type's name, its data and its declaration (structural, journaled),
// the published Event, the Filter a subscriber selects events with, and
// the set of subscriptions an event is delivered to (Subscribers), which
// ends a subscriber that falls its queue's length behind.
package events

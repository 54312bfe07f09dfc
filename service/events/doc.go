// Package events owns the types of the events signaltty publishes: each
// type's name, its data, and its declaration (structural, journaled)
// (docs/events.md).
package events

package service

import "testing"

// BenchmarkRunTrueJournal is BenchmarkRunTrue with the event journal on,
// as the daemon runs with a state directory: every run's events are
// written and synced (docs/events.md, "Journal") while the next run starts.
func BenchmarkRunTrueJournal(b *testing.B) { benchRunTrue(b, benchJournaled(b, true)) }

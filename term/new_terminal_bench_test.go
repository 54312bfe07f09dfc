package term

import "testing"

// BenchmarkNewTerminal: a pane's terminal as a start makes it, before any
// output (the emulator comes later, from the pool).
func BenchmarkNewTerminal(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		NewTerminal(Config{Cols: 80, Rows: 24}).Close()
	}
}

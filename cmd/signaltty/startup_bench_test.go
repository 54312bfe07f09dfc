package main

import (
	"io"
	"testing"
)

// BenchmarkCLIStartupNoDaemon: one CLI invocation in-process up to the dial,
// which fails at once (no daemon at the address): building the commands,
// parsing the flags, making the parameters.
func BenchmarkCLIStartupNoDaemon(b *testing.B) {
	b.Setenv("SIGNALTTY_NO_AUTOSTART", "1")
	for b.Loop() {
		if code := executeTo([]string{"--address", "unix:/nonexistent/sock", "run", "get", "--run", "r0"}, io.Discard, io.Discard); code != 6 {
			b.Fatalf("exit %d", code)
		}
	}
}

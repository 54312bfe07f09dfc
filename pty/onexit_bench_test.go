package pty

import (
	"testing"

	"github.com/signaltty/signaltty/term"
)

// BenchmarkStartTrueOnExit measures Start of `true` until OnExit is
// called, where the daemon records the exit and answers Run.Wait; the
// rest (until Done, then Close) is untimed. Compare BenchmarkStartTrue
// (until Done).
func BenchmarkStartTrueOnExit(b *testing.B) {
	for b.Loop() {
		exited := make(chan struct{})
		p, err := startTerm(Config{Argv: []string{"true"}, Env: testEnv, Dir: "/", Cols: 80, Rows: 24,
			OnExit: func(ExitStatus) { close(exited) }}, term.Config{})
		if err != nil {
			b.Fatal(err)
		}
		<-exited
		b.StopTimer()
		<-p.Done()
		p.Close()
		b.StartTimer()
	}
}

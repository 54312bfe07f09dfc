package pty

import "testing"

// BenchmarkStartTrueOnExit measures Start of `true` until OnExit is
// called, where the daemon records the exit and answers Run.Wait; the
// rest (until Done, then Close) is untimed. Compare BenchmarkStartTrue
// (until Done).
func BenchmarkStartTrueOnExit(b *testing.B) {
	for b.Loop() {
		exited := make(chan struct{})
		p, err := Start(Config{Argv: []string{"true"}, Env: testEnv, Dir: "/", Cols: 80, Rows: 24,
			OnExit: func(ExitStatus) { close(exited) }})
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

package service

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkRunTrueJournal is BenchmarkRunTrue with the event journal on,
// as the daemon runs with a state directory: every run's events are
// written and synced (docs/events.md, "Journal") while the next run starts.
func BenchmarkRunTrueJournal(b *testing.B) {
	s := benchJournaled(b, true)
	w, err := s.CreateWorkspace("bench", "")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	i := 0
	for b.Loop() {
		st, err := s.StartRun(ctx, RunRequest{Key: fmt.Sprint("k", i), Workspace: w.ID, Argv: []string{"true"}})
		if err != nil {
			b.Fatal(err)
		}
		rec, err := s.WaitRun(ctx, st.Run, -1, true)
		if err != nil || rec.Status == nil || *rec.Status != 0 {
			b.Fatal(rec, err)
		}
		if err := s.RemovePane(ctx, st.Pane, true); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

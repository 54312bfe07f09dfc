package service

import (
	"context"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/signaltty/signaltty/journal"
)

// Benchmarks of durable publication (docs/events.md, "Journal"). Each
// change is a CreateWorkspace (one journaled event); a change counts once a
// subscriber received its event, so every figure includes the journal's
// write and fdatasync.

func benchJournaled(b *testing.B, on bool) *Service {
	b.Helper()
	s := New(Config{Version: "bench", Address: "unix:/nonexistent", Environ: os.Environ(), Logger: quiet})
	if on {
		j, err := journal.Open(b.TempDir(), journal.Options{})
		if err != nil {
			b.Fatal(err)
		}
		s.Publisher().StartJournal(j)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return s
}

// BenchmarkDurableEvents: changes (a RenameWorkspace each) whose events
// are published durably: each caller waits until a subscriber received its
// event before its next change. One caller gives one fdatasync per change;
// 32 callers let the events that queue during one sync go out with the
// next (group commit). Reports events/s.
func BenchmarkDurableEvents(b *testing.B) {
	for _, callers := range []int{1, 32} {
		b.Run("callers="+strconv.Itoa(callers), func(b *testing.B) {
			s := benchJournaled(b, true)
			mine := map[string]chan struct{}{}
			var ws []string
			for c := 0; c < callers; c++ {
				w, _ := s.CreateWorkspace("w"+strconv.Itoa(c), "")
				ws = append(ws, w.ID)
				mine[w.ID] = make(chan struct{}, 1)
			}
			sub := s.Subscribe(Filter{Types: []string{"workspace.updated"}}, false)
			go func() {
				for e := range sub.Events {
					mine[e.Resource] <- struct{}{}
				}
			}()
			per := (b.N + callers - 1) / callers
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			for c := 0; c < callers; c++ {
				wg.Add(1)
				go func(c int) {
					defer wg.Done()
					for i := 0; i < per; i++ {
						s.RenameWorkspace(ws[c], "n"+strconv.Itoa(i))
						<-mine[ws[c]]
					}
				}(c)
			}
			wg.Wait()
			if err := sub.Ended(); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(per*callers)/time.Since(start).Seconds(), "events/s")
		})
	}
}

// BenchmarkSpawnPaneJournal: SpawnPane of `sleep` until its pane.created
// event was received, with the journal off and on.
func BenchmarkSpawnPaneJournal(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "journal=off"
		if on {
			name = "journal=on"
		}
		b.Run(name, func(b *testing.B) {
			s := benchJournaled(b, on)
			w, _ := s.CreateWorkspace("bench", "")
			sub := s.Subscribe(Filter{Types: []string{"pane.created"}}, false)
			for b.Loop() {
				p, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sleep", "1000"}})
				if err != nil {
					b.Fatal(err)
				}
				if e := <-sub.Events; e.Resource != p.ID {
					b.Fatalf("event of %s", e.Resource)
				}
				b.StopTimer()
				s.RemovePane(context.Background(), p.ID, true)
				b.StartTimer()
			}
		})
	}
}

package service

import (
	"context"
	"errors"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/signaltty/signaltty/journal"
)

// journaled returns a service publishing through a journal in dir.
func journaled(t *testing.T, dir string, opt journal.Options) *Service {
	t.Helper()
	j, err := journal.Open(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	s := New(Config{Version: "test", Address: "unix:/nonexistent", Environ: os.Environ(), Logger: quiet})
	s.Publisher().StartJournal(j)
	return s
}

func shutdown(s *Service) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.Shutdown(ctx)
}

// collect reads a subscription's replay and live events until one with
// seq ≥ until arrived.
func collect(t *testing.T, sub *Subscription, until int64) []Event {
	t.Helper()
	got := append([]Event{}, sub.Replay...)
	for len(got) == 0 || got[len(got)-1].Seq < until {
		got = append(got, next(t, sub))
	}
	return got
}

func TestReplayFromCursorThenLiveExactlyOnce(t *testing.T) {
	s := journaled(t, t.TempDir(), journal.Options{})
	defer shutdown(s)
	all := s.Subscribe(Filter{}, false) // every event, live from 0
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // events keep coming while subscriptions start
		defer wg.Done()
		for i := 0; i < 300; i++ {
			w, _ := s.CreateWorkspace("w", "")
			s.RemoveWorkspace(context.Background(), w.ID, false)
		}
	}()
	var subs []*Subscription
	var cursors []int64
	for i := 0; i < 20; i++ {
		time.Sleep(time.Millisecond)
		c := s.Status().Seq / 2
		sub, err := s.Publisher().SubscribeAfter(Filter{}, c)
		if err != nil {
			t.Fatal(err)
		}
		subs, cursors = append(subs, sub), append(cursors, c)
	}
	wg.Wait()
	last := s.Status().Seq
	want := collect(t, all, last)
	for i, sub := range subs {
		got := collect(t, sub, last)
		var exp []int64
		for _, e := range want {
			if e.Seq > cursors[i] {
				exp = append(exp, e.Seq)
			}
		}
		if len(got) != len(exp) {
			t.Fatalf("cursor %d: %d events, want %d", cursors[i], len(got), len(exp))
		}
		for k, e := range got {
			if e.Seq != exp[k] {
				t.Fatalf("cursor %d: event %d has seq %d, want %d", cursors[i], k, e.Seq, exp[k])
			}
		}
	}
}

func TestNumbersContinueAcrossRestartsAndReplayCrossesThem(t *testing.T) {
	dir := t.TempDir()
	s := journaled(t, dir, journal.Options{Lease: 16})
	for i := 0; i < 5; i++ {
		s.CreateWorkspace("a", "")
	}
	first := s.Status().Seq
	shutdown(s)
	s2 := journaled(t, dir, journal.Options{Lease: 16})
	defer shutdown(s2)
	if s2.Status().Seq < first {
		t.Fatalf("after a restart numbering starts at %d, below %d", s2.Status().Seq, first)
	}
	s2.CreateWorkspace("b", "")
	sub, err := s2.Publisher().SubscribeAfter(Filter{}, 2) // a cursor from the previous instance
	if err != nil {
		t.Fatal(err)
	}
	got := collect(t, sub, s2.Status().Seq) // replayed, then live
	if len(got) != 4 || got[0].Seq != 3 || got[2].Seq != first || got[3].Seq <= first || got[0].Source == got[3].Source {
		t.Fatalf("events after seq 2 across the restart: %+v", got)
	}
	if _, err := s2.Publisher().SubscribeAfter(Filter{}, s2.Status().Seq+1); code(err) != "conflict.cursor_ahead" {
		t.Fatalf("cursor ahead: %v", err)
	}
}

func TestRotatedHistoryIsLostClearly(t *testing.T) {
	s := journaled(t, t.TempDir(), journal.Options{SegmentBytes: 400, Segments: 1})
	defer shutdown(s)
	for i := 0; i < 40; i++ { // one batch each: several segments
		s.CreateWorkspace("w", "")
		waitFor(t, "publication", func() bool { st := s.Publisher().JournalStatus(); return st.Published == st.Seq })
	}
	_, err := s.Publisher().SubscribeAfter(Filter{}, 0)
	var se *Error
	if code(err) != "conflict.history_lost" || !errors.As(err, &se) || se.Data["oldest"].(int64) < 2 {
		t.Fatalf("cursor 0 after rotation: %v", err)
	}
	oldest := se.Data["oldest"].(int64)
	sub, err := s.Publisher().SubscribeAfter(Filter{}, oldest-1)
	if err != nil || len(sub.Replay) == 0 || sub.Replay[0].Seq != oldest {
		t.Fatalf("from the oldest kept: %v %+v", err, sub)
	}
}

func TestLaggingSubscriberEndsAndResumes(t *testing.T) {
	s := journaled(t, t.TempDir(), journal.Options{})
	defer shutdown(s)
	sub := s.Subscribe(Filter{}, false)
	for i := 0; i < SubscriberQueue+10; i++ {
		s.CreateWorkspace("w"+strconv.Itoa(i), "")
	}
	waitFor(t, "the lagging subscriber to be ended", func() bool { return sub.Ended() != nil })
	if sub.Ended().Code != "unavailable.lagged" {
		t.Fatalf("ended with %v", sub.Ended())
	}
	var last int64
	for e := range sub.Events { // what it was given before it was ended
		last = e.Seq
	}
	again, err := s.Publisher().SubscribeAfter(Filter{}, last)
	if err != nil {
		t.Fatal(err)
	}
	end := s.Status().Seq
	if got := collect(t, again, end); got[0].Seq != last+1 || got[len(got)-1].Seq != end {
		t.Fatalf("resumed from %d: %d..%d, want %d..%d", last, got[0].Seq, got[len(got)-1].Seq, last+1, end)
	}
}

func TestJournalOpenedLateRecordsWhatWasPublishedWithoutIt(t *testing.T) {
	s := New(Config{Version: "test", Address: "unix:/nonexistent", Environ: os.Environ(), Logger: quiet})
	defer shutdown(s)
	s.Publisher().JournalUnavailable(errors.New("no space left on device"))
	live := s.Subscribe(Filter{}, false)
	a, _ := s.CreateWorkspace("a", "")
	b, _ := s.CreateWorkspace("b", "")
	first, last := next(t, live), next(t, live)
	if first.Resource != a.ID || last.Resource != b.ID {
		t.Fatalf("live events %+v %+v", first, last)
	}
	j, err := journal.Open(t.TempDir(), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Publisher().AdoptJournal(j) {
		t.Fatal("the journal was not adopted")
	}
	_, err = s.Publisher().SubscribeAfter(Filter{}, 0)
	var e *Error
	if !errors.As(err, &e) || e.Code != "conflict.history_lost" || e.Data["first"] != first.Seq || e.Data["last"] != last.Seq {
		t.Fatalf("a resume from 0: %v", err)
	}
	c, _ := s.CreateWorkspace("c", "")
	ev := next(t, live)
	if ev.Resource != c.ID || ev.Seq <= last.Seq {
		t.Fatalf("after the journal opened: %+v", ev)
	}
	sub, err := s.Publisher().SubscribeAfter(Filter{}, last.Seq)
	if err != nil || len(sub.Replay) != 1 || sub.Replay[0].Seq != ev.Seq {
		t.Fatalf("a resume after the lost range: %v %+v", err, sub)
	}
	if st := s.Publisher().JournalStatus(); !st.Enabled || st.Error != "" || len(st.Outages) != 1 || st.Outages[0].RecoveredAt.IsZero() {
		t.Fatalf("status %+v", st)
	}
}

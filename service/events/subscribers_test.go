package events

import (
	"sync"
	"testing"

	"github.com/signaltty/signaltty/service/errcode"
)

func TestSubscribersDeliverAboveTheFenceAndEndTheLagged(t *testing.T) {
	var mu sync.Mutex
	set := NewSubscribers(&mu)
	mu.Lock()
	all := set.Add(Filter{}, 1, 1, false, nil)
	panes := set.Add(Filter{Types: []string{"pane"}}, 0, 4, false, nil)
	set.Deliver(&Event{Seq: 1, Type: TypePaneExited})
	set.Deliver(&Event{Seq: 2, Type: TypeTabCreated})
	set.Deliver(&Event{Seq: 3, Type: TypePaneExited}) // all's queue of 1 is full
	n := set.Len()
	mu.Unlock()
	if e := <-all.Events; e.Seq != 2 {
		t.Fatalf("all got seq %d first, want 2 (above its fence)", e.Seq)
	}
	if _, open := <-all.Events; open || !all.Lagged() || all.Ended().Code != errcode.UnavailableLagged {
		t.Fatal("a subscriber with a full queue is ended lagged")
	}
	if n != 1 {
		t.Fatalf("%d subscriptions left, want 1", n)
	}
	if e := <-panes.Events; e.Seq != 1 {
		t.Fatalf("panes got %d", e.Seq)
	}
	if e := <-panes.Events; e.Seq != 3 {
		t.Fatalf("panes got %d, want 3 (the tab event filtered out)", e.Seq)
	}
	why := errcode.New(errcode.UnavailableJournal, nil, "broken")
	mu.Lock()
	set.EndAll(why)
	ended := set.Add(Filter{}, 3, 1, true, why)
	mu.Unlock()
	if panes.Ended() != why || ended.Ended() != why || set.Len() != 0 {
		t.Fatal("EndAll and an ended Add carry why")
	}
	if _, open := <-ended.Events; open {
		t.Fatal("an ended subscription's Events is closed")
	}
	panes.Close() // again: harmless
}

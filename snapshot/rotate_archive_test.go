package snapshot

import (
	"testing"
	"time"
)

func TestArchiveKeepsACopyWhateverTheSpacing(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	s := Open(t.TempDir(), WithClock(func() time.Time { return now }))
	if p, err := s.Archive(); p != "" || err != nil {
		t.Fatalf("archive without a snapshot: %q %v", p, err)
	}
	snap := &Snapshot{Workspaces: []Workspace{{ID: "ws_1", Name: "w", Handle: "w", Tabs: []string{}}}}
	if _, err := s.Save(snap, nil); err != nil { // the first save is kept by rotation
		t.Fatal(err)
	}
	now = now.Add(time.Minute) // well inside the 15-minute spacing
	p, err := s.Archive()
	if err != nil || p == "" {
		t.Fatalf("archive: %q %v", p, err)
	}
	list, err := s.List()
	if err != nil || len(list) != 2 {
		t.Fatalf("kept snapshots: %+v %v", list, err)
	}
}

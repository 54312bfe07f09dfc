package snapshot

import (
	"path/filepath"
	"strconv"
	"strings"
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

// Copies made within one second get their own names, and only the newest
// KeepTailCopies keep tails: hard links to history/, whose later rewrites
// leave them as they were.
func TestArchiveKeepsTailsOfTheNewestCopies(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	s := Open(dir, WithClock(func() time.Time { return now }))
	s.sync = noSync
	snap := &Snapshot{Workspaces: []Workspace{{ID: "ws_1", Name: "w", Handle: "w", Tabs: []string{"t1"}}},
		Tabs:  []Tab{{ID: "t1", Workspace: "ws_1", Layout: &Layout{Kind: "pane", Pane: "p1"}, ActivePane: "p1"}},
		Panes: []Pane{{ID: "p1", Workspace: "ws_1", Tab: "t1", State: "exited", Cols: 80, Rows: 24}}}
	var names []string
	for i := 0; i < KeepTailCopies+3; i++ {
		if _, err := s.Save(snap, map[string][]string{"p1": {"row", strconv.Itoa(i)}}); err != nil {
			t.Fatal(err)
		}
		p, err := s.Archive() // all within the same second
		if err != nil || p == "" {
			t.Fatalf("archive %d: %q %v", i, p, err)
		}
		names = append(names, filepath.Base(p))
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] || !rotatedName().MatchString(n) {
			t.Fatalf("copies in one second: %v", names)
		}
		seen[n] = true
	}
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	withTails := 0
	for _, e := range list {
		if e.TailsKept {
			withTails++
		}
	}
	if list[0].Name != names[len(names)-1] || withTails != KeepTailCopies {
		t.Fatalf("%d copies, newest %s, %d with tails; want newest %s, %d with tails", len(list), list[0].Name, withTails, names[len(names)-1], KeepTailCopies)
	}
	for i, name := range names {
		c, err := s.ReadCopy(name)
		if err != nil {
			t.Fatal(err)
		}
		kept := i >= len(names)-KeepTailCopies
		if c.TailsKept != kept {
			t.Errorf("copy %d %s: tails kept %v, want %v", i, name, c.TailsKept, kept)
		}
		if kept && strings.Join(c.Tails["p1"], "|") != "row|"+strconv.Itoa(i) {
			t.Errorf("copy %d %s: tail %q, want the rows saved before it", i, name, c.Tails["p1"])
		}
	}
}

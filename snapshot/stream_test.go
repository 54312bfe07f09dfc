package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// SaveFunc asks for a pane's rows only once the tails of all but the last
// TailWriters panes it asked for are on disk: a save never holds the rows
// of more than TailWriters panes.
func TestSaveFuncReadsTailsAsItWritesThem(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	snap := &Snapshot{Workspaces: []Workspace{{ID: "w", Tabs: []string{"t"}}}, Tabs: []Tab{{ID: "t", Workspace: "w"}}}
	const n = 40
	want := map[string][]string{}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("p%02d", i)
		snap.Panes = append(snap.Panes, Pane{ID: id, Workspace: "w", Tab: "t", CreatedAt: time.Unix(0, 0).UTC()})
		if i%3 != 2 { // every third pane keeps its file
			want[id] = rows80(i*100, 50)
		}
	}
	var mu sync.Mutex
	asked := map[string]int{}
	var errs []string
	res, err := s.SaveFunc(snap, func(id string) ([]string, bool) {
		mu.Lock()
		defer mu.Unlock()
		asked[id]++
		rows, ok := want[id]
		if !ok {
			return nil, false
		}
		onDisk := 0
		for other := range want {
			if _, err := os.Stat(filepath.Join(dir, historyDir, TailFile(other))); err == nil {
				onDisk++
			}
		}
		if given := len(asked) - countKept(asked, want); given-onDisk > TailWriters {
			errs = append(errs, fmt.Sprintf("asked for %s with %d tails given and %d on disk", id, given, onDisk))
		}
		return rows, true
	})
	if err != nil || res.TailErr != nil {
		t.Fatal(err, res.TailErr)
	}
	for _, e := range errs {
		t.Error(e)
	}
	if res.TailsWritten != len(want) {
		t.Errorf("%d tails written, want %d", res.TailsWritten, len(want))
	}
	for _, p := range snap.Panes {
		if asked[p.ID] != 1 {
			t.Errorf("pane %s asked for %d times, want once", p.ID, asked[p.ID])
		}
	}
	_, tails, _ := mustLoad(t, s)
	for id, rows := range want {
		if got := tails[id]; len(got) != len(rows) || got[0] != rows[0] {
			t.Errorf("tail of %s: %d rows, want %d", id, len(got), len(rows))
		}
	}
}

// countKept counts the panes of asked that had no rows to give.
func countKept(asked map[string]int, want map[string][]string) int {
	n := 0
	for id := range asked {
		if _, ok := want[id]; !ok {
			n++
		}
	}
	return n
}

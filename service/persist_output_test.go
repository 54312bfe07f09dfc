package service

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/signaltty/signaltty/service/persist"
	"github.com/signaltty/signaltty/snapshot"
	"github.com/signaltty/signaltty/term"
)

// An output save offers the store only the tails of panes that printed
// since their last save; TestOutputSaveCost measures it with many panes.
func TestOutputSaveWritesOnlyChangedTails(t *testing.T) {
	measureOutputSave(t, 6, 2)
}

// TestOutputSaveCost: SIGNALTTY_MEASURE_PANES=1000 (100 of them printing a
// line every 100 ms) logs what an output save costs against a save that
// offers every tail:
//
//	SIGNALTTY_MEASURE_PANES=1000 go test -run TestOutputSaveCost -v ./service/
func TestOutputSaveCost(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("SIGNALTTY_MEASURE_PANES"))
	if n == 0 {
		t.Skip("a measurement: set SIGNALTTY_MEASURE_PANES (e.g. 1000)")
	}
	measureOutputSave(t, n, n/10)
}

func measureOutputSave(t *testing.T, panes, printing int) {
	s := newTestService(t)
	store := snapshot.Open(t.TempDir())
	if _, _, _, err := store.Load(); err != nil {
		t.Fatal(err)
	}
	s.Persistence().Start(store, 0)
	t.Cleanup(s.Persistence().Stop)
	w, err := s.CreateWorkspace("w", "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := 0; i < panes; i++ {
		argv := []string{"sh", "-c", fmt.Sprintf("echo quiet-%d; exec sleep 1000", i)}
		if i < printing {
			argv = []string{"sh", "-c", fmt.Sprintf("i=0; while :; do i=$((i+1)); echo printer-%d line $i; sleep 0.1; done", i)}
		}
		p, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: argv})
		if err != nil {
			t.Fatalf("pane %d: %v", i, err)
		}
		ids = append(ids, p.ID)
	}
	terms := make([]*term.Terminal, len(ids))
	for i, id := range ids {
		s.mu.Lock()
		terms[i] = s.panes[id].term
		s.mu.Unlock()
	}
	// Every pane printed its line (the quiet ones print nothing after it);
	// a first save writes every tail.
	waitFor(t, "every pane printed", func() bool {
		for i, tm := range terms {
			want := fmt.Sprintf("quiet-%d", i)
			if i < printing {
				want = fmt.Sprintf("printer-%d line", i)
			}
			if !strings.Contains(strings.Join(persist.SavedRows(tm), "\n"), want) {
				return false
			}
		}
		return true
	})
	full, err := s.Persistence().Save("test")
	if err != nil {
		t.Fatal(err)
	}
	// Once every printer printed again, an output save.
	at := make([]uint64, printing)
	for i := range at {
		at[i] = terms[i].Changes()
	}
	waitFor(t, "every printer printed again", func() bool {
		for i := range at {
			if terms[i].Changes() == at[i] {
				return false
			}
		}
		return true
	})
	start := time.Now()
	out, err := s.Persistence().Save("output")
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	// Forcing every tail to be offered again, for comparison.
	s.persist.ForgetTails()
	start = time.Now()
	all, err := s.Persistence().Save("output")
	tookAll := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d panes, %d printing: first save wrote %d tails (%v); output save wrote %d tails in %v; offering every tail took %v (wrote %d)",
		panes, printing, full.TailsWritten, full.Duration, out.TailsWritten, took, tookAll, all.TailsWritten)
	if out.TailsWritten > printing {
		t.Errorf("an output save wrote %d tails with %d of %d panes printing; offering all wrote %d", out.TailsWritten, printing, panes, all.TailsWritten)
	}
}

package tests

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// A program animating its title (50 changes a second for 2 s, a spinner's
// way) makes at most one pane.title event a second, the latest title; the
// pane's title is always the last one set, none of them reaches the event
// journal, and after a restart the title is still the last one.
func TestTitleChangesMakeAtMostOneEventASecond(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "titles")
	journal := filepath.Join(stateDir(d), "events")
	before := dirBytes(t, journal)
	s := d.Subscribe(t, []string{"pane.title"}, nil)
	started := time.Now()
	p := d.Spawn(t, ws(w), "sh", "-c", `i=0; while [ $i -lt 100 ]; do printf '\033]0;spin-%d\007' $i; sleep 0.02; i=$((i+1)); done; printf '\033]0;final-title\007'; echo spun; exec sleep 1000`)
	d.WaitLine(t, p.ID, "spun")
	s.WaitFor(t, harness.PollTimeout, "pane.title final-title", func(e harness.Event) bool {
		return e.Resource == p.ID && e.Data["title"] == "final-title"
	})
	elapsed := time.Since(started)
	n := 0
	for _, e := range s.Seen() {
		if e.Type == "pane.title" && e.Resource == p.ID {
			n++
		}
	}
	// One a second, and one at each end of the spinning.
	if most := int(elapsed/time.Second) + 2; n > most {
		t.Errorf("%d pane.title events in %v for 101 titles, want at most %d", n, elapsed, most)
	}
	if g := d.GetPane(t, p.ID); g.Title != "final-title" {
		t.Errorf("pane title %q, want final-title", g.Title)
	}
	t.Logf("101 titles in %v: %d pane.title events; the journal grew %d bytes", elapsed, n, dirBytes(t, journal)-before)
	if grew := dirBytes(t, journal) - before; grew > 4096 {
		t.Errorf("the journal grew %d bytes while titles changed (pane.created and its tab's events only)", grew)
	}
	d.Stop(t)
	d = harness.Start(t, harness.Options{Dir: d.Dir})
	if g := d.GetPane(t, p.ID); g.Title != "final-title" {
		t.Errorf("pane title after a restart %q, want final-title", g.Title)
	}
}

// dirBytes is the size of the files in dir.
func dirBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

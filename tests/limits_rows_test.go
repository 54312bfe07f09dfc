package tests

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// printRows is a command printing n rows of 78 digits (78 bytes each in
// the row store), then "done".
func printRows(n int) []string {
	return []string{"sh", "-c", fmt.Sprintf(`i=0; while [ $i -lt %d ]; do printf '%%078d\n' $i; i=$((i+1)); done; echo done; exec sleep 100`, n)}
}

// A pane's history past SIGNALTTY_HISTORY_BYTES drops its oldest rows:
// oldest advances and rows before it are refused as before_oldest.
func TestHistoryPastThePaneBudgetDropsTheOldestRows(t *testing.T) {
	t.Parallel()
	d := harness.Start(t, harness.Options{Env: []string{"SIGNALTTY_HISTORY_BYTES=8000"}})
	w := d.CreateWorkspace(t, "limits-rows")
	p := d.Spawn(t, ws(w), printRows(500)...)
	c := d.WaitLine(t, p.ID, "done")
	if c.Oldest == 0 || (c.First-c.Oldest)*78 > 8000 {
		t.Fatalf("oldest %d, %d history rows: want at most 8000 bytes (%d rows) kept", c.Oldest, c.First-c.Oldest, 8000/78)
	}
	d.Fail(t, "invalid_params.range", exitInvalid, "pane", "capture", "--pane", p.ID, "--start", strconv.FormatInt(c.Oldest-1, 10))
	if h := d.Capture(t, p.ID, "--start", strconv.FormatInt(c.Oldest, 10)); h.First != c.Oldest {
		t.Errorf("capture from oldest starts at %d", h.First)
	}
}

// Past SIGNALTTY_HISTORY_TOTAL_BYTES for all panes together, the pane with
// the most history loses its oldest rows first; a pane within its share
// keeps all of its own.
func TestHistoryPastTheTotalBudgetDropsFromTheLargestPane(t *testing.T) {
	t.Parallel()
	const total = 65536
	d := harness.Start(t, harness.Options{Env: []string{fmt.Sprintf("SIGNALTTY_HISTORY_TOTAL_BYTES=%d", total)}})
	w := d.CreateWorkspace(t, "limits-rows-total")
	big := d.Spawn(t, ws(w), printRows(700)...) // about 53 KiB of history: within the total
	c := d.WaitLine(t, big.ID, "done")
	if c.Oldest != 0 {
		t.Fatalf("within the total budget the big pane lost rows: oldest %d", c.Oldest)
	}
	small := d.Spawn(t, ws(w), printRows(300)...) // 22 KiB: within its share (32 KiB), past the total together
	s := d.WaitLine(t, small.ID, "done")
	harness.Eventually(t, harness.PollTimeout, "the big pane's history shrinks to fit", func() (bool, string) {
		b := d.Capture(t, big.ID)
		s = d.Capture(t, small.ID)
		kept := (b.First-b.Oldest)*78 + (s.First-s.Oldest)*78
		return b.Oldest > 0 && kept <= total, fmt.Sprintf("big oldest %d, %d bytes kept together", b.Oldest, kept)
	})
	if s.Oldest != 0 {
		t.Errorf("the pane within its share lost rows: oldest %d", s.Oldest)
	}
}

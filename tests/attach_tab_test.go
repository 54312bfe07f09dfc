package tests

// signaltty attach --tab: a tab's panes in their split layout, each in a
// frame with its title, drawn inside a real tmux (docs/attach.md, "Tab view").

import (
	"fmt"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// region returns the cells [x, x+w) of rows [y, y+h) of a window's rows
// (every character here is one cell wide).
func region(rows []string, x, y, w, h int) []string {
	var out []string
	for i := y; i < y+h; i++ {
		var r []rune
		if i >= 0 && i < len(rows) {
			r = []rune(rows[i])
		}
		for len(r) < x+w {
			r = append(r, ' ')
		}
		out = append(out, string(r[x:x+w]))
	}
	return out
}

// findPane locates a pane's capture in the window: the frame's inside
// starts where the capture's first row does. It returns a difference, or "".
func findPane(rows []string, c harness.Capture, id string) string {
	first := strings.TrimRight(c.Lines[0], " ")
	for y, row := range rows {
		r := []rune(row)
		for x := 1; x < len(r); x++ {
			if r[x-1] != '│' || !strings.HasPrefix(string(r[x:]), first) {
				continue
			}
			got := region(rows, x, y, c.Cols, c.Rows)
			for i := range got {
				if got[i] != c.Lines[i] {
					return fmt.Sprintf("pane %s row %d: view %q, capture %q", id, i, got[i], c.Lines[i])
				}
			}
			if y == 0 || !strings.Contains(rows[y-1], id) {
				return fmt.Sprintf("pane %s: its frame's title row does not name it", id)
			}
			return ""
		}
	}
	return fmt.Sprintf("pane %s: its first row %q is nowhere in the view", id, first)
}

// A three-pane split is drawn with each pane's rows exactly as its capture
// has them, each in a frame titled with its pane; the prefix key moves the
// focus and typed keys reach the focused pane; C-b d detaches.
func TestAttachTabDrawsTheSplitLayout(t *testing.T) {
	t.Parallel()
	harness.NeedTmux(t)
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "tab-view")
	a := d.Spawn(t, ws(w), "sh", "-c", `printf 'A-%s\n' 1 2 3; exec sleep 100`)
	b := d.Spawn(t, []string{"--split", a.ID, "--axis", "cols"}, "sh", "-c", `printf 'B-%s\n' 1 2 3; exec sleep 100`)
	c := bash(t, d, []string{"--split", b.ID, "--axis", "rows"})
	d.WaitLine(t, a.ID, "A-3")
	d.WaitLine(t, b.ID, "B-3")
	m := d.Tmux(t, 100, 30, "signaltty", "attach", "--tab", a.Tab)
	same := func(what string) {
		t.Helper()
		harness.Eventually(t, harness.PollTimeout, what, func() (bool, string) {
			rows := m.Screen(t)
			for _, p := range []harness.Pane{a, b, c} {
				if diff := findPane(rows, d.Capture(t, p.ID), p.ID); diff != "" {
					return false, diff + "\n" + strings.Join(rows, "\n")
				}
			}
			return true, ""
		})
	}
	same("the view shows the three panes as their captures")
	// The panes were sized to their frames: together they fill the window.
	pa, pb, pc := d.GetPane(t, a.ID), d.GetPane(t, b.ID), d.GetPane(t, c.ID)
	if pa.Cols+pb.Cols+4 != 100 || pb.Cols != pc.Cols || pb.Rows+pc.Rows+4 != 30 || pa.Rows+2 != 30 {
		t.Errorf("pane sizes %dx%d, %dx%d, %dx%d do not fill a 100x30 view with frames", pa.Cols, pa.Rows, pb.Cols, pb.Rows, pc.Cols, pc.Rows)
	}
	m.SendText(t, "echo typed-$((3*3))") // the active pane: the last one spawned
	m.SendKeys(t, "Enter")
	d.WaitLine(t, c.ID, "typed-9")
	same("the view after typing into the focused pane")
	m.SendKeys(t, "C-b", "d")
	if code := m.WaitEnded(t); code != 0 {
		t.Errorf("the tab view exited %d after C-b d", code)
	}
	for _, p := range []harness.Pane{a, b, c} {
		if got := d.GetPane(t, p.ID); got.State != "live" {
			t.Errorf("pane %s is %s after detaching, want live", p.ID, got.State)
		}
	}
}

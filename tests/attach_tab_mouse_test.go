package tests

// The tab view's mouse (signaltty attach --tab --mouse), inside tmux as
// the outer terminal, the SGR reports sent as a terminal sends them
// (docs/attach.md, "Tab view").

import (
	"fmt"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// panesDrawn waits until the tab view draws each pane as its capture has
// it, in a frame whose title names it.
func panesDrawn(t *testing.T, d *harness.Daemon, m *harness.Tmux, what string, panes ...string) {
	t.Helper()
	harness.Eventually(t, harness.PollTimeout, what, func() (bool, string) {
		rows := m.Screen(t)
		for _, p := range panes {
			if diff := findPane(rows, d.Capture(t, p), p); diff != "" {
				return false, diff + "\n" + strings.Join(rows, "\n")
			}
		}
		return true, ""
	})
}

// click is the SGR press and release of the left button at the 0-based
// cell (x, y).
func click(x, y int) string { return fmt.Sprintf("\x1b[<0;%d;%dM\x1b[<0;%d;%dm", x+1, y+1, x+1, y+1) }

func TestAttachTabMouseFocusesScrollsDragsABorderAndForwards(t *testing.T) {
	t.Parallel()
	harness.NeedTmux(t)
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "tab-mouse")
	a := bash(t, d, ws(w))
	b := bash(t, d, []string{"--split", a.ID, "--axis", "cols"})
	run(t, d, a.ID, "seq -f 'row-%g' 1 500", "row-500")
	m := d.Tmux(t, 100, 30, "signaltty", "attach", "--tab", "--mouse", a.Tab)
	live := func(what string) { t.Helper(); panesDrawn(t, d, m, what, a.ID, b.ID) }
	live("the tab view shows both panes")

	// A click in a pane focuses it: keys go there.
	m.SendText(t, click(10, 10))
	m.SendText(t, "echo clicked-$((6*7))")
	m.SendKeys(t, "Enter")
	d.WaitLine(t, a.ID, "clicked-42")
	m.SendText(t, click(70, 10))
	m.SendText(t, "echo then-$((6*7))")
	m.SendKeys(t, "Enter")
	d.WaitLine(t, b.ID, "then-42")

	// The wheel over a pane that takes no reports shows its history view.
	m.SendText(t, "\x1b[<64;11;11M")
	m.WaitScreen(t, "the wheel over the left pane entered its history view three rows up", func(rows []string) bool {
		return strings.Contains(strings.Join(rows, "\n"), "[3/")
	})
	m.SendText(t, click(70, 10))
	live("a click on the other pane returns to both live panes")
	m.SendText(t, "echo back-$((6*7))")
	m.SendKeys(t, "Enter")
	d.WaitLine(t, b.ID, "back-42")

	// Dragging the border between them (columns 49 and 50) to column 29
	// sets the split's ratio, saved with the layout, and resizes the panes.
	m.SendText(t, "\x1b[<0;51;10M\x1b[<32;40;10M\x1b[<32;30;10M\x1b[<0;30;10m")
	harness.Eventually(t, harness.PollTimeout, "the drag saved the ratio", func() (bool, string) {
		_, tabs, _ := d.GetWorkspace(t, w.ID)
		l := tabs[0].Layout
		return l.Ratio != nil && *l.Ratio == 0.29, fmt.Sprintf("%+v", l)
	})
	harness.Eventually(t, harness.PollTimeout, "the panes were resized to their frames", func() (bool, string) {
		pa, pb := d.GetPane(t, a.ID), d.GetPane(t, b.ID)
		return pa.Cols == 27 && pb.Cols == 69, fmt.Sprintf("%d and %d columns", pa.Cols, pb.Cols)
	})
	harness.Eventually(t, harness.PollTimeout, "both panes are drawn in their new frames", func() (bool, string) {
		rows := m.Screen(t)
		da := findPane(rows, d.Capture(t, a.ID), a.ID) // its title is cut short: the id too
		return (da == "" || strings.HasSuffix(da, "does not name it")) && findPane(rows, d.Capture(t, b.ID), b.ID) == "", strings.Join(rows, "\n")
	})

	// A pane that asked for mouse reports gets them at its own cells.
	m.SendText(t, click(70, 10))
	m.SendText(t, `printf '\033[?1000h\033[?1006h'; cat -v`)
	m.SendKeys(t, "Enter")
	harness.Eventually(t, harness.PollTimeout, "the click went to the pane at its own cell", func() (bool, string) {
		m.SendText(t, click(35, 5)) // the pane's inside starts at (30, 1)
		c := d.Capture(t, b.ID)
		return strings.Contains(c.Dump(), "^[[<0;6;5M^[[<0;6;5m"), c.Dump()
	})
	m.SendKeys(t, "C-c")

	// The ratio is restored with the layout after a restart.
	d.Stop(t)
	d2 := harness.Start(t, harness.Options{Dir: d.Dir})
	_, tabs, _ := d2.GetWorkspace(t, w.ID)
	if l := tabs[0].Layout; l.Ratio == nil || *l.Ratio != 0.29 {
		t.Fatalf("after a restart the split's ratio is %+v", l)
	}

	// The CLI sets it as the drag does, and refuses what no split has.
	if r := d2.CLI(t, "tab", "ratio", "--tab", a.Tab, "--pane", b.ID, "--ratio", "0.7"); r.Code != 0 {
		t.Fatalf("tab ratio: %s", r)
	}
	if _, tabs, _ := d2.GetWorkspace(t, w.ID); *tabs[0].Layout.Ratio != 0.7 {
		t.Fatalf("tab ratio set %v", *tabs[0].Layout.Ratio)
	}
	d2.Fail(t, "invalid_params.ratio", exitInvalid, "tab", "ratio", "--tab", a.Tab, "--pane", b.ID, "--ratio", "1")
	d2.Fail(t, "invalid_params.pane", exitInvalid, "tab", "ratio", "--tab", a.Tab, "--pane", a.ID, "--ratio", "0.5")
}

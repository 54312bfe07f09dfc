package tests

// The tab view shows which pane needs the user and jumps to it
// (docs/attach.md, "Tab view").

import (
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

func TestAttachTabShowsAttentionAndJumpsToThePaneThatNeedsYou(t *testing.T) {
	t.Parallel()
	harness.NeedTmux(t)
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "tab-attention")
	a := bash(t, d, ws(w))
	b := bash(t, d, []string{"--split", a.ID, "--axis", "cols"})
	var started struct{ Run string }
	d.JSON(t, &started, "run", "--key", "k1", "--workspace", w.ID, "--", "true") // a finished run's tab

	// Without a tab: the workspace's active tab, not the run's.
	m := d.Tmux(t, 120, 30, "signaltty", "attach", "--tab")
	panesDrawn(t, d, m, "attach --tab shows the workspace's tab of both panes", a.ID, b.ID)
	_, tabs, _ := d.GetWorkspace(t, w.ID)
	focused, other := a, b
	for _, tab := range tabs {
		if tab.ID == a.Tab && tab.ActivePane != nil && *tab.ActivePane == b.ID {
			focused, other = b, a
		}
	}

	d.JSON(t, &struct{}{}, "notify", "--pane", other.ID, "--title", "look", "--severity", "error")
	m.WaitScreen(t, "the other pane's frame says it needs the user", func(rows []string) bool {
		return strings.Contains(rows[0], "! error")
	})
	m.SendKeys(t, "C-b", "a")
	m.SendText(t, "echo jumped-$((6*7))")
	m.SendKeys(t, "Enter")
	d.WaitLine(t, other.ID, "jumped-42")
	harness.Eventually(t, harness.PollTimeout, "the jump marked the pane seen", func() (bool, string) {
		got := getAgentPane(t, d, other.ID).Attention
		return got == "none", got
	})
	m.WaitScreen(t, "no frame says a pane needs the user", func(rows []string) bool {
		return !strings.Contains(rows[0], "! ")
	})
	if strings.Contains(strings.Join(d.Capture(t, focused.ID).Lines, "\n"), "jumped-42") {
		t.Fatal("the keys went to the pane focused before the jump")
	}
}

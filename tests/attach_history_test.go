package tests

// The history view of signaltty attach, inside tmux as the outer terminal
// (docs/attach.md, "History view").

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// status is the view's position line (the window's last row) and its
// [B/T] numbers, -1 when it has none.
func status(rows []string) (line string, behind int) {
	if len(rows) == 0 {
		return "", -1
	}
	line = rows[len(rows)-1]
	m := regexp.MustCompile(`\[(\d+)/(\d+)\]\s*$`).FindStringSubmatch(line)
	if m == nil {
		return line, -1
	}
	behind, _ = strconv.Atoi(m[1])
	return line, behind
}

func hasRow(rows []string, s string) bool {
	for _, r := range rows {
		if strings.TrimRight(r, " ") == s {
			return true
		}
	}
	return false
}

func TestAttachHistoryViewScrollsSearchesAndReturnsToTheLivePane(t *testing.T) {
	t.Parallel()
	harness.NeedTmux(t)
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "attach-history")
	p := bash(t, d, ws(w))
	run(t, d, p.ID, "seq -f 'row-%g' 1 5000", "row-5000")
	m := attached(t, d, p.ID, 80, 24)

	m.SendKeys(t, "C-b", "[")
	m.WaitScreen(t, "the history view with its position line [0/T]", func(rows []string) bool {
		_, b := status(rows)
		return b == 0 && hasRow(rows, "row-5000")
	})
	m.SendKeys(t, "PageUp")
	rows := m.WaitScreen(t, "PageUp shows earlier rows, 22 behind", func(rows []string) bool {
		_, b := status(rows)
		return b == 22 && hasRow(rows, "row-4978") && !hasRow(rows, "row-5000")
	})
	_ = rows

	// The pane goes on meanwhile; the view stays where it is and says how
	// far behind it is.
	d.Send(t, p.ID, `echo during-$((6*7))\r`)
	d.WaitLine(t, p.ID, "during-42")
	m.WaitScreen(t, "the position line counts the new rows", func(rows []string) bool {
		_, b := status(rows)
		return b > 22 && hasRow(rows, "row-4978") && !hasRow(rows, "during-42")
	})

	m.SendText(t, "?row-1234")
	m.SendKeys(t, "Enter")
	m.WaitScreen(t, "searching towards older rows finds row-1234", func(rows []string) bool {
		return hasRow(rows, "row-1234")
	})
	m.SendText(t, "/re:^row-40[0-9]{2}$")
	m.SendKeys(t, "Enter")
	m.WaitScreen(t, "a regular expression towards newer rows finds row-4000", func(rows []string) bool {
		return hasRow(rows, "row-4000")
	})
	m.SendText(t, "/no-such-row")
	m.SendKeys(t, "Enter")
	m.WaitScreen(t, "a search without a match says so", func(rows []string) bool {
		line, _ := status(rows)
		return strings.Contains(line, "no match: no-such-row")
	})

	m.SendKeys(t, "q")
	waitSame(t, d, m, p.ID, "q returns to the live pane, with what it printed meanwhile")
	m.SendText(t, "echo after-$((6*7))")
	m.SendKeys(t, "Enter")
	d.WaitLine(t, p.ID, "after-42")
	waitSame(t, d, m, p.ID, "keys go to the pane again")

	// The prefix twice sends it: C-b is readline's backward-char.
	m.SendText(t, "echo x")
	m.SendKeys(t, "C-b", "C-b", "y")
	m.SendKeys(t, "Enter")
	d.WaitLine(t, p.ID, "yx")
}

package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/signaltty/signaltty/tests/harness"
)

// colouredOutput is 60 lines in every kind of style a program prints: 16,
// 256 and true colours, bold, dim, italic, underline, reverse, background
// colours, wide characters in a coloured run; the last line is plain.
func colouredOutput() string {
	var b strings.Builder
	for i := range 59 {
		fmt.Fprintf(&b, "\x1b[1;34m%04d\x1b[0m \x1b[32mok\x1b[m \x1b[38;5;%dmpkg/mod%02d\x1b[0m \x1b[2m(dim)\x1b[22m "+
			"\x1b[38;2;255;%d;0mwarn\x1b[m \x1b[3;4mitalic under\x1b[m \x1b[7mrev\x1b[27m \x1b[45;97m日本 bg\x1b[m end\n",
			i, 16+i*3%216, i, i*4%256)
	}
	b.WriteString("colour-end-marker\n")
	return b.String()
}

// styledCells decodes a line with escapes into cols cells.
func styledCells(line string, cols int) []uv.Cell {
	sb := uv.NewScreenBuffer(cols, 1)
	uv.NewStyledString(line).Draw(sb, uv.Rect(0, 0, cols, 1))
	cells := make([]uv.Cell, cols)
	for x := range cells {
		if c := sb.CellAt(x, 0); c != nil {
			cells[x] = *c
		}
	}
	return cells
}

// sameStyledRow returns "" when two lines with escapes (as signaltty's
// capture --escapes and tmux's capture-pane -e print them) show the same
// characters in the same styles in each of cols cells, else the first
// difference.
func sameStyledRow(a, b string, cols int) string {
	ca, cb := styledCells(a, cols), styledCells(b, cols)
	for x := range ca {
		ea, eb := ca[x].Content, cb[x].Content
		if ea == "" {
			ea = " "
		}
		if eb == "" {
			eb = " "
		}
		if ea != eb || !ca[x].Style.Equal(&cb[x].Style) {
			return fmt.Sprintf("cell %d: %q %+v vs %q %+v", x, ea, ca[x].Style, eb, cb[x].Style)
		}
	}
	return ""
}

// A pane's coloured output keeps its colours through a daemon crash: the
// rows `capture --escapes` shows before SIGKILL equal what tmux's
// capture-pane -e shows of the same output, the restored tombstone's rows
// are the same lines, attach draws the tombstone's screen in them, and a
// relaunch keeps them so.
func TestRestoredPaneKeepsItsColours(t *testing.T) {
	t.Parallel()
	harness.NeedTmux(t)
	out := colouredOutput()
	file := filepath.Join(harness.TempDir(t), "coloured.txt")
	if err := os.WriteFile(file, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	d := harness.Start(t, harness.Options{Env: []string{"SIGNALTTY_SAVE_OUTPUT_INTERVAL_MS=1000"}})
	w := d.CreateWorkspace(t, "colours")
	p := d.Spawn(t, append(ws(w), "--cols", "80", "--rows", "24"), "sh", "-c", "cat "+file+"; exec sleep 100000")
	d.WaitLine(t, p.ID, "colour-end-marker")
	n := strings.Count(out, "\n")
	before := d.Capture(t, p.ID, "--start", "0", "--end", strconv.Itoa(n), "--escapes", "--trim")
	if len(before.Lines) != n || !strings.Contains(before.Lines[0], "\x1b[") {
		t.Fatalf("capture --escapes of the printed rows: %d lines, first %q", len(before.Lines), before.Lines[0])
	}

	// tmux shows the same output in the same colours.
	m := startPlainTmux(t, 80, 24, "sh -c 'cat "+file+"; exec sleep 100000'")
	m.waitRow(t, "colour-end-marker")
	tm := strings.Split(m.run(t, "capture-pane", "-p", "-e", "-S", "-", "-E", "-", "-t", "0"), "\n")
	if len(tm) < n {
		t.Fatalf("tmux shows %d rows, want %d", len(tm), n)
	}
	for i, l := range before.Lines {
		if diff := sameStyledRow(l, tm[i], 80); diff != "" {
			t.Fatalf("row %d differs from tmux's: %s\nsignaltty %q\ntmux      %q", i, diff, l, tm[i])
		}
	}

	// Saved, killed, restored: the tombstone's rows are the same lines. A
	// save writes the tails before snapshot.json, so both are waited for.
	harness.Eventually(t, 30*time.Second, "the coloured rows are saved", func() (bool, string) {
		b, err := os.ReadFile(tailFile(d, p.ID))
		return err == nil && strings.Contains(string(b), "colour-end-marker"), fmt.Sprint(err)
	})
	harness.Eventually(t, 30*time.Second, "the pane is in the saved snapshot", func() (bool, string) {
		b, err := os.ReadFile(filepath.Join(stateDir(d), "snapshot.json"))
		return err == nil && strings.Contains(string(b), p.ID), fmt.Sprint(err)
	})
	syscall.Kill(d.Pid(), syscall.SIGKILL)
	d.WaitExit(t, 10*time.Second)
	os.Remove(d.Socket)
	d2 := harness.Start(t, harness.Options{Dir: d.Dir})
	after := d2.Capture(t, p.ID, "--start", "0", "--end", strconv.Itoa(n), "--escapes", "--trim")
	for i := range n {
		if i >= len(after.Lines) || after.Lines[i] != before.Lines[i] {
			got := ""
			if i < len(after.Lines) {
				got = after.Lines[i]
			}
			t.Fatalf("restored row %d:\n%q\nwant\n%q", i, got, before.Lines[i])
		}
	}

	// Attach draws the tombstone's screen in its colours (above the line
	// that says the pane has no process).
	screen := d2.Capture(t, p.ID, "--escapes")
	a := d2.Tmux(t, 80, 25, "signaltty", "attach", p.ID)
	harness.Eventually(t, harness.PollTimeout, "attach draws the tombstone in its colours", func() (bool, string) {
		drawn := strings.Split(a.ScreenEscapes(t), "\n")
		for i, l := range screen.Lines {
			if i >= len(drawn) {
				return false, fmt.Sprintf("the attached screen has %d rows", len(drawn))
			}
			if diff := sameStyledRow(l, drawn[i], 80); diff != "" {
				return false, fmt.Sprintf("attached row %d: %s\ndrawn   %q\ncapture %q", i, diff, drawn[i], l)
			}
		}
		return true, ""
	})

	// A relaunch keeps them above the new output, in their colours.
	d2.CLI(t, "pane", "relaunch", "--pane", p.ID)
	d2.WaitLine(t, p.ID, "colour-end-marker")
	kept := d2.Capture(t, p.ID, "--start", "0", "--end", strconv.Itoa(n), "--escapes", "--trim")
	for i := range n {
		if i >= len(kept.Lines) || kept.Lines[i] != before.Lines[i] {
			t.Fatalf("relaunched pane's kept row %d: %q, want %q", i, kept.Lines, before.Lines[i])
		}
	}
}

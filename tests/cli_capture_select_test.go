package tests

// Selecting rows to capture: the last N, the whole history, a clamped
// range, and rows with their colours (docs/rows.md, "Capture ranges").

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

func TestCaptureLastHistoryClampAndEscapes(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "capture-select")
	p := d.Spawn(t, append(ws(w), "--rows", "10"), "sh", "-c", `seq 1 30; printf '\033[1;31mred\033[m done\n'; exec sleep 100`)
	d.WaitLine(t, p.ID, "red done")

	// --last 4: the last 4 rows ending at the screen's bottom.
	c := d.Capture(t, p.ID, "--last", "4", "--trim")
	if c.Next != c.End || c.First != c.End-4 || len(c.Lines) != 4 {
		t.Fatalf("--last 4: first %d next %d end %d, %d lines", c.First, c.Next, c.End, len(c.Lines))
	}
	text := d.CLI(t, "pane", "capture", "--pane", p.ID, "--last", "12")
	if got := strings.Fields(text.Stdout); len(got) < 3 || got[0] != "21" || got[len(got)-2] != "red" {
		t.Fatalf("--last 12 printed %q (%s)", text.Stdout, text.Stderr)
	}

	// --history: from the oldest kept row.
	h := d.Capture(t, p.ID, "--history", "--trim")
	if h.First != h.Oldest || h.Next != h.End {
		t.Fatalf("--history: first %d next %d, oldest %d end %d", h.First, h.Next, h.Oldest, h.End)
	}
	want := make([]string, 30)
	for i := range want {
		want[i] = strconv.Itoa(i + 1)
	}
	if !slices.Equal(h.Lines[:30], want) {
		t.Fatalf("--history starts %q", h.Lines[:30])
	}

	// A range past the kept rows fails, unless clamped.
	e := d.Fail(t, "invalid_params.range", exitInvalid, "pane", "capture", "--pane", p.ID, "--start", "-10")
	if e.Data["reason"] != "before_oldest" {
		t.Errorf("--start -10: %v", e.Data)
	}
	d.Fail(t, "invalid_params.range", exitInvalid, "pane", "capture", "--pane", p.ID, "--last", "1000")
	cl := d.Capture(t, p.ID, "--start", "-10", "--end", strconv.FormatInt(h.End+50, 10), "--clamp", "--trim")
	if !cl.Clamped || cl.First != h.Oldest || cl.Next != h.End || !slices.Equal(cl.Lines, h.Lines) {
		t.Fatalf("clamped: first %d next %d clamped %v, want %d..%d", cl.First, cl.Next, cl.Clamped, h.Oldest, h.End)
	}
	r := d.CLI(t, "pane", "capture", "--pane", p.ID, "--last", "1000", "--clamp")
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, "1\n2\n") || !strings.Contains(r.Stderr, "clamped") {
		t.Fatalf("--last 1000 --clamp: %s", r)
	}

	// --escapes: the colours as SGR sequences, combinable with --trim.
	esc := d.Capture(t, p.ID, "--start", "30", "--end", "31", "--escapes", "--trim")
	if len(esc.Lines) != 1 || !strings.Contains(esc.Lines[0], "\x1b[") || !strings.Contains(esc.Lines[0], "red\x1b[m done") ||
		strings.HasSuffix(esc.Lines[0], " ") {
		t.Fatalf("--escapes --trim row 30: %q", esc.Lines)
	}
	if plain := d.Capture(t, p.ID, "--start", "30", "--end", "31", "--trim"); plain.Lines[0] != "red done" {
		t.Fatalf("row 30 without escapes: %q", plain.Lines)
	}

	// --max-bytes cuts at a row and says where to go on.
	cut := d.Capture(t, p.ID, "--history", "--trim", "--max-bytes", "20")
	if !cut.Cut || cut.First != h.Oldest || cut.Next != cut.First+int64(len(cut.Lines)) || cut.Next >= h.End ||
		!slices.Equal(cut.Lines, h.Lines[:len(cut.Lines)]) {
		t.Fatalf("--max-bytes 20: first %d next %d cut %v %q", cut.First, cut.Next, cut.Cut, cut.Lines)
	}
	r = d.CLI(t, "pane", "capture", "--pane", p.ID, "--history", "--max-bytes", "20")
	if !strings.Contains(r.Stderr, "--start "+strconv.FormatInt(cut.Next, 10)) {
		t.Errorf("the text output does not say where to go on: %s", r)
	}

	// Selectors that contradict each other are refused.
	d.Fail(t, "invalid_params.last", exitInvalid, "pane", "capture", "--pane", p.ID, "--last", "3", "--start", "0")
	d.Fail(t, "invalid_params.last", exitInvalid, "pane", "capture", "--pane", p.ID, "--last", "-3")
	d.Fail(t, "invalid_params.history", exitInvalid, "pane", "capture", "--pane", p.ID, "--history", "--start", "0")
	d.Kill(t, p.ID, "--grace-ms", "200")
}

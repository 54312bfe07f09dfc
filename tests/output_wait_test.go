package tests

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// outputWait is the reply of Mux.WaitOutput and Mux.SendWait.
type outputWait struct {
	Written    *int   `json:"written"`
	Outcome    string `json:"outcome"`
	MatchedRow *int64 `json:"matched_row"`
	Epoch      int64  `json:"epoch"`
	First      int64  `json:"first"`
	Lines      []string
	Omitted    int64
	Status     *struct {
		Code *int `json:"code"`
	}
	Baseline json.RawMessage `json:"baseline"`
	Next     string          `json:"next"`
}

// fromStart is a baseline of another epoch's empty screen: every row kept counts as changed.
const fromStart = `{"epoch":0,"row":0,"digest":""}`

// matchedLine is the line of the row that matched.
func (w outputWait) matchedLine(t *testing.T) string {
	t.Helper()
	if w.MatchedRow == nil || *w.MatchedRow < w.First || *w.MatchedRow >= w.First+int64(len(w.Lines)) {
		t.Fatalf("matched_row is not one of the lines: %+v", w)
	}
	return w.Lines[*w.MatchedRow-w.First]
}

// A python3 REPL driven with one send-and-wait per expression: each
// answer comes back as the changed rows, the answer's row is the match.
func TestOutputWaitDrivesAPythonREPL(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "repl")
	p := d.Spawn(t, []string{"--workspace", ws.ID, "--env", "PYTHONSTARTUP="}, "python3", "-q", "-i")
	var ready outputWait
	d.JSON(t, &ready, "pane", "wait", "--pane", p.ID, "--match", `^>>>$`, "--after", fromStart, "--timeout-ms", "60000")
	if ready.Outcome != "matched" || ready.matchedLine(t) != ">>>" {
		t.Fatalf("want the first prompt: %+v", ready)
	}
	var two outputWait
	d.JSON(t, &two, "pane", "wait", "--pane", p.ID, "--send", `1+1\n`, "--match", `^2$`, "--timeout-ms", "60000")
	if two.Outcome != "matched" || two.matchedLine(t) != "2" || two.Written == nil || *two.Written != 4 {
		t.Fatalf("want the answer 2 to match: %+v", two)
	}
	if !slices.Contains(two.Lines, ">>> 1+1") {
		t.Fatalf("the echoed input is a changed row: %q", two.Lines)
	}
	var three outputWait
	d.JSON(t, &three, "pane", "wait", "--pane", p.ID, "--send", `print("ab"*3)\n`, "--match", `^(ab)+$`, "--timeout-ms", "60000")
	if three.Outcome != "matched" || three.matchedLine(t) != "ababab" {
		t.Fatalf("want ababab: %+v", three)
	}
	if slices.Contains(three.Lines, "2") {
		t.Fatalf("rows of the earlier answer did not change and must not come back: %q", three.Lines)
	}
}

// A read -p prompt answered with one send-and-wait call; the CLI prints the
// changed rows.
func TestOutputWaitAnswersAPromptInOneCall(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "prompt")
	p := d.Spawn(t, []string{"--workspace", ws.ID}, "bash", "--norc", "--noprofile", "-c", `read -r -p "Your name? " n; echo "Hello, $n!"; exec sleep 600`)
	var asked outputWait
	d.JSON(t, &asked, "pane", "wait", "--pane", p.ID, "--match", `\? ?$`, "--after", fromStart, "--timeout-ms", "60000")
	if asked.Outcome != "matched" || asked.matchedLine(t) != "Your name?" {
		t.Fatalf("want the prompt: %+v", asked)
	}
	r := d.CLI(t, "pane", "wait", "--pane", p.ID, "--send", `Ada\n`, "--match", `^Hello, .*!$`, "--timeout-ms", "60000")
	if r.Code != 0 || !strings.Contains(r.Stdout, "Hello, Ada!") || !strings.Contains(r.Stdout, "Your name? Ada") || !strings.Contains(r.Stderr, "matched (row 1)") {
		t.Fatalf("want the answered prompt and the greeting:\n%s", r)
	}
}

// A screen that stopped changing ends a quiet wait; after the baseline of
// the wait before it, no row changed.
func TestOutputWaitEndsOnAQuietScreen(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "quiet")
	p := d.Spawn(t, []string{"--workspace", ws.ID}, "sh", "-c", "echo one; echo two; exec sleep 600")
	var printed outputWait
	d.JSON(t, &printed, "pane", "wait", "--pane", p.ID, "--match", "^two$", "--after", fromStart, "--timeout-ms", "60000")
	if printed.Outcome != "matched" || !slices.Equal(printed.Lines, []string{"one", "two"}) {
		t.Fatalf("want both rows: %+v", printed)
	}
	var quiet outputWait
	d.JSON(t, &quiet, "pane", "wait", "--pane", p.ID, "--quiet-ms", "300", "--after", string(printed.Baseline), "--timeout-ms", "60000")
	if quiet.Outcome != "quiet" || len(quiet.Lines) != 0 {
		t.Fatalf("want quiet without changed rows: %+v", quiet)
	}
	var quietFromStart outputWait
	d.JSON(t, &quietFromStart, "pane", "wait", "--pane", p.ID, "--quiet-ms", "300", "--after", fromStart, "--timeout-ms", "60000")
	if quietFromStart.Outcome != "quiet" || !slices.Equal(quietFromStart.Lines, []string{"one", "two"}) {
		t.Fatalf("want quiet with the rows printed since the start: %+v", quietFromStart)
	}
}

// The program's exit ends a wait for a match that never comes, with its
// status and its last rows.
func TestOutputWaitEndsWhenTheProgramExits(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "exit")
	p := d.Spawn(t, []string{"--workspace", ws.ID}, "sh", "-c", "read x; echo bye; exit 3")
	var w outputWait
	d.JSON(t, &w, "pane", "wait", "--pane", p.ID, "--send", `\n`, "--match", "never printed", "--timeout-ms", "60000")
	if w.Outcome != "exited" || w.Status == nil || w.Status.Code == nil || *w.Status.Code != 3 || !slices.Contains(w.Lines, "bye") {
		t.Fatalf("want exited with code 3 and bye: %+v", w)
	}
	var again outputWait
	d.JSON(t, &again, "pane", "wait", "--pane", p.ID, "--match", "x", "--timeout-ms", "60000")
	if again.Outcome != "exited" {
		t.Fatalf("a wait on an exited pane ends at once: %+v", again)
	}
}

// A wait that nothing ends within its timeout is a normal reply with
// outcome timeout (exit status 7 from the CLI).
func TestOutputWaitTimeoutIsANormalReply(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "timeout")
	p := d.Spawn(t, []string{"--workspace", ws.ID}, "cat")
	d.Send(t, p.ID, `partial\n`)
	d.WaitLine(t, p.ID, "partial")
	r := d.CLI(t, "--json", "pane", "wait", "--pane", p.ID, "--match", "^never$", "--after", fromStart, "--timeout-ms", "300")
	var w outputWait
	if r.Code != 7 || json.Unmarshal([]byte(r.Stdout), &w) != nil || w.Outcome != "timeout" || !slices.Contains(w.Lines, "partial") {
		t.Fatalf("want exit 7 and the rows so far:\n%s", r)
	}
}

// Bad parameters fail with their code before anything is written.
func TestOutputWaitBadParamsFailBeforeWriting(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "bad")
	p := d.Spawn(t, []string{"--workspace", ws.ID}, "cat")
	e := d.Fail(t, "invalid_params.match", 2, "pane", "wait", "--pane", p.ID, "--send", `written\n`, "--match", "(unclosed")
	if e.Data["reason"] != "syntax" {
		t.Fatalf("want reason syntax: %+v", e)
	}
	d.Fail(t, "invalid_params.quiet_ms", 2, "pane", "wait", "--pane", p.ID, "--send", `written\n`, "--quiet-ms", "0")
	d.Fail(t, "invalid_params.after", 2, "pane", "wait", "--pane", p.ID, "--match", "x", "--after", `{"epoch":0,"row":0,"digest":"xyz"}`)
	d.Fail(t, "invalid_params.usage", 2, "pane", "wait", "--pane", p.ID)
	c := d.Capture(t, p.ID, "--trim")
	if strings.Contains(strings.Join(c.Lines, "\n"), "written") {
		t.Fatalf("a failed wait wrote its input: %q", c.Lines)
	}
}

// Output longer than the screen: rows that scrolled into history keep
// their numbers, so the next wait returns only the rows its input caused.
func TestOutputWaitReturnsOnlyNewRowsAfterScrolling(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "scroll")
	p := d.Spawn(t, []string{"--workspace", ws.ID}, "sh", "-c", `seq 1 100; read x; seq 101 130; echo end; exec sleep 600`)
	var before outputWait
	d.JSON(t, &before, "pane", "wait", "--pane", p.ID, "--match", "^100$", "--after", fromStart, "--timeout-ms", "60000")
	if before.Outcome != "matched" || before.matchedLine(t) != "100" || before.Lines[0] != "1" || before.Omitted != 0 {
		t.Fatalf("want rows 1..100 from the start: %+v", before)
	}
	var after outputWait
	d.JSON(t, &after, "pane", "wait", "--pane", p.ID, "--send", `\n`, "--match", "^end$", "--timeout-ms", "60000")
	if after.Outcome != "matched" || len(after.Lines) == 0 || after.Lines[0] != "101" || after.Lines[len(after.Lines)-1] != "end" || after.Omitted != 0 {
		t.Fatalf("want rows 101..130 and end only: %+v", after)
	}
}

// Clearing the history (ESC[3J, as clear does) starts a new epoch: every
// row of it counts as changed.
func TestOutputWaitAfterTheHistoryWasClearedSeesTheNewRows(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "clear")
	p := d.Spawn(t, []string{"--workspace", ws.ID}, "sh", "-c", `echo old; read x; printf '\033[H\033[2J\033[3J'; echo new; exec sleep 600`)
	var old outputWait
	d.JSON(t, &old, "pane", "wait", "--pane", p.ID, "--match", "^old$", "--after", fromStart, "--timeout-ms", "60000")
	var cleared outputWait
	d.JSON(t, &cleared, "pane", "wait", "--pane", p.ID, "--send", `\n`, "--match", "^new$", "--timeout-ms", "60000")
	if cleared.Outcome != "matched" || cleared.matchedLine(t) != "new" || cleared.Epoch == old.Epoch || slices.Contains(cleared.Lines, "old") {
		t.Fatalf("want new in a new epoch: %+v (before: epoch %d)", cleared, old.Epoch)
	}
}

// SendInput's reply carries the screen's baseline unless baseline is
// false (an attached client's keystrokes); the input is written either way.
func TestSendInputLeavesOutTheBaselineWhenAskedTo(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "keys")
	p := d.Spawn(t, []string{"--workspace", ws.ID}, "cat")
	var with, without map[string]json.RawMessage
	d.VarlinkCall(t, "dev.signaltty.Mux.SendInput", map[string]any{"pane": p.ID, "text": "one\n"}, &with)
	if len(with["baseline"]) == 0 || with["written"] == nil {
		t.Fatalf("the default reply has written and baseline: %v", with)
	}
	d.VarlinkCall(t, "dev.signaltty.Mux.SendInput", map[string]any{"pane": p.ID, "text": "two\n", "baseline": false}, &without)
	if _, ok := without["baseline"]; ok || string(without["written"]) != "4" {
		t.Fatalf("baseline false: want written 4 and no baseline, got %v", without)
	}
	var w outputWait
	d.JSON(t, &w, "pane", "wait", "--pane", p.ID, "--match", `^two$`, "--after", fromStart, "--timeout-ms", "30000")
	if w.Outcome != "matched" {
		t.Fatalf("the input of baseline false reached the program: %+v", w)
	}
}

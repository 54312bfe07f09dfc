package tests

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// Recording the real agents' terminal output for the agent-workload
// benchmarks (tests/bench/streams/README.md): each agent runs in a
// 120×40 pane under `script`, which writes what the agent prints to its
// terminal and when, in `script --log-timing`'s classic format (lines of
// "DELAY BYTES"; scriptreplay reads it). Only with
// SIGNALTTY_RECORD_STREAMS=DIR (tests/bench/streams/record.sh); the
// agents are SIGNALTTY_RECORD_AGENTS (space-separated, default claude codex
// pi opencode).

// streamSize is the recorded terminal's size.
var streamSize = [2]string{"120", "40"}

// streamIdle is how long the recording stays at an idle prompt after
// start-up and after the last answer: part of what is recorded, not a wait
// for anything.
const streamIdle = 8 * time.Second

// streamAnswer is the long answer: 60 numbered paragraphs, lists and a code
// block, streamed in the model server's chunks.
func streamAnswer() string {
	var b strings.Builder
	b.WriteString("# Overview of the workspace\n\n")
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "## Part %d\n\nThe module number %d reads its input, checks every field against the schema and writes the result to the journal; errors carry a stable code.\n\n", i, i)
		fmt.Fprintf(&b, "- step %d.a: parse the header\n- step %d.b: validate the body\n- step %d.c: commit the record\n\n", i, i, i)
		if i%5 == 0 {
			fmt.Fprintf(&b, "```go\nfunc part%d(in []byte) (Record, error) {\n\tvar r Record\n\tif err := json.Unmarshal(in, &r); err != nil {\n\t\treturn Record{}, err\n\t}\n\treturn r, nil\n}\n```\n\n", i)
		}
	}
	b.WriteString("That is the end of the overview.")
	return b.String()
}

func TestRecordAgentStreams(t *testing.T) {
	dir := os.Getenv("SIGNALTTY_RECORD_STREAMS")
	if dir == "" {
		t.Skip("records the agents' streams for tests/bench only: SIGNALTTY_RECORD_STREAMS=DIR (tests/bench/streams/record.sh)")
	}
	kinds := strings.Fields(os.Getenv("SIGNALTTY_RECORD_AGENTS"))
	if len(kinds) == 0 {
		kinds = []string{"claude", "codex", "pi", "opencode"}
	}
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) { recordAgentStream(t, kind, dir) })
	}
}

// recordAgentStream records one agent: its start, an idle prompt, a turn
// whose shell tool call (approved when the agent asks) runs 20 s under the
// agent's spinner, a long answer and an idle prompt again. It writes
// DIR/KIND.data.gz (script's output file) and DIR/KIND.timing.gz, and
// DIR/KIND.phases (seconds since the start, one phase a line).
func recordAgentStream(t *testing.T, kind, dir string) {
	a := realAgents[kind]
	w := newRealWorld(t, kind, nil,
		harness.Turn{Prompt: "stream-tool", Steps: []harness.Step{
			{Text: "Running the check now.", Tool: a.shell, Input: a.shellInput("sleep 20; echo check-passed")},
			{Text: "The check finished after twenty seconds: check-passed."}}},
		harness.Say("stream-answer", streamAnswer()))
	// opencode 1.18 asks github.com (refused by the proxy) during a session
	// this long; what it draws does not depend on the answer.
	w.model.Tolerate("github.com")
	ws := w.workspace(t, "proj")
	rec := harness.TempDir(t)
	data, timing := filepath.Join(rec, "data"), filepath.Join(rec, "timing")
	var r struct {
		Pane agentPane `json:"pane"`
	}
	release := startSlot(t)
	defer release()
	w.d.JSON(t, &r, "pane", "spawn", "--workspace", ws, "--cols", streamSize[0], "--rows", streamSize[1], "--",
		"script", "-q", "-f", "-T", timing, "-O", data, "-c", a.command)
	pane := r.Pane.ID
	t0 := time.Now()
	var phases strings.Builder
	phase := func(name string) { fmt.Fprintf(&phases, "%.3f %s\n", time.Since(t0).Seconds(), name) }
	phase("start")
	w.waitReady(t, pane)
	release()
	phase("idle")
	time.Sleep(streamIdle)
	phase("tool-call")
	w.prompt(t, pane, "stream-tool")
	approve(t, w, pane, "stream-tool")
	w.waitScreen(t, pane, "check-passed.")
	phase("long-answer")
	w.prompt(t, pane, "stream-answer")
	w.waitScreen(t, pane, "end of the overview")
	phase("idle")
	time.Sleep(streamIdle)
	phase("end")
	w.d.Kill(t, pane)
	for _, f := range []struct{ from, to string }{{data, kind + ".data.gz"}, {timing, kind + ".timing.gz"}} {
		b, err := os.ReadFile(f.from)
		if err != nil {
			t.Fatal(err)
		}
		var z bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		zw.Write(b)
		zw.Close()
		if err := os.WriteFile(filepath.Join(dir, f.to), z.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes (%d compressed)", f.to, len(b), z.Len())
	}
	if err := os.WriteFile(filepath.Join(dir, kind+".phases"), []byte(phases.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

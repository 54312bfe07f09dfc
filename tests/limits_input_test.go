package tests

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// Input past a pane's rate (SIGNALTTY_INPUT_BYTES_PER_SECOND) is refused
// whole, unavailable.input_rate with retry_after_ms, through the CLI and
// varlinkctl; input past the size of one call (SIGNALTTY_INPUT_MAX_BYTES)
// is invalid_params.size. Neither writes a byte.
func TestInputPastTheRateOrSizeIsRefusedWhole(t *testing.T) {
	t.Parallel()
	d := harness.Start(t, harness.Options{Env: []string{"SIGNALTTY_INPUT_BYTES_PER_SECOND=10", "SIGNALTTY_INPUT_MAX_BYTES=600"}})
	w := d.CreateWorkspace(t, "limits-input")
	p := d.Spawn(t, ws(w), "cat")

	e := harness.CheckFail(t, d.CLIInput(t, bytes.Repeat([]byte("x"), 601), "--json", "pane", "send", "--pane", p.ID, "--stdin"), "invalid_params.size", exitInvalid)
	if e.Data["max"] != float64(600) {
		t.Errorf("size refusal data %v, want max 600", e.Data)
	}
	d.Send(t, p.ID, strings.Repeat("a", 599)+`\r`) // the whole bucket (600), refilled at 10 bytes a second
	e = d.Fail(t, "unavailable.input_rate", exitUnavailable, "pane", "send", "--pane", p.ID, "--text", strings.Repeat("b", 99)+`\r`)
	if e.Data["bytes_per_second"] != float64(10) || e.Data["retry_after_ms"].(float64) <= 0 {
		t.Errorf("rate refusal data %v", e.Data)
	}
	data := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("c", 99) + "\r"))
	r := harness.VarlinkctlOf(d).Call(t, "dev.signaltty.Mux.SendInput", map[string]any{"pane": p.ID, "data": data})
	if r.Err == nil || r.Err.Code != "unavailable.input_rate" {
		t.Errorf("varlinkctl SendInput past the rate: %s", r)
	}
	// Once the bucket refilled, input goes through again; the refused
	// bytes never reached the program.
	harness.Eventually(t, harness.PollTimeout, "the bucket refills", func() (bool, string) {
		r := d.CLI(t, "--json", "pane", "send", "--pane", p.ID, "--text", "ddd\\r")
		return r.Code == 0, r.String()
	})
	c := d.WaitCapture(t, p.ID, "ddd echoed", func(c harness.Capture) bool { return c.Contains("ddd") })
	if !c.Contains("aaaa") || c.Contains("bbb") || c.Contains("ccc") {
		t.Errorf("what the program got:\n%s", c.Dump())
	}
}

// A program that does not read its input (its PTY's input buffer full)
// holds up only the calls that write to it: another pane keeps answering,
// and the stalled call ends timeout.input with what was written.
func TestStalledPaneDoesNotBlockOtherPanes(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "limits-stall")
	stalled := d.Spawn(t, ws(w), "sh", "-c", "stty raw -echo; echo ready; exec sleep 1000")
	d.WaitLine(t, stalled.ID, "ready")
	other := d.Spawn(t, ws(w), "cat")

	done := make(chan harness.Result, 1)
	go func() {
		// 1 MiB: far more than a PTY's input buffer holds.
		done <- d.CLIInput(t, bytes.Repeat([]byte("z"), 1<<20), "--json", "pane", "send", "--pane", stalled.ID, "--stdin")
	}()
	for i, word := range []string{"first", "second", "third"} {
		d.Send(t, other.ID, word+`\r`)
		d.WaitLine(t, other.ID, word)
		if i == 0 {
			d.Status(t) // the daemon answers too
		}
	}
	r := <-done
	e := harness.CheckFail(t, r, "timeout.input", harness.ExitStatusOf("timeout.input"))
	if wr, _ := e.Data["written"].(float64); wr <= 0 || wr >= 1<<20 {
		t.Errorf("stalled send wrote %v bytes, want some but not all", e.Data["written"])
	}
	// Still: the stalled pane takes signals and is killed at once.
	d.Kill(t, stalled.ID)
	d.Send(t, other.ID, `after\r`)
	d.WaitLine(t, other.ID, "after")
}

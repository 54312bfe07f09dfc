package tests

// Waiting on a pane's agent state (docs/agents.md, "Waiting") through the
// CLI and varlinkctl: a baseline from pane get, a state reached and left
// again after it, a timeout, a baseline that a restart invalidated.

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

func TestPaneWaitOnAgentState(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	dir := harness.TempDir(t)
	d := harness.Start(t, harness.Options{Dir: dir})
	ws := d.CreateWorkspace(t, "wait").ID
	p := d.Spawn(t, []string{"--workspace", ws}, "sleep", "600")
	var got struct {
		Pane struct {
			WaitBaseline json.RawMessage `json:"wait_baseline"`
		} `json:"pane"`
	}
	d.JSON(t, &got, "pane", "get", "--pane", p.ID)
	base := string(got.Pane.WaitBaseline)
	if !strings.Contains(base, `"instance"`) {
		t.Fatalf("pane get has no wait baseline: %s", base)
	}
	// The pane asks for input, then is seen: both after the baseline.
	d.JSON(t, &struct{}{}, "notify", "--pane", p.ID, "--title", "approve?", "--severity", "error")
	d.JSON(t, &struct{}{}, "pane", "mark-seen", "--pane", p.ID)

	var w struct {
		Outcome       string `json:"outcome"`
		TransitionSeq int64  `json:"transition_seq"`
		Attention     string `json:"attention"`
	}
	d.JSON(t, &w, "pane", "wait", "--pane", p.ID, "--until", "error,input_required", "--after", base)
	if w.Outcome != "error" || w.TransitionSeq == 0 || w.Attention != "none" {
		t.Fatalf("wait after the baseline: %+v", w)
	}
	r := d.Varlinkctl(t, "call", "dev.signaltty.Mux.Wait", `{"pane":"`+p.ID+`","until":["seen"],"after":`+base+`}`)
	if r.Code != 0 || !strings.Contains(r.Stdout, `"outcome" : "seen"`) && !strings.Contains(r.Stdout, `"outcome":"seen"`) {
		t.Fatalf("varlinkctl wait: %s", r)
	}
	d.Fail(t, "timeout.wait", 7, "pane", "wait", "--pane", p.ID, "--until", "permission_required", "--timeout-ms", "100")
	d.Fail(t, "invalid_params.until", 2, "pane", "wait", "--pane", p.ID, "--until", "sleepy")

	// A restart: the baseline names a process of the previous daemon.
	d.Stop(t)
	d = harness.Start(t, harness.Options{Dir: dir})
	d.Fail(t, "conflict.identity_changed", 5, "pane", "wait", "--pane", p.ID, "--until", "error", "--after", base)
}

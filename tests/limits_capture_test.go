package tests

import (
	"strconv"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// A capture whose lines would be more than SIGNALTTY_CAPTURE_MAX_BYTES
// fails invalid_params.range (reason too_large) through the CLI and
// varlinkctl, naming the limit and fit_end, the end of what fits; the
// rows up to fit_end are then captured whole.
func TestCapturePastTheReplyLimitFailsNamingWhatFits(t *testing.T) {
	t.Parallel()
	d := harness.Start(t, harness.Options{Env: []string{"SIGNALTTY_CAPTURE_MAX_BYTES=1000"}})
	w := d.CreateWorkspace(t, "limits-capture")
	p := d.Spawn(t, ws(w), "sh", "-c", "seq 50; echo done; exec sleep 100") // 80×24: a screen's lines take 24×83 bytes in a reply
	harness.Eventually(t, harness.PollTimeout, "output", func() (bool, string) {
		r := d.CLI(t, "--json", "pane", "capture", "--pane", p.ID, "--start", "40", "--end", "51")
		return r.Code == 0 && strings.Contains(r.Stdout, `"done`), r.String()
	})
	for _, tr := range harness.Both(d) {
		r := tr.Call(t, "dev.signaltty.Mux.CaptureRows", map[string]any{"pane": p.ID}, "pane", "capture", "--pane", p.ID)
		if r.Err == nil || r.Err.Code != "invalid_params.range" || tr.Name == "cli" && r.Exit != exitInvalid {
			t.Fatalf("screen capture via %s past 1000 bytes: %s", tr.Name, r)
		}
		data := r.Err.Data
		if data["reason"] != "too_large" || data["max_bytes"] != float64(1000) {
			t.Errorf("via %s: data %v", tr.Name, data)
		}
		end, fit := int64(data["end"].(float64)), int64(data["fit_end"].(float64))
		if first := end - 24; fit != first+12 {
			t.Errorf("via %s: fit_end %d, want %d (12 lines of 83 bytes from %d)", tr.Name, fit, first+12, first)
		}
	}
	c := d.Capture(t, p.ID, "--start", "27", "--end", "39")
	if len(c.Lines) != 12 || c.First != 27 {
		t.Errorf("12 rows within the limit: first %d, %d lines", c.First, len(c.Lines))
	}
	d.Fail(t, "invalid_params.range", exitInvalid, "pane", "capture", "--pane", p.ID, "--start", "27", "--end", strconv.Itoa(40))
}

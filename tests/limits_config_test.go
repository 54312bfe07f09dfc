package tests

import (
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// limitsReply is Server.GetConfig's limits member.
type limitsReply struct {
	Config struct {
		Limits               map[string]int64 `json:"limits"`
		EmulatorReleaseMs    *int64           `json:"emulator_release_ms"`
		SaveOutputIntervalMs *int64           `json:"save_output_interval_ms"`
	} `json:"config"`
}

// The limits and the settings read at start are what GetConfig reports: a variable that is
// set gives its value, one that is unset or invalid the default, through
// the CLI (text and JSON) and varlinkctl alike.
func TestConfigShowsTheLimitsInForce(t *testing.T) {
	t.Parallel()
	d := harness.Start(t, harness.Options{Env: []string{
		"SIGNALTTY_MAX_PANES=7",
		"SIGNALTTY_REQUEST_TIMEOUT_MS=3000",
		"SIGNALTTY_HISTORY_BYTES=1048576",
		"SIGNALTTY_EVENT_QUEUE=lots", // invalid: logged, the default kept
		"SIGNALTTY_EMULATOR_RELEASE_MS=5000",
		"SIGNALTTY_SAVE_OUTPUT_INTERVAL_MS=0",
	}})
	want := map[string]int64{
		"max_panes":              7,
		"input_max_bytes":        1 << 20,
		"input_bytes_per_second": 4 << 20,
		"event_queue":            4096,
		"capture_max_bytes":      4 << 20,
		"history_bytes":          1 << 20,
		"history_total_bytes":    1 << 30,
		"request_budget_bytes":   64 << 20,
		"request_timeout_ms":     3000,
		"max_connections":        1024,
	}
	check := func(how string, r limitsReply) {
		t.Helper()
		if e, o := r.Config.EmulatorReleaseMs, r.Config.SaveOutputIntervalMs; e == nil || *e != 5000 || o == nil || *o != 0 {
			t.Errorf("%s: emulator_release_ms %v, save_output_interval_ms %v; want 5000 and 0", how, e, o)
		}
		got := r.Config.Limits
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: limits.%s = %d, want %d (all: %v)", how, k, got[k], v, got)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d limits, want %d: %v", how, len(got), len(want), got)
		}
	}
	var cli limitsReply
	d.JSON(t, &cli, "config", "get")
	check("signaltty --json config get", cli)
	var vc limitsReply
	d.VarlinkCall(t, "dev.signaltty.Server.GetConfig", struct{}{}, &vc)
	check("varlinkctl call Server.GetConfig", vc)

	text := d.CLI(t, "config", "get").Stdout
	for _, line := range []string{"limits.max_panes 7", "limits.request_timeout_ms 3000", "limits.event_queue 4096", "emulator_release_ms 5000", "save_output_interval_ms 0"} {
		if !strings.Contains(text, line+"\n") {
			t.Errorf("signaltty config get lacks %q:\n%s", line, text)
		}
	}
	if !strings.Contains(d.Stderr(), "ignoring SIGNALTTY_EVENT_QUEUE") {
		t.Errorf("the invalid SIGNALTTY_EVENT_QUEUE was not logged:\n%s", d.Stderr())
	}
}

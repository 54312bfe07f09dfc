package tests

import (
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// Flags that would be ignored in a combination fail invalid_params.usage
// (exit 2) instead of doing something else than asked.
func TestFlagsThatWouldBeIgnoredAreUsageErrors(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	d.Fail(t, "invalid_params.usage", exitInvalid, "events", "--after", "5")
	// Without --json (Fail adds it) the snapshot would not be printed.
	if r := d.CLI(t, "events", "--follow", "--snapshot"); r.Code != exitInvalid || !strings.Contains(r.Stderr, "invalid_params.usage") {
		t.Errorf("events --follow --snapshot without --json: %s", r)
	}
	d.Fail(t, "invalid_params.usage", exitInvalid, "events", "--snapshot")
	d.Fail(t, "invalid_params.usage", exitInvalid, "config", "set")
}

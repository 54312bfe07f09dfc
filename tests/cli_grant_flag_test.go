package tests

import (
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// An empty --grant is a syntax error, not a request for no grants: the
// spawn is refused and leaves no pane behind.
func TestEmptyGrantFlagIsRefused(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "grant-flag").ID
	d.Fail(t, "invalid_params.grants", exitInvalid, "pane", "spawn", "--workspace", ws, "--grant", "", "--", "sleep", "100")
	d.Fail(t, "invalid_params.grants", exitInvalid, "run", "--key", "empty-grant", "--workspace", ws, "--grant", "", "--", "true")
	if n := len(d.ListPanes(t, "--workspace", ws)); n != 0 {
		t.Errorf("%d panes after refused spawns", n)
	}
}

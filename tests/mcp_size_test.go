package tests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// makeLike prints what a small make prints: 40 compiler lines and a link.
const makeLike = `i=0; while [ $i -lt 40 ]; do i=$((i+1)); echo "cc -O2 -c src/m$i.c -o obj/m$i.o"; done; echo "cc -o app obj/*.o && ./app --check <in >out"`

// An MCP result of a make-like run is several times smaller than the
// `signaltty --json` line of the same call (what MCP returned before it
// trimmed rows and left fields out), the more so the wider the pane: at
// least 5× in a 200-column pane (docs/mcp.md, "Small results" has the
// figures); <, > and & come as themselves.
func TestMCPRunWaitOfMakeLikeOutputIsSmall(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	m := d.StartMCP(t, nil, "--wait-cap-ms", "20000")
	ws := d.CreateWorkspace(t, "size")
	for _, c := range []struct{ cols, minRatio int }{{80, 2}, {200, 5}} {
		r := m.Call(t, "run", map[string]any{"key": fmt.Sprint("make-", c.cols), "workspace": ws.ID, "cols": c.cols, "rows": 50, "shell": makeLike})
		var st struct{ Run, Pane string }
		decodeText(t, r, &st)
		small := m.Call(t, "run_wait", map[string]any{"run": st.Run})
		before := strings.TrimSuffix(d.CLI(t, "--json", "run", "wait", "--run", st.Run).Stdout, "\n")
		if small.IsError || !strings.Contains(small.Text, `"state":"completed"`) || !strings.Contains(before, `"state":"completed"`) {
			t.Fatalf("run_wait: %s / %s", small.Text, before)
		}
		if !strings.Contains(small.Text, "<in >out") || strings.Contains(small.Text, `\u003c`) {
			t.Fatalf("HTML escapes in the result: %s", small.Text)
		}
		for _, f := range []string{`"run":`, `"pane":`, `"outcome":"succeeded"`, `"status":0`, `"complete":true`} {
			if !strings.Contains(small.Text, f) {
				t.Fatalf("run_wait lacks %s: %s", f, small.Text)
			}
		}
		t.Logf("%d columns: run_wait %d bytes, the --json line %d (%.1f×)", c.cols, len(small.Text), len(before), float64(len(before))/float64(len(small.Text)))
		capSmall := m.Call(t, "pane_capture", map[string]any{"pane": st.Pane})
		capBefore := strings.TrimSuffix(d.CLI(t, "--json", "pane", "capture", "--pane", st.Pane).Stdout, "\n")
		t.Logf("%d columns: pane_capture of the 50-row screen %d bytes, the --json line %d (%.1f×)", c.cols, len(capSmall.Text), len(capBefore), float64(len(capBefore))/float64(len(capSmall.Text)))
		if len(capSmall.Text)*c.minRatio > len(capBefore) {
			t.Errorf("%d columns: pane_capture %d bytes against %d of --json, want at least %d× smaller", c.cols, len(capSmall.Text), len(capBefore), c.minRatio)
		}
		if len(small.Text)*c.minRatio > len(before) {
			t.Errorf("%d columns: run_wait %d bytes against %d of --json, want at least %d× smaller", c.cols, len(small.Text), len(before), c.minRatio)
		}
	}
}

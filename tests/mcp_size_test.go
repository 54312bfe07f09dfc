package tests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// makeLike prints what a small make prints: 40 compiler lines and a link.
const makeLike = `i=0; while [ $i -lt 40 ]; do i=$((i+1)); echo "cc -O2 -c src/m$i.c -o obj/m$i.o"; done; echo "cc -o app obj/*.o && ./app --check <in >out"`

// MCP asks rows without trailing spaces: a run_wait result of make-like
// output is several times smaller than the padded rows, the more so the
// wider the pane (docs/mcp.md, "Small results" has the figures), and <, >
// and & come as themselves.
func TestMCPRunWaitOfMakeLikeOutputIsSmall(t *testing.T) {
	d := harness.Start(t)
	m := d.StartMCP(t, nil, "--wait-cap-ms", "20000")
	ws := d.CreateWorkspace(t, "size")
	for _, c := range []struct{ cols, minRatio int }{{80, 2}, {200, 4}} {
		r := m.Call(t, "run", map[string]any{"key": fmt.Sprint("make-", c.cols), "workspace": ws.ID, "cols": c.cols, "rows": 50, "shell": makeLike})
		var st struct{ Run string }
		decodeText(t, r, &st)
		small := m.Call(t, "run_wait", map[string]any{"run": st.Run})
		padded := m.Call(t, "run_wait", map[string]any{"run": st.Run, "trim": false})
		if small.IsError || padded.IsError || !strings.Contains(small.Text, `"state":"completed"`) {
			t.Fatalf("run_wait: %s / %s", small.Text, padded.Text)
		}
		if !strings.Contains(small.Text, "<in >out") || strings.Contains(padded.Text, `\u003c`) {
			t.Fatalf("HTML escapes in the results: %s", small.Text)
		}
		t.Logf("%d columns: run_wait text %d bytes padded, %d trimmed (%.1f×)", c.cols, len(padded.Text), len(small.Text), float64(len(padded.Text))/float64(len(small.Text)))
		var rec struct{ Record struct{ Pane string } }
		decodeText(t, small, &rec)
		capSmall := m.Call(t, "pane_capture", map[string]any{"pane": rec.Record.Pane})
		capPadded := m.Call(t, "pane_capture", map[string]any{"pane": rec.Record.Pane, "trim": false})
		t.Logf("%d columns: pane_capture of the 50-row screen %d bytes padded, %d trimmed (%.1f×)", c.cols, len(capPadded.Text), len(capSmall.Text), float64(len(capPadded.Text))/float64(len(capSmall.Text)))
		if len(capSmall.Text)*c.minRatio > len(capPadded.Text) {
			t.Fatalf("%d columns: pane_capture %d bytes trimmed against %d padded", c.cols, len(capSmall.Text), len(capPadded.Text))
		}
		if len(small.Text)*c.minRatio > len(padded.Text) {
			t.Fatalf("%d columns: %d bytes trimmed against %d padded, want at least %d× smaller", c.cols, len(small.Text), len(padded.Text), c.minRatio)
		}
	}
}

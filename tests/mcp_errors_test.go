package tests

import (
	"bufio"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// A notification given a workspace and a pane of another workspace is
// refused, not filed under the pane's workspace.
func TestNotifyWithAnotherWorkspacesPaneIsRefused(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	a, b := d.CreateWorkspace(t, "a"), d.CreateWorkspace(t, "b")
	p := d.Spawn(t, []string{"--workspace", a.ID}, "sleep", "60")
	r := d.CLI(t, "--json", "notify", "--pane", p.ID, "--workspace", b.ID, "--title", "hi")
	if r.Code != 2 || !strings.Contains(r.Stdout, `"code":"invalid_params.workspace"`) || !strings.Contains(r.Stdout, `"reason":"mismatch"`) {
		t.Fatalf("notify with another workspace's pane: exit %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	if r := d.CLI(t, "--json", "notify", "--pane", p.ID, "--workspace", a.ID, "--title", "hi"); r.Code != 0 {
		t.Fatalf("notify with the pane's own workspace: exit %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
}

// Errors reach MCP callers naming the tool's parameters, not only the
// CLI's flags.
func TestMCPErrorsNameTheParametersOfTheTool(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	m := d.StartMCP(t, nil)
	ws := d.CreateWorkspace(t, "live")
	d.Spawn(t, []string{"--workspace", ws.ID}, "sleep", "60")
	r := m.Call(t, "workspace_remove", map[string]any{"workspace": ws.ID})
	if errCode(t, r) != "conflict.pane_live" || !strings.Contains(r.Text, "recursive") || strings.Contains(r.Text, "or --recursive") {
		t.Fatalf("workspace_remove of a live workspace: %s", r.Text)
	}
	r = m.Call(t, "run", map[string]any{"key": "nope", "workspace": ws.ID, "argv": []string{"no-such-program-xyz"}})
	if errCode(t, r) != "unavailable.spawn" || !strings.Contains(r.Text, "env parameter") {
		t.Fatalf("run of a program not on PATH: %s", r.Text)
	}
}

// Replayed across a daemon restart, the text output of events says where
// the source changed.
func TestEventsTextOutputPrintsTheSourceChangeOfARestart(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	d.CreateWorkspace(t, "before")
	d.Stop(t)
	d2 := harness.Start(t, harness.Options{Dir: d.Dir})
	d2.CreateWorkspace(t, "after")
	var st struct{ Status struct{ Source string } }
	d2.JSON(t, &st, "status")
	cmd := exec.Command(harness.Bin(t, "signaltty"), "events", "--follow", "--after", "0")
	cmd.Env = d2.ClientEnv()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var seen []string
	deadline := time.After(harness.CallTimeout)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("events ended: %q", seen)
			}
			seen = append(seen, l)
			if strings.Contains(l, "workspace.created") && strings.Contains(l, `"after"`) {
				for i, s := range seen {
					if s == "source "+st.Status.Source+" (the daemon restarted; seq numbers go on)" {
						if i == 0 || !strings.Contains(strings.Join(seen[:i], "\n"), `"before"`) {
							t.Fatalf("the source line is not between the two daemons' events: %q", seen)
						}
						return
					}
				}
				t.Fatalf("no source line for the restart: %q", seen)
			}
		case <-deadline:
			t.Fatalf("no event of the second daemon: %q", seen)
		}
	}
}

package tests

// The default grants of a pane's principal fit an agent's work
// (docs/security.md, "Default grants"): it runs commands and starts panes
// in new tabs of its own workspace, drives what it started and what that
// started in turn, and nothing of other workspaces or of other panes.

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// runRecordOf decodes a `run wait` reply ({"record": …}).
func runRecordOf(t *testing.T, text string) harness.RunRecord {
	t.Helper()
	var r struct {
		Record harness.RunRecord `json:"record"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(text)), &r); err != nil {
		t.Fatalf("decoding %q: %v", text, err)
	}
	return r.Record
}

func TestAgentRunsInItsOwnWorkspaceByDefault(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "agent").ID
	other := d.CreateWorkspace(t, "other").ID
	agent := d.NewInPane(t, "--workspace", ws)

	t.Run("CLI run into its own workspace", func(t *testing.T) {
		var st harness.RunStart
		agent.JSON(t, &st, runArgs("own-ws", []string{"--workspace", ws}, "echo", "own-ws-output")...)
		if st.Principal != "pane:"+agent.Pane.ID || st.Workspace != ws || st.Tab == agent.Pane.Tab {
			t.Errorf("the run is %+v, want the agent's, in a new tab of %s", st, ws)
		}
		r := agent.CLI(t, "", "--json", "run", "wait", "--run", st.Run, "--timeout-ms", "20000")
		if r.Code != 0 {
			t.Fatalf("the agent cannot wait for its own run:\n%s", r)
		}
		harness.WantOutcome(t, runRecordOf(t, r.Stdout), "succeeded", harness.Ptr(0), "", "", 0)
	})
	t.Run("CLI run into another workspace is denied", func(t *testing.T) {
		w := d.TakeWorld(t)
		agent.Fail(t, "denied.spawn", 4, runArgs("other-ws", []string{"--workspace", other}, "true")...)
		agent.Fail(t, "denied.spawn", 4, "pane", "spawn", "--workspace", other, "--", "true")
		w.Unchanged(t, "run into another workspace")
		d.KeyFree(t, "other-ws")
	})
	t.Run("MCP run into its own workspace", func(t *testing.T) {
		m := agent.StartMCP(t)
		st := m.Call(t, "run", map[string]any{"key": "mcp-own", "workspace": ws, "argv": []string{"echo", "mcp-own-output"}})
		if st.IsError {
			t.Fatalf("MCP run into the agent's own workspace: %s", st.Text)
		}
		var start harness.RunStart
		if err := json.Unmarshal([]byte(st.Text), &start); err != nil {
			t.Fatalf("MCP run started %s (%v)", st.Text, err)
		}
		// run_list keeps whole records (docs/mcp.md, "Small results").
		var listed struct{ Runs []harness.RunRecord }
		if l := m.Call(t, "run_list", map[string]any{"key": "mcp-own"}); json.Unmarshal([]byte(l.Text), &listed) != nil || len(listed.Runs) != 1 || listed.Runs[0].Principal != "pane:"+agent.Pane.ID {
			t.Fatalf("MCP run started %s, listed %s: want the agent's principal", st.Text, l.Text)
		}
		w := m.Call(t, "run_wait", map[string]any{"run": start.Run, "timeout_ms": 20000})
		if w.IsError {
			t.Fatalf("MCP run_wait of its own run: %s", w.Text)
		}
		harness.WantOutcome(t, runRecordOf(t, w.Text), "succeeded", harness.Ptr(0), "", "", 0)
		if code := errCode(t, m.Call(t, "run", map[string]any{"key": "mcp-other", "workspace": other, "argv": []string{"true"}})); code != "denied.spawn" {
			t.Errorf("MCP run into another workspace: %s, want denied.spawn", code)
		}
	})
	t.Run("a pane in a new tab of its workspace, not in another's tab", func(t *testing.T) {
		mine := agent.Spawn(t, []string{"--workspace", ws}, "sleep", "100")
		if mine.Tab == agent.Pane.Tab {
			t.Errorf("pane spawn --workspace put the pane in the agent's own tab")
		}
		theirs := d.Spawn(t, []string{"--workspace", ws}, "sleep", "100")
		t.Cleanup(func() { d.CLI(t, "pane", "kill", "--pane", theirs.ID, "--grace-ms", "200") })
		agent.Fail(t, "denied.spawn", 4, "pane", "spawn", "--tab", theirs.Tab, "--", "true")
		agent.Fail(t, "denied.write", 4, "pane", "kill", "--pane", theirs.ID)
		agent.Fail(t, "denied.read", 4, "pane", "capture", "--pane", theirs.ID)
		if r := agent.CLI(t, "", "pane", "kill", "--pane", mine.ID, "--grace-ms", "200"); r.Code != 0 {
			t.Errorf("the agent cannot kill the pane it started:\n%s", r)
		}
	})
	t.Run("creator rights are transitive", func(t *testing.T) {
		child := d.NewInPaneBy(t, func(argv []string) harness.Pane { return agent.Spawn(t, []string{"--workspace", ws}, argv...) })
		grandchild := child.Spawn(t, []string{"--workspace", ws}, "sh", "-c", "echo grandchild-here; exec sleep 100")
		d.WaitLine(t, grandchild.ID, "grandchild-here")
		if r := agent.CLI(t, "", "pane", "capture", "--pane", grandchild.ID); r.Code != 0 || !strings.Contains(r.Stdout, "grandchild-here") {
			t.Errorf("the agent cannot read what its pane's principal started:\n%s", r)
		}
		stranger := d.NewInPane(t, "--workspace", ws)
		stranger.Fail(t, "denied.write", 4, "pane", "kill", "--pane", grandchild.ID)
		child.Fail(t, "denied.write", 4, "pane", "kill", "--pane", agent.Pane.ID) // rights go down, never up
		if r := agent.CLI(t, "", "pane", "kill", "--pane", grandchild.ID, "--grace-ms", "200"); r.Code != 0 {
			t.Errorf("the agent cannot kill what its pane's principal started:\n%s", r)
		}
	})
}

// workspace create --grant gives the first pane's principal those grants,
// within the caller's own.
func TestWorkspaceCreateGrantsTheFirstPane(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	var created struct {
		Workspace harness.Workspace `json:"workspace"`
	}
	ip := d.NewInPaneBy(t, func(argv []string) harness.Pane {
		var r struct {
			Pane harness.Pane `json:"pane"`
		}
		d.JSON(t, &r, append([]string{"workspace", "create", "--name", "granted", "--cwd", d.Home, "--grant", "read:*", "--"}, argv...)...)
		created.Workspace.ID = r.Pane.Workspace
		return r.Pane
	})
	var who harness.WhoAmI
	ip.JSON(t, &who, "whoami")
	if len(who.Grants) != 1 || who.Grants[0].Right != "read" || who.Grants[0].Scope != "*" {
		t.Errorf("the first pane's grants are %+v, want read on *", who.Grants)
	}
	ip.Fail(t, "denied.spawn", 4, runArgs("no-spawn", []string{"--workspace", created.Workspace.ID}, "true")...)
	// A pane cannot give what it does not hold; grants need a program.
	agent := d.NewInPane(t, "--workspace", created.Workspace.ID, "--grant", "spawn:workspace:*")
	w := d.TakeWorld(t)
	agent.Fail(t, "denied.delegation", 4, "workspace", "create", "--name", "x", "--grant", "admin:*", "--", "true")
	d.Fail(t, "invalid_params.grants", 2, "workspace", "create", "--name", "y", "--grant", "read:*")
	w.Unchanged(t, "refused workspace create --grant")
}

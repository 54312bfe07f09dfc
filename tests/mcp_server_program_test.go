package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// `signaltty mcp` is the program signaltty-mcp (docs/mcp.md, "The server
// program"): the CLI replaces itself with it, so the process an agent
// started is the server, and it ends with status 0 when the client closes
// its input.
func TestMCPCommandBecomesTheServerProgram(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	cmd := exec.Command(harness.Bin(t, "signaltty"), "mcp")
	cmd.Env = d.ClientEnv()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	want := harness.Bin(t, "signaltty-mcp")
	harness.Eventually(t, harness.CallTimeout, "signaltty mcp's process runs signaltty-mcp", func() (bool, string) {
		return harness.Runs(cmd.Process.Pid, want)
	})
	in.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("signaltty-mcp after the client closed its input: %v", err)
		}
	case <-time.After(harness.CallTimeout):
		cmd.Process.Kill()
		t.Fatal("signaltty-mcp did not end when its input closed")
	}
}

// Without its program (signaltty-mcp, signaltty-attach) next to the CLI,
// in its libexec directory or in $PATH, the command that replaces itself
// with it fails unavailable (exit 6) and says where it looked, with
// --json and on stderr.
func TestCommandWithoutItsProgramFailsUnavailable(t *testing.T) {
	t.Parallel()
	dir := harness.TempDir(t)
	cli := filepath.Join(dir, "signaltty")
	b, err := os.ReadFile(harness.Bin(t, "signaltty"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cli, b, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + filepath.Join(dir, "empty"), "HOME=" + dir, "SIGNALTTY_NO_AUTOSTART=1"}
	for _, c := range []struct {
		args          []string
		program, code string
	}{
		{[]string{"mcp"}, "signaltty-mcp", "unavailable.mcp_server"},
		{[]string{"attach", "--tab"}, "signaltty-attach", "unavailable.attach_viewer"},
	} {
		r := harness.Run(t, env, cli, append([]string{"--json"}, c.args...)...)
		var e struct {
			Error struct {
				Code string
				Data struct{ Searched []string }
			}
		}
		if r.Code != exitUnavailable || json.Unmarshal([]byte(r.Stdout), &e) != nil || e.Error.Code != c.code ||
			!slices.Contains(e.Error.Data.Searched, dir) {
			t.Errorf("%v: want %s (exit 6) naming %s:\n%s", c.args, c.code, dir, r)
		}
		r = harness.Run(t, env, cli, c.args...)
		if r.Code != exitUnavailable || !strings.Contains(r.Stderr, c.program) || !strings.Contains(r.Stderr, "("+c.code+")") {
			t.Errorf("%v: want the error on stderr:\n%s", c.args, r)
		}
	}
}

package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
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
		exe, err := os.Readlink("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/exe")
		return err == nil && exe == want, exe
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

// Without signaltty-mcp next to the CLI, in its libexec directory or in
// $PATH, `signaltty mcp` fails unavailable.mcp_server (exit 6) and says
// where it looked.
func TestMCPWithoutTheServerProgramFailsUnavailable(t *testing.T) {
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
	r := harness.Run(t, env, cli, "--json", "mcp")
	var e struct {
		Error struct {
			Code string
			Data struct{ Searched []string }
		}
	}
	if r.Code != 6 || json.Unmarshal([]byte(r.Stdout), &e) != nil || e.Error.Code != "unavailable.mcp_server" ||
		!slices.Contains(e.Error.Data.Searched, dir) {
		t.Fatalf("want unavailable.mcp_server (exit 6) naming %s:\n%s", dir, r)
	}
	r = harness.Run(t, env, cli, "mcp")
	if r.Code != 6 || !strings.Contains(r.Stderr, "signaltty-mcp") || !strings.Contains(r.Stderr, "(unavailable.mcp_server)") {
		t.Fatalf("want the error on stderr:\n%s", r)
	}
}

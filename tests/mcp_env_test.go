package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/signaltty/signaltty/tests/harness"
)

// userRunDir makes /run/user/<uid> for the test when it is missing (as
// logind would at login) and returns it; it skips when that directory is
// someone else's or a daemon of the real user already listens in it.
func userRunDir(t *testing.T) string {
	t.Helper()
	dir := fmt.Sprintf("/run/user/%d", os.Getuid())
	fi, err := os.Lstat(dir)
	switch {
	case os.IsNotExist(err):
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Skipf("cannot make %s as logind would (%v): the test needs the user's runtime directory", dir, err)
		}
		if err := os.Chmod(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
	case err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0:
		t.Skipf("%s is not a private directory (%v, %v): not the user's runtime directory", dir, err, fi)
	default:
		if _, err := os.Stat(filepath.Join(dir, "signaltty", "dev.signaltty")); err == nil {
			t.Skipf("a real signaltty socket is in %s: the test would use the user's own daemon", dir)
		}
		t.Cleanup(func() { os.RemoveAll(filepath.Join(dir, "signaltty")) })
	}
	return dir
}

// statusOf calls status through an MCP session and returns the daemon's
// pid, address and state directory.
func statusOf(t *testing.T, s *mcp.ClientSession) (pid int, address, stateDir string) {
	t.Helper()
	m := &harness.MCP{Session: s}
	r := m.Call(t, "status", nil)
	var st struct {
		Status struct {
			Pid         int
			Address     string
			Persistence struct {
				StateDir string `json:"state_dir"`
			}
		}
	}
	decodeText(t, r, &st)
	return st.Status.Pid, st.Status.Address, st.Status.Persistence.StateDir
}

// MCP clients start their servers with a few variables only (the
// Inspector HOME, PATH, SHELL, TERM; Codex HOME, LANG, PATH, SHELL, TERM).
// Without XDG_RUNTIME_DIR the server must still find the user's socket in
// /run/user/<uid>: every such client and the user's own CLI reach one
// daemon, with one state directory.
func TestMCPWithATrimmedEnvironmentReachesTheUsersDaemon(t *testing.T) {
	rt := userRunDir(t)
	tmpSocket := fmt.Sprintf("/tmp/signaltty-%d/dev.signaltty", os.Getuid())
	_, err := os.Stat(tmpSocket)
	tmpBefore := err == nil
	home := harness.TempDir(t)
	path := "PATH=" + os.Getenv("PATH")
	user := []string{"HOME=" + home, path, "XDG_RUNTIME_DIR=" + rt}
	t.Cleanup(func() {
		harness.Run(t, append(user, "SIGNALTTY_NO_AUTOSTART=1"), harness.Bin(t, "signaltty"), "shutdown")
	})

	// The first client, with HOME and PATH only, starts the daemon.
	first := harness.StartMCPWith(t, harness.Bin(t, "signaltty"), []string{"HOME=" + home, path})
	pid, address, stateDir := statusOf(t, first)
	wantAddr := "unix:" + filepath.Join(rt, "signaltty", "dev.signaltty")
	wantState := filepath.Join(home, ".local", "state", "signaltty")
	if address != wantAddr || stateDir != wantState {
		t.Fatalf("the daemon listens on %s with state %s; want %s and %s", address, stateDir, wantAddr, wantState)
	}
	for name, env := range map[string][]string{
		"Inspector": {"HOME=" + home, path, "SHELL=/bin/sh", "TERM=xterm-256color"},
		"Codex":     {"HOME=" + home, "LANG=C.UTF-8", path, "SHELL=/bin/sh", "TERM=xterm-256color"},
	} {
		if p, a, _ := statusOf(t, harness.StartMCPWith(t, harness.Bin(t, "signaltty"), env)); p != pid || a != address {
			t.Fatalf("%s's environment reached daemon %d at %s, not %d at %s", name, p, a, pid, address)
		}
	}
	// The user's CLI, with the whole environment and no autostart, reaches
	// the same one; whoami names it.
	r := harness.Run(t, append(user, "SIGNALTTY_NO_AUTOSTART=1"), harness.Bin(t, "signaltty"), "--json", "whoami")
	var who struct {
		Address  string `json:"address"`
		StateDir string `json:"state_dir"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &who); err != nil || who.Address != address || who.StateDir != stateDir {
		t.Fatalf("the user's CLI: %s %s (%v)", r.Stdout, r.Stderr, err)
	}
	text := harness.Run(t, append(user, "SIGNALTTY_NO_AUTOSTART=1"), harness.Bin(t, "signaltty"), "status")
	if !strings.Contains(text.Stdout, "address: "+address) || !strings.Contains(text.Stdout, "state directory: "+stateDir) {
		t.Fatalf("status does not name the address and state directory:\n%s", text.Stdout)
	}
	if _, err := os.Stat(tmpSocket); err == nil && !tmpBefore {
		t.Fatalf("a second daemon's socket appeared: %s", tmpSocket)
	}
}

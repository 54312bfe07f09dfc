package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// TestWatchdogRestartsAWedgedDaemon: with WatchdogSec= the daemon feeds the
// watchdog only while its state can be taken (docs/systemd.md, "Watchdog");
// wedged through the test hook, systemd kills it and starts it again
// (Restart=on-failure covers it), and the CLI reaches the new one.
func TestWatchdogRestartsAWedgedDaemon(t *testing.T) {
	t.Parallel()
	m := harness.StartUserManager(t)
	hooks := harness.TempDir(t)
	dropIn := filepath.Join(m.Units, "signaltty.service.d")
	if err := os.MkdirAll(dropIn, 0o755); err != nil {
		t.Fatal(err)
	}
	conf := "[Service]\nExecStart=\nExecStart=" + harness.HooksBin(t) + "\nWatchdogSec=2s\nEnvironment=SIGNALTTY_TEST_HOOKS=" + hooks + "\n"
	if err := os.WriteFile(filepath.Join(dropIn, "test.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	m.Systemctl(t, "daemon-reload")
	if r := m.CLI(t, "status"); r.Code != 0 {
		t.Fatalf("status:\n%s", r)
	}
	first := m.MainPID(t)
	if first == 0 {
		t.Fatal("signaltty.service has no main pid after the CLI call")
	}
	if got := m.Show(t, "signaltty.service", "WatchdogUSec"); got != "2s" {
		t.Fatalf("WatchdogUSec=%s, want 2s", got)
	}
	os.WriteFile(filepath.Join(hooks, "wedge-state"), nil, 0o600)
	harness.Eventually(t, harness.PollTimeout, "the daemon wedged its state", func() (bool, string) {
		b, err := os.ReadFile(filepath.Join(hooks, "reached-wedge-state"))
		return err == nil && string(b) == strconv.Itoa(first), string(b)
	})
	os.Remove(filepath.Join(hooks, "wedge-state")) // the next daemon runs normally
	harness.Eventually(t, 4*harness.PollTimeout, "systemd restarted the wedged daemon", func() (bool, string) {
		pid := m.MainPID(t)
		state := m.Show(t, "signaltty.service", "ActiveState")
		return pid != 0 && pid != first && state == "active", "pid " + strconv.Itoa(pid) + " " + state
	})
	if n := m.Show(t, "signaltty.service", "NRestarts"); n == "0" {
		t.Fatalf("NRestarts=%s after the watchdog restart", n)
	}
	r := m.CLI(t, "--json", "status")
	var st struct{ Status struct{ Pid int } }
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &st) != nil || st.Status.Pid == first || st.Status.Pid == 0 {
		t.Fatalf("the CLI must reach the restarted daemon (not pid %d):\n%s", first, r)
	}
	if log, _ := os.ReadFile(m.Log); !strings.Contains(string(log), "Watchdog timeout") {
		t.Errorf("the manager log does not show the watchdog timeout")
	}
}

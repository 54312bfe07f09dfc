package tests

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// TestIdleExitOfASocketActivatedDaemon: with exit_idle_after_s
// (SIGNALTTY_EXIT_IDLE_AFTER_S) a socket-activated daemon without clients,
// live panes or runs exits cleanly; the socket stays and the next CLI call
// starts it again (docs/systemd.md, "Idle exit").
func TestIdleExitOfASocketActivatedDaemon(t *testing.T) {
	t.Parallel()
	m := harness.StartUserManager(t)
	dropIn := filepath.Join(m.Units, "signaltty.service.d")
	if err := os.MkdirAll(dropIn, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dropIn, "idle.conf"), []byte("[Service]\nEnvironment=SIGNALTTY_EXIT_IDLE_AFTER_S=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m.Systemctl(t, "daemon-reload")
	if r := m.CLI(t, "status"); r.Code != 0 {
		t.Fatalf("status:\n%s", r)
	}
	first := m.MainPID(t)
	harness.Eventually(t, harness.PollTimeout, "the idle daemon exited", func() (bool, string) {
		st := m.Show(t, "signaltty.service", "ActiveState")
		return st == "inactive", st
	})
	if res := m.Show(t, "signaltty.service", "Result"); res != "success" {
		t.Fatalf("the idle exit ended with Result=%s", res)
	}
	if st := m.Show(t, "signaltty.socket", "ActiveState"); st != "active" {
		t.Fatalf("signaltty.socket is %s after the idle exit", st)
	}
	if r := m.CLI(t, "status"); r.Code != 0 {
		t.Fatalf("status after the idle exit:\n%s", r)
	}
	if pid := m.MainPID(t); pid == 0 || pid == first {
		t.Fatalf("the next call did not start a new daemon (pid %d, first %d)", pid, first)
	}
}

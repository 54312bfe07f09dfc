package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// A client whose environment points at another address (here another
// XDG_RUNTIME_DIR, with another XDG_STATE_HOME) while the user's daemon
// answers at the user's address starts its own daemon only saying so on
// standard error, naming both addresses and state directories; status then
// names the second daemon's address and state directory. A client that
// reaches the user's daemon, or an already running second one, says
// nothing (docs/systemd.md, "A second daemon").
func TestAutostartBesideTheUsersDaemonSaysItStartsASecondOne(t *testing.T) {
	rt := userRunDir(t)
	home := harness.TempDir(t)
	path := "PATH=" + os.Getenv("PATH")
	user := []string{"HOME=" + home, path, "XDG_RUNTIME_DIR=" + rt}
	t.Cleanup(func() {
		harness.Run(t, append(user, "SIGNALTTY_NO_AUTOSTART=1"), harness.Bin(t, "signaltty"), "shutdown")
	})
	cli := harness.Bin(t, "signaltty")
	first := harness.Run(t, user, cli, "status")
	if first.Code != 0 || strings.Contains(first.Stderr, "second") {
		t.Fatalf("starting the user's daemon: %s", first)
	}
	userAddr := "unix:" + filepath.Join(rt, "signaltty", "dev.signaltty")
	userState := filepath.Join(home, ".local", "state", "signaltty")

	otherRun, otherState := harness.TempDir(t), harness.TempDir(t)
	if err := os.Chmod(otherRun, 0o700); err != nil {
		t.Fatal(err)
	}
	other := []string{"HOME=" + home, path, "XDG_RUNTIME_DIR=" + otherRun, "XDG_STATE_HOME=" + otherState}
	t.Cleanup(func() {
		harness.Run(t, append(other, "SIGNALTTY_NO_AUTOSTART=1"), cli, "shutdown")
	})
	otherAddr := "unix:" + filepath.Join(otherRun, "signaltty", "dev.signaltty")
	second := harness.Run(t, other, cli, "status")
	if second.Code != 0 {
		t.Fatalf("the second client: %s", second)
	}
	for _, want := range []string{"starting a second one", otherAddr, filepath.Join(otherState, "signaltty"), userAddr, userState} {
		if !strings.Contains(second.Stderr, want) {
			t.Errorf("the warning lacks %q:\n%s", want, second.Stderr)
		}
	}
	if !strings.Contains(second.Stdout, "address: "+otherAddr) || !strings.Contains(second.Stdout, "state directory: "+filepath.Join(otherState, "signaltty")) {
		t.Errorf("status does not name the second daemon's address and state directory:\n%s", second.Stdout)
	}
	if again := harness.Run(t, other, cli, "status"); again.Code != 0 || again.Stderr != "" {
		t.Errorf("a call to the running second daemon: %s", again)
	}
	if again := harness.Run(t, user, cli, "whoami"); again.Code != 0 || again.Stderr != "" || !strings.Contains(again.Stdout, userAddr) ||
		!strings.Contains(again.Stdout, userState) {
		t.Errorf("whoami of the user's daemon: %s", again)
	}
}

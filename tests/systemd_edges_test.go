package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// The edges of the units under a real private user manager
// (docs/systemd.md, "Autostart" and "Crashes and restarts").

// TestUnloadableSocketUnitIsAClearErrorNotAnUnmanagedDaemon: with
// signaltty.socket masked, or not loadable for a bad setting, the CLI fails
// naming the unit and the command that fixes it, and starts no daemon
// outside the manager. Only a unit the manager does not know means "no
// user manager".
func TestUnloadableSocketUnitIsAClearErrorNotAnUnmanagedDaemon(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		set  func(t *testing.T, m *harness.UserManager)
		want []string
	}{
		{"masked", func(t *testing.T, m *harness.UserManager) {
			// systemctl --user mask refuses while units/' copy is in
			// $XDG_CONFIG_HOME/systemd/user; user.control comes first.
			control := filepath.Join(filepath.Dir(m.Units), "user.control")
			if err := os.MkdirAll(control, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("/dev/null", filepath.Join(control, "signaltty.socket")); err != nil {
				t.Fatal(err)
			}
		}, []string{"signaltty.socket is masked", "systemctl --user unmask signaltty.socket"}},
		{"bad setting", func(t *testing.T, m *harness.UserManager) {
			// A socket unit without any Listen= cannot be loaded.
			if err := os.WriteFile(filepath.Join(m.Units, "signaltty.socket"), []byte("[Socket]\nSocketMode=0600\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, []string{"cannot load signaltty.socket (LoadState bad-setting)", "systemctl --user daemon-reload"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := harness.StartUserManager(t)
			c.set(t, m)
			m.Systemctl(t, "daemon-reload")
			if got, want := m.Show(t, "signaltty.socket", "LoadState"), strings.Fields(c.name)[0]; !strings.HasPrefix(strings.ReplaceAll(got, "-", " "), want) {
				t.Fatalf("signaltty.socket's LoadState is %s, want %s", got, c.name)
			}
			r := m.CLI(t, "--json", "status")
			if r.Code == 0 {
				t.Fatalf("status succeeded, so a daemon runs outside the manager (pids %v):\n%s", m.Daemons(), r)
			}
			for _, w := range append(c.want, `"code":"unavailable.daemon"`) {
				if !strings.Contains(r.Stdout, w) {
					t.Errorf("the error lacks %q:\n%s", w, r)
				}
			}
			if pids := m.Daemons(); len(pids) != 0 {
				t.Fatalf("signalttyd runs (pids %v) although the socket unit cannot start", pids)
			}
		})
	}
}

// TestTrippedStartLimitIsNamedWithItsReset: a hand-started signalttyd
// holding the state directory makes every socket-activated start fail;
// once those starts trip the manager's start limit the CLI says so and how
// to reset it, instead of starting the socket again into a lost
// connection. After the reset the next call reaches a daemon.
func TestTrippedStartLimitIsNamedWithItsReset(t *testing.T) {
	t.Parallel()
	m := harness.StartUserManager(t)
	// A small, slow limit: 3 starts within 5 minutes, whatever the load.
	dropIn := filepath.Join(m.Units, "signaltty.service.d")
	if err := os.MkdirAll(dropIn, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dropIn, "limit.conf"), []byte("[Unit]\nStartLimitIntervalSec=300\nStartLimitBurst=3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m.Systemctl(t, "daemon-reload")
	m.Systemctl(t, "start", "signaltty.socket")
	// The stray daemon serves another path and holds the state directory.
	stray := exec.Command(harness.Bin(t, "signalttyd"))
	stray.Env = append(m.Env(), "SIGNALTTY_LOGIND=0", "SIGNALTTY_ADDRESS=unix:"+filepath.Join(m.Dir, "stray.sock"))
	stray.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := stray.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stray.Process.Kill(); stray.Wait() }()
	harness.Eventually(t, harness.ReadyTimeout, "the stray daemon holds the state directory", func() (bool, string) {
		c, err := os.ReadFile(filepath.Join(m.Dir, "state", "signaltty", "lock"))
		return err == nil && strings.Contains(string(c), "pid "+strconv.Itoa(stray.Process.Pid)+"\n"), string(c)
	})
	var seen []string
	tripped := false
	for i := 0; i < 8 && !tripped; i++ {
		r := m.CLI(t, "--json", "status")
		if r.Code == 0 {
			t.Fatalf("call %d reached a daemon while the stray one holds the state directory:\n%s", i, r)
		}
		seen = append(seen, strings.TrimSpace(r.Stdout))
		tripped = strings.Contains(r.Stdout, "start limit")
		if strings.Contains(r.Stdout, "connection to signalttyd lost") && !tripped {
			t.Errorf("call %d: a lost connection without saying why:\n%s", i, r)
		}
		if tripped {
			for _, w := range []string{"systemctl --user reset-failed signaltty.service signaltty.socket", "journalctl --user -u signaltty.service"} {
				if !strings.Contains(r.Stdout, w) {
					t.Errorf("the start-limit error lacks %q:\n%s", w, r)
				}
			}
		} else if !strings.Contains(r.Stdout, "unavailable.state_directory") && !strings.Contains(r.Stdout, "connection to signalttyd lost") {
			t.Errorf("call %d: want unavailable.state_directory naming the stray daemon until the limit trips:\n%s", i, r)
		}
		if tripped {
			break
		}
		// The refusing daemon answers what arrives within 0.5 s, then
		// exits: each next call is a new start.
		harness.Eventually(t, harness.PollTimeout, "the refusing signalttyd exited", func() (bool, string) {
			st := m.Show(t, "signaltty.service", "ActiveState")
			return st == "failed" || st == "inactive", st
		})
	}
	if !tripped {
		t.Fatalf("no call said the start limit was hit; the errors:\n%s", strings.Join(seen, "\n"))
	}
	stray.Process.Signal(syscall.SIGTERM)
	stray.Wait()
	m.Systemctl(t, "reset-failed", "signaltty.service", "signaltty.socket")
	if r := m.CLI(t, "status"); r.Code != 0 {
		t.Fatalf("after reset-failed, with the stray daemon gone:\n%s", r)
	}
}

// TestKilledDaemonIsStartedAgainByTheManager: kill -9 of the service's
// main process restarts the service by itself (Restart=on-failure), with
// no client call in between.
func TestKilledDaemonIsStartedAgainByTheManager(t *testing.T) {
	t.Parallel()
	m := harness.StartUserManager(t)
	if r := m.CLI(t, "status"); r.Code != 0 {
		t.Fatalf("status:\n%s", r)
	}
	pid := m.MainPID(t)
	if pid == 0 {
		t.Fatal("signaltty.service has no main pid after a call")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, harness.ReadyTimeout, "signaltty.service runs again with a new main pid", func() (bool, string) {
		state, now := m.Show(t, "signaltty.service", "ActiveState"), m.MainPID(t)
		return state == "active" && now != 0 && now != pid, "ActiveState " + state + ", MainPID " + strconv.Itoa(now)
	})
	if n := m.Show(t, "signaltty.service", "NRestarts"); n == "0" {
		t.Errorf("NRestarts is %s after the restart", n)
	}
	if r := m.CLI(t, "status"); r.Code != 0 {
		t.Fatalf("status after the restart:\n%s", r)
	}
}

// TestCrashDumpIsAnErrorInTheJournal: the Go runtime's own output (here
// the goroutine dump of SIGQUIT, as of a panic) reaches the journal at
// priority err, while the daemon's info lines stay info.
func TestCrashDumpIsAnErrorInTheJournal(t *testing.T) {
	t.Parallel()
	m := harness.StartUserManagerIn(t, harness.TempDir(t), harness.WithJournal)
	// The dump is the crash itself: no restart to wait for.
	dropIn := filepath.Join(m.Units, "signaltty.service.d")
	os.MkdirAll(dropIn, 0o755)
	if err := os.WriteFile(filepath.Join(dropIn, "norestart.conf"), []byte("[Service]\nRestart=no\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m.Systemctl(t, "daemon-reload")
	if r := m.CLI(t, "status"); r.Code != 0 {
		t.Fatalf("status:\n%s", r)
	}
	pid := m.MainPID(t)
	if err := syscall.Kill(pid, syscall.SIGQUIT); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, harness.StopTimeout, "the crash's goroutine dump is in the journal at priority err", func() (bool, string) {
		errs := m.Journal(t, "--user-unit", "signaltty.service", "-p", "err")
		return strings.Contains(errs, "goroutine ") && strings.Contains(errs, "SIGQUIT"), errs
	})
	if errs := m.Journal(t, "--user-unit", "signaltty.service", "-p", "err"); strings.Contains(errs, "ready") {
		t.Errorf("the daemon's info line \"ready\" is at priority err too:\n%s", errs)
	}
}

// TestNoSessionBusIsLogged: a daemon under a user manager without a session
// bus says in its log and in doctor that it is not on D-Bus and why.
func TestNoSessionBusIsLogged(t *testing.T) {
	t.Parallel()
	// Where dbus-user-session is installed, the manager would start its
	// dbus.socket: masked here, in the manager's own directory.
	dir := harness.TempDir(t)
	control := filepath.Join(dir, "config", "systemd", "user.control")
	if err := os.MkdirAll(control, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"dbus.socket", "dbus.service"} {
		if err := os.Symlink("/dev/null", filepath.Join(control, u)); err != nil {
			t.Fatal(err)
		}
	}
	m := harness.StartUserManagerIn(t, dir)
	if _, err := os.Stat(filepath.Join(m.Dir, "run", "bus")); err == nil {
		t.Fatal("the manager has a session bus although dbus.socket is masked")
	}
	if r := m.CLI(t, "status"); r.Code != 0 {
		t.Fatalf("status:\n%s", r)
	}
	harness.Eventually(t, harness.PollTimeout, "the daemon logs that it is not on D-Bus", func() (bool, string) {
		b, _ := os.ReadFile(m.Log)
		return strings.Contains(string(b), "no session bus: not on D-Bus") && strings.Contains(string(b), "dbus-user-session"), string(b)
	})
	if r := m.CLI(t, "doctor"); !strings.Contains(r.Stdout, "session bus: none") || !strings.Contains(r.Stdout, "dbus-user-session") {
		t.Errorf("doctor does not say that there is no session bus, and why:\n%s", r)
	}
}

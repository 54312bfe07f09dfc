package harness

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// UserManager is a real private `systemd --user` (user-systemd.sh) with
// signaltty.socket and signaltty.service installed from units/, ExecStart
// pointing at the built signalttyd. Its runtime, config and state
// directories are private; the CLI reaches it through Env (no
// SIGNALTTY_ADDRESS: the default address is the socket unit's path).
type UserManager struct {
	Dir    string
	Units  string // $XDG_CONFIG_HOME/systemd/user
	Log    string // the manager's log (and the units' output)
	Socket string // $XDG_RUNTIME_DIR/signaltty/dev.signaltty
	env    map[string]string

	unmanaged []*exec.Cmd
}

// StartUserManager starts a private user manager for the test and stops it
// at cleanup. It skips the test when this machine cannot run one (no
// systemd binary, not root for the cgroup and mount namespace steps).
func StartUserManager(t testing.TB) *UserManager {
	t.Helper()
	return StartUserManagerIn(t, TempDir(t))
}

// StartUserManagerIn is StartUserManager in dir, which the caller may have
// prepared (e.g. masked units in dir/config/systemd/user, a bus at
// dir/run/bus that the manager then uses as its session bus).
func StartUserManagerIn(t testing.TB, dir string, opts ...ManagerOption) *UserManager {
	t.Helper()
	if _, err := os.Stat("/usr/lib/systemd/systemd"); err != nil {
		t.Skip("needs a real systemd --user: /usr/lib/systemd/systemd is missing")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root for user-systemd.sh (its own cgroup and mount namespace)")
	}
	script := filepath.Join(ModuleRoot(t), "tests", "harness", "user-systemd.sh")
	cmd := exec.Command(script, "start", dir)
	if slices.Contains(opts, WithJournal) {
		cmd.Env = append(os.Environ(), "USD_JOURNAL=1")
	}
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		log, _ := os.ReadFile(filepath.Join(dir, "manager.log"))
		t.Fatalf("user-systemd.sh start: %v\n%s\nmanager log:\n%s", err, stderr, log)
	}
	m := &UserManager{Dir: dir, env: map[string]string{}}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		for _, kv := range strings.Fields(strings.TrimPrefix(sc.Text(), "export ")) {
			if k, v, ok := strings.Cut(kv, "="); ok {
				m.env[k] = v
			}
		}
	}
	m.Units, m.Log = m.env["USD_UNITS"], m.env["USD_LOG"]
	m.Socket = filepath.Join(m.env["XDG_RUNTIME_DIR"], "signaltty", "dev.signaltty")
	t.Cleanup(func() {
		for _, c := range m.unmanaged {
			c.Process.Kill()
		}
		if t.Failed() {
			log, _ := os.ReadFile(m.Log)
			t.Logf("user manager log:\n%s", clip(string(log)))
		}
		exec.Command(script, "stop", dir).Run()
	})
	if !slices.Contains(opts, NoUnits) {
		m.installUnits(t)
	}
	return m
}

// ManagerOption changes StartUserManagerIn.
type ManagerOption int

const (
	// NoUnits: do not install units/ (the test installs them, e.g. with meson).
	NoUnits ManagerOption = iota + 1
	// WithJournal: a private systemd-journald takes the units' output
	// (read it with Journal) instead of the manager's log.
	WithJournal
)

// Journal runs journalctl on the manager's private journal (WithJournal)
// with args (e.g. "--user-unit", "signaltty.service", "-p", "err") and
// returns its output.
func (m *UserManager) Journal(t testing.TB, args ...string) string {
	t.Helper()
	dir := m.env["USD_JOURNAL_DIR"]
	if dir == "" {
		t.Fatal("harness: Journal needs StartUserManagerIn(..., WithJournal)")
	}
	r := RunTimeout(t, CallTimeout, m.Env(), "journalctl", append([]string{"-D", dir, "--no-pager", "-o", "cat"}, args...)...)
	if r.Code != 0 && !strings.Contains(r.Stderr, "No entries") {
		t.Fatalf("journalctl: %s", r)
	}
	return r.Stdout
}

// installUnits writes units/signaltty.{socket,service} with @bindir@ set
// to the built programs' directory, as meson's configure_file does, and
// reloads the manager.
func (m *UserManager) installUnits(t testing.TB) {
	t.Helper()
	root := ModuleRoot(t)
	svc, err := os.ReadFile(filepath.Join(root, "units", "signaltty.service.in"))
	if err != nil {
		t.Fatal(err)
	}
	sock, err := os.ReadFile(filepath.Join(root, "units", "signaltty.socket"))
	if err != nil {
		t.Fatal(err)
	}
	unit := strings.ReplaceAll(string(svc), "@bindir@", BinDir(t))
	unit = strings.ReplaceAll(unit, "@libexecdir@", BinDir(t))
	if err := os.WriteFile(filepath.Join(m.Units, "signaltty.service"), []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(m.Units, "signaltty.socket"), sock, 0o644); err != nil {
		t.Fatal(err)
	}
	m.Systemctl(t, "daemon-reload")
}

// Env is the environment of a client of this manager: its XDG
// directories, HOME, and the built programs first on PATH.
func (m *UserManager) Env() []string {
	env := baseEnv()
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + binDir + ":" + strings.TrimPrefix(kv, "PATH=")
		}
	}
	for k, v := range m.env {
		if strings.HasPrefix(k, "XDG_") || k == "DBUS_SESSION_BUS_ADDRESS" {
			env = append(env, k+"="+v)
		}
	}
	return append(env, "HOME="+m.Dir)
}

// Systemctl runs `systemctl --user args...` and fails the test on a
// non-zero exit.
func (m *UserManager) Systemctl(t testing.TB, args ...string) string {
	t.Helper()
	r := RunTimeout(t, CallTimeout, m.Env(), "systemctl", append([]string{"--user"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("systemctl --user %s:\n%s", strings.Join(args, " "), r)
	}
	return r.Stdout
}

// TrySystemctl is Systemctl without the check.
func (m *UserManager) TrySystemctl(t testing.TB, args ...string) Result {
	t.Helper()
	return RunTimeout(t, CallTimeout, m.Env(), "systemctl", append([]string{"--user"}, args...)...)
}

// Show returns one property of a unit.
func (m *UserManager) Show(t testing.TB, unit, prop string) string {
	t.Helper()
	return strings.TrimSpace(m.Systemctl(t, "show", "-p", prop, "--value", unit))
}

// MainPID is signaltty.service's main pid, 0 when it does not run.
func (m *UserManager) MainPID(t testing.TB) int {
	t.Helper()
	pid, _ := strconv.Atoi(m.Show(t, "signaltty.service", "MainPID"))
	return pid
}

// CLI runs signaltty as a client of this manager (autostart allowed).
func (m *UserManager) CLI(t testing.TB, args ...string) Result {
	t.Helper()
	return RunTimeout(t, CallTimeout, m.Env(), Bin(t, "signaltty"), args...)
}

// StartUnmanaged starts signalttyd by hand, outside the manager, the way
// the CLI's fallback autostart does (own session, same directories). It is
// killed at cleanup if still running.
func (m *UserManager) StartUnmanaged(t testing.TB) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(Bin(t, "signalttyd"))
	cmd.Env = append(m.Env(), "SIGNALTTY_LOGIND=0")
	cmd.Dir = m.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	m.unmanaged = append(m.unmanaged, cmd)
	return cmd
}

// Daemons lists the live (not zombie) signalttyd processes of this test
// binary's build.
func (m *UserManager) Daemons() []int {
	exe := filepath.Join(binDir, "signalttyd")
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ok, _ := Runs(pid, exe); !ok {
			continue
		}
		if stat, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
			if i := strings.LastIndexByte(string(stat), ')'); i > 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
				continue
			}
		}
		if env, err := os.ReadFile("/proc/" + e.Name() + "/environ"); err == nil &&
			!strings.Contains(string(env), "XDG_STATE_HOME="+m.env["XDG_STATE_HOME"]+"\x00") {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// WaitDaemons polls until at most n daemons of this manager's state
// directory are alive, and returns them.
func (m *UserManager) WaitDaemons(t testing.TB, n int) []int {
	t.Helper()
	var pids []int
	Eventually(t, PollTimeout, "at most "+strconv.Itoa(n)+" signalttyd run", func() (bool, string) {
		pids = m.Daemons()
		return len(pids) <= n, "signalttyd pids " + fmtInts(pids)
	})
	return pids
}

func fmtInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return "[" + strings.Join(s, " ") + "]"
}

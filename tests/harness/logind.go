package harness

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// Host-shutdown tests (the daemon's logind monitor) run against a private
// system bus (private-bus.sh) with either the REAL systemd-logind
// (private-logind.sh, in its own mount namespace) or FakeLogind, an
// in-process org.freedesktop.login1 for what the real one cannot do on
// demand (refuse Inhibit, announce a shutdown without going through one).
// With fakesystemd1 on the bus, the real logind runs its whole PowerOff
// protocol (PrepareForShutdown(true), wait for delay inhibitors,
// StartUnit refused, PrepareForShutdown(false)); nothing shuts down.
//
// They need root (mount namespaces, owning org.freedesktop.login1 under the
// system bus policy), dbus-daemon and /usr/lib/systemd/systemd-logind;
// tests/run installs the packages. Like every end-to-end test they never skip.

const (
	login1Name  = "org.freedesktop.login1"
	login1Path  = dbus.ObjectPath("/org/freedesktop/login1")
	login1Iface = "org.freedesktop.login1.Manager"
)

// Inhibitor is one row of logind's ListInhibitors.
type Inhibitor struct {
	What, Who, Why, Mode string
	UID, PID             uint32
}

func (i Inhibitor) String() string {
	return fmt.Sprintf("%s/%s who=%q why=%q uid=%d pid=%d", i.What, i.Mode, i.Who, i.Why, i.UID, i.PID)
}

// LogindEnv is the daemon environment that turns its logind monitor on and
// points it at the private bus address.
func LogindEnv(address string) []string {
	return []string{"SIGNALTTY_LOGIND=1", "DBUS_SYSTEM_BUS_ADDRESS=" + address}
}

func needLogindTools(t testing.TB, real bool) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the logind tests run logind in a private mount namespace, owning org.freedesktop.login1")
	}
	need := []string{"dbus-daemon"}
	if real {
		need = append(need, "busctl", "unshare", "/usr/lib/systemd/systemd-logind")
	}
	for _, p := range need {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("the logind tests need %s (Debian packages dbus, systemd, util-linux; tests/run installs them): %v", p, err)
		}
	}
}

func harnessScript(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(ModuleRoot(t), "tests", "harness", name)
}

// Logind is the real systemd-logind on a private system bus.
type Logind struct {
	*Bus
	Dir      string // private-logind.sh's directory (the bus is in Dir/bus)
	Delay    int    // InhibitDelayMaxSec
	systemd1 *exec.Cmd
	s1done   chan struct{}
}

// LogindOptions configure StartLogind.
type LogindOptions struct {
	// Delay is logind's InhibitDelayMaxSec (default 5).
	Delay int
	// Systemd1 puts fakesystemd1 on the bus first, so that PowerOff runs
	// the inhibitor protocol (without it logind refuses PowerOff).
	Systemd1 bool
	// NotStarted prepares the directories and the address only (a bus and
	// logind that appear later: call Start).
	NotStarted bool
}

// StartLogind starts the real logind on a new private bus; everything is
// stopped at cleanup.
func StartLogind(t testing.TB, o LogindOptions) *Logind {
	t.Helper()
	needLogindTools(t, true)
	dir := filepath.Join(TempDir(t), "l")
	if o.Delay == 0 {
		o.Delay = 5
	}
	l := &Logind{Bus: &Bus{Dir: filepath.Join(dir, "bus"), Address: "unix:path=" + filepath.Join(dir, "bus", "bus")},
		Dir: dir, Delay: o.Delay}
	t.Cleanup(func() { l.Stop(t) })
	if o.Systemd1 {
		fakeSystemd1Bin(t) // built now: Start may be timed
	}
	if !o.NotStarted {
		l.Start(t, o.Systemd1)
	}
	return l
}

// Start starts the bus if it is down, fakesystemd1 when asked, and logind.
func (l *Logind) Start(t testing.TB, systemd1 bool) {
	t.Helper()
	l.Bus.Start(t)
	if systemd1 && l.systemd1 == nil {
		l.startSystemd1(t)
	}
	l.startLogind(t)
}

func (l *Logind) startLogind(t testing.TB) {
	t.Helper()
	env := append(os.Environ(), "PL_DELAY="+strconv.Itoa(l.Delay))
	if r := Run(t, env, "bash", harnessScript(t, "private-logind.sh"), "start", l.Dir); r.Code != 0 {
		t.Fatalf("private-logind.sh start failed:\n%s\nlogind.log:\n%s", r, l.Log())
	}
}

func (l *Logind) startSystemd1(t testing.TB) {
	t.Helper()
	cmd := exec.Command(fakeSystemd1Bin(t))
	cmd.Env = append(os.Environ(), "DBUS_SYSTEM_BUS_ADDRESS="+l.Address)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting fakesystemd1: %v", err)
	}
	l.systemd1, l.s1done = cmd, make(chan struct{})
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sent := false
		for sc.Scan() {
			if !sent && sc.Text() == "READY" {
				ready <- true
				sent = true
			}
		}
		if !sent {
			ready <- false
		}
		cmd.Wait()
		close(l.s1done)
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("fakesystemd1 exited before READY")
		}
	case <-time.After(PollTimeout):
		t.Fatal("fakesystemd1 not ready within", PollTimeout)
	}
}

// LogindPid is the running logind's pid (0 when none).
func (l *Logind) LogindPid() int {
	b, err := os.ReadFile(filepath.Join(l.Dir, "pid"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// StopLogind ends logind only (the bus stays): with Start, a logind restart.
// Its inhibitor state (in its private /run/systemd) goes with it.
func (l *Logind) StopLogind(t testing.TB) {
	t.Helper()
	pid := l.LogindPid()
	if pid == 0 {
		return
	}
	syscall.Kill(pid, syscall.SIGTERM)
	WaitGone(t, PollTimeout, "logind exited", pid)
	os.Remove(filepath.Join(l.Dir, "pid"))
}

// Restart stops logind and starts a new one on the same bus.
func (l *Logind) Restart(t testing.TB) {
	t.Helper()
	l.StopLogind(t)
	l.startLogind(t)
}

// Stop ends logind, fakesystemd1 and the bus (idempotent).
func (l *Logind) Stop(t testing.TB) {
	t.Helper()
	if r := Run(t, os.Environ(), "bash", harnessScript(t, "private-logind.sh"), "stop", l.Dir); r.Code != 0 {
		t.Errorf("private-logind.sh stop failed:\n%s", r)
	}
	if l.systemd1 != nil {
		l.systemd1.Process.Kill()
		<-l.s1done
		l.systemd1 = nil
	}
}

// Log returns logind's output so far.
func (l *Logind) Log() string {
	b, _ := os.ReadFile(filepath.Join(l.Dir, "logind.log"))
	return string(b)
}

// PowerOff calls logind's PowerOff(false), as `busctl call … PowerOff b false`.
func (l *Logind) PowerOff(t testing.TB) {
	t.Helper()
	r := Run(t, os.Environ(), "busctl", "--address="+l.Address, "call", login1Name, string(login1Path), login1Iface, "PowerOff", "b", "false")
	if r.Code != 0 {
		t.Fatalf("PowerOff failed:\n%s\nlogind.log:\n%s", r, l.Log())
	}
}

var (
	s1Once sync.Once
	s1Path string
	s1Err  error
)

// fakeSystemd1Bin builds tests/harness/fakesystemd1 (a module of its own)
// once per test binary, next to the programs under test.
func fakeSystemd1Bin(t testing.TB) string {
	t.Helper()
	s1Once.Do(func() {
		out := filepath.Join(BinDir(t), "fakesystemd1")
		cmd := exec.Command(goTool(), "build", "-o", out, ".")
		cmd.Dir = harnessScript(t, "fakesystemd1")
		cmd.Env = os.Environ()
		if b, err := cmd.CombinedOutput(); err != nil {
			s1Err = fmt.Errorf("go build in %s: %v\n%s", cmd.Dir, err, b)
			return
		}
		s1Path = out
	})
	if s1Err != nil {
		t.Fatalf("harness: building fakesystemd1 failed: %v", s1Err)
	}
	return s1Path
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(os.Getenv("GOROOT"), "bin", "go")
}

// LogindReport is the logind part of Server.GetStatus.
type LogindReport struct {
	State          string  `json:"state"`
	Since          string  `json:"since"`
	Holding        bool    `json:"holding"`
	NextRetryAt    *string `json:"next_retry_at"`
	LastError      *string `json:"last_error"`
	LastErrorAt    *string `json:"last_error_at"`
	InhibitDelayMs *int64  `json:"inhibit_delay_ms"`
	Owner          *string `json:"owner"`
	Inhibits       int     `json:"inhibits"`
	LastSaveAt     *string `json:"last_save_at"`
	LastSaveMs     *int64  `json:"last_save_ms"`
	LastReleaseMs  *int64  `json:"last_release_ms"`
	LastSaveError  *string `json:"last_save_error"`
}

// Logind returns the daemon's logind monitor status (`status --json`).
func (d *Daemon) Logind(t testing.TB) LogindReport {
	t.Helper()
	var r struct {
		Status struct {
			Logind *LogindReport `json:"logind"`
		} `json:"status"`
	}
	line := d.JSON(t, &r, "status")
	if r.Status.Logind == nil {
		t.Fatalf("status has no logind object: %s", line)
	}
	return *r.Status.Logind
}

// WaitLogind polls the daemon's logind status until cond holds.
func (d *Daemon) WaitLogind(t testing.TB, timeout time.Duration, what string, cond func(LogindReport) bool) LogindReport {
	t.Helper()
	var l LogindReport
	Eventually(t, timeout, what, func() (bool, string) {
		l = d.Logind(t)
		b, _ := json.Marshal(l)
		return cond(l), string(b)
	})
	return l
}

// SnapshotFile is what the logind tests read of
// $XDG_STATE_HOME/signaltty/snapshot.json (snapshot/SCHEMA.md).
type SnapshotFile struct {
	Server struct {
		SavedAt string `json:"saved_at"`
		Reason  string `json:"reason"`
	} `json:"server"`
	Panes []struct {
		ID           string   `json:"id"`
		Argv         []string `json:"argv"`
		State        string   `json:"state"`
		RestoreState string   `json:"restore_state"`
		ShutdownSave bool     `json:"shutdown_save"`
	} `json:"panes"`
}

// ReadSnapshot reads the daemon's snapshot.json.
func (d *Daemon) ReadSnapshot(t testing.TB) SnapshotFile {
	t.Helper()
	path := filepath.Join(d.Dir, "state", "signaltty", "snapshot.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the snapshot: %v", err)
	}
	var s SnapshotFile
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("decoding %s: %v", path, err)
	}
	return s
}

// LogTime finds the first line of the daemon's log containing msg and
// returns its time= field (slog text, millisecond precision).
func (d *Daemon) LogTime(t testing.TB, msg string) (time.Time, bool) {
	t.Helper()
	for _, line := range strings.Split(d.Stderr(), "\n") {
		if !strings.Contains(line, msg) || !strings.HasPrefix(line, "time=") {
			continue
		}
		ts, _, _ := strings.Cut(strings.TrimPrefix(line, "time="), " ")
		at, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			t.Fatalf("bad time in log line %q: %v", line, err)
		}
		return at, true
	}
	return time.Time{}, false
}

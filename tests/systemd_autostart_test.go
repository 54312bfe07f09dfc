package tests

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// Autostart and socket activation under a real user manager
// (docs/systemd.md, "Autostart" and "One daemon per state directory").

// world is what a matrix step knows about the daemons it started by hand.
type world struct {
	m         *harness.UserManager
	unmanaged *exec.Cmd // a signalttyd started outside the manager, if running
}

type step struct {
	name string
	do   func(t *testing.T, w *world)
}

func systemctlStep(args ...string) step {
	return step{strings.Join(args, " "), func(t *testing.T, w *world) { w.m.TrySystemctl(t, args...) }}
}

var autostartSteps = []step{
	systemctlStep("start", "signaltty.socket"),
	systemctlStep("stop", "signaltty.socket"),
	systemctlStep("restart", "signaltty.socket"),
	systemctlStep("start", "signaltty.service"),
	systemctlStep("stop", "signaltty.service"),
	systemctlStep("restart", "signaltty.service"),
	{"kill -9 the daemon", func(t *testing.T, w *world) {
		if pid := w.m.MainPID(t); pid > 0 {
			syscall.Kill(pid, syscall.SIGKILL)
		} else if w.unmanaged != nil {
			w.unmanaged.Process.Kill()
			w.waitUnmanaged(t)
		}
	}},
	{"unmanaged signalttyd", func(t *testing.T, w *world) {
		if w.unmanaged != nil {
			return
		}
		w.unmanaged = w.m.StartUnmanaged(t)
		// It either serves (the path was free), or exits at once because
		// the path answers or the state directory is taken.
		harness.Eventually(t, harness.PollTimeout, "the unmanaged signalttyd serves or exits", func() (bool, string) {
			if !alive(w.unmanaged.Process.Pid) {
				w.unmanaged = nil
				return true, ""
			}
			c, err := os.ReadFile(w.m.Dir + "/state/signaltty/lock")
			return err == nil && strings.Contains(string(c), "pid "+strconv.Itoa(w.unmanaged.Process.Pid)+"\n") && socketAnswers(w.m.Socket), string(c)
		})
	}},
	{"signaltty status", func(t *testing.T, w *world) { w.m.CLI(t, "status") }},
	{"SIGTERM the unmanaged signalttyd", func(t *testing.T, w *world) {
		if w.unmanaged != nil {
			w.unmanaged.Process.Signal(syscall.SIGTERM)
			w.waitUnmanaged(t)
		}
	}},
}

func (w *world) waitUnmanaged(t *testing.T) {
	t.Helper()
	pid := w.unmanaged.Process.Pid
	harness.Eventually(t, harness.StopTimeout, "the unmanaged signalttyd exited", func() (bool, string) { return !alive(pid), "" })
	w.unmanaged = nil
}

func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i > 0 && !strings.HasPrefix(string(stat[i+1:]), " Z")
}

func socketAnswers(path string) bool { return dialUnix(path) }

// dialUnix reports whether something accepts connections on path.
func dialUnix(path string) bool {
	c, err := net.DialTimeout("unix", path, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// checkOneDaemon is the matrix's promise: the CLI reaches exactly one
// daemon, or fails with a clear error at once. The only failure expected is
// a state directory held by the unmanaged daemon while the socket unit owns
// the path; the error names it.
func checkOneDaemon(t *testing.T, w *world, after string, slowest *time.Duration) {
	t.Helper()
	r := harness.RunTimeout(t, 20*time.Second, w.m.Env(), harness.Bin(t, "signaltty"), "--json", "status")
	*slowest = max(*slowest, r.Duration)
	if r.Code != 0 {
		var e struct {
			Error struct {
				Code    string         `json:"code"`
				Message string         `json:"message"`
				Data    map[string]any `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &e); err != nil || w.unmanaged == nil ||
			e.Error.Code != "unavailable.state_directory" ||
			!strings.Contains(e.Error.Message, "pid "+strconv.Itoa(w.unmanaged.Process.Pid)) {
			t.Fatalf("after %s: want the status of one daemon, or (only with an unmanaged daemon holding the state directory) an unavailable.state_directory error naming it:\n%s", after, r)
		}
		return
	}
	var reply struct {
		Status harness.Status `json:"status"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &reply); err != nil {
		t.Fatalf("after %s: %v\n%s", after, err, r)
	}
	st := reply.Status
	pids := w.m.WaitDaemons(t, 1)
	if len(pids) != 1 || pids[0] != st.Pid {
		t.Fatalf("after %s: the CLI reached pid %d, the daemons running are %v", after, st.Pid, pids)
	}
	if w.unmanaged != nil && st.Pid != w.unmanaged.Process.Pid {
		t.Fatalf("after %s: the CLI reached pid %d while the unmanaged signalttyd %d holds the state directory", after, st.Pid, w.unmanaged.Process.Pid)
	}
	if w.unmanaged == nil && !st.SocketActivated {
		t.Fatalf("after %s: the CLI reached a daemon that is not socket activated (pid %d): the autostart forked one", after, st.Pid)
	}
}

func (w *world) reset(t *testing.T) {
	t.Helper()
	if w.unmanaged != nil {
		w.unmanaged.Process.Signal(syscall.SIGTERM)
		w.waitUnmanaged(t)
	}
	w.m.TrySystemctl(t, "stop", "signaltty.service", "signaltty.socket")
	w.m.TrySystemctl(t, "reset-failed")
	w.m.WaitDaemons(t, 0)
}

// TestAutostartAndSocketActivationAgree runs every ordered pair of steps
// (unit start/stop/restart, SIGKILL of the daemon, a hand-started daemon,
// CLI calls) and checks after each step that the CLI reaches exactly one
// daemon or fails at once naming the daemon in the way. The pairs that
// begin with one step are a subtest with a user manager of its own, in
// parallel with the others.
func TestAutostartAndSocketActivationAgree(t *testing.T) {
	t.Parallel()
	for _, a := range autostartSteps {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			w := &world{m: harness.StartUserManager(t)}
			var slowest time.Duration
			for _, b := range autostartSteps {
				if testing.Short() && a.name > b.name {
					continue
				}
				w.reset(t)
				a.do(t, w)
				checkOneDaemon(t, w, a.name, &slowest)
				b.do(t, w)
				checkOneDaemon(t, w, a.name+", then "+b.name, &slowest)
			}
			t.Logf("slowest CLI call after a step: %v", slowest)
		})
	}
}

// TestUnmanagedDaemonKeepsTheSocketUnitsPath is the case first found: a
// daemon the CLI started by hand while signaltty.socket was stopped, then
// the socket unit started over it. Stopping the hand-started daemon must
// not remove the socket unit's file, and the CLI must name the daemon in
// the way instead of hanging.
func TestUnmanagedDaemonKeepsTheSocketUnitsPath(t *testing.T) {
	t.Parallel()
	m := harness.StartUserManager(t)
	w := &world{m: m}
	w.unmanaged = m.StartUnmanaged(t)
	harness.Eventually(t, harness.PollTimeout, "the unmanaged daemon answers", func() (bool, string) { return dialUnix(m.Socket), "" })
	m.Systemctl(t, "start", "signaltty.socket")
	var slowest time.Duration
	checkOneDaemon(t, w, "start signaltty.socket over an unmanaged daemon", &slowest)
	w.unmanaged.Process.Signal(syscall.SIGTERM)
	w.waitUnmanaged(t)
	if _, err := os.Stat(m.Socket); err != nil {
		t.Fatalf("the unmanaged daemon removed the socket unit's file at exit: %v", err)
	}
	checkOneDaemon(t, w, "the unmanaged daemon stopped", &slowest)
	if got := m.Show(t, "signaltty.service", "ActiveState"); got != "active" {
		t.Fatalf("signaltty.service is %s, want active", got)
	}
	t.Logf("slowest CLI call: %v", slowest)
}

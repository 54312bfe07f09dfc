package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// signalttyd's own lifetime: status, one daemon per socket, SIGTERM,
// Server.Shutdown, CLI autostart.

func TestDaemonStatus(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "st")
	sleeper(t, d, w)
	e := d.Spawn(t, ws(w), "true")
	d.WaitExited(t, e.ID)

	st := d.Status(t)
	if st.Pid != d.Pid() || st.Address != d.Address || st.SocketActivated || !strings.HasPrefix(st.Source, "signaltty/") ||
		st.Version == "" || st.Workspaces != 1 || st.Tabs != 2 || st.Panes != 2 || st.LivePanes != 1 || st.Seq <= 0 || st.UptimeMs < 0 {
		t.Errorf("status: %+v; want pid %d, address %s, not socket activated, 1 workspace, 2 tabs, 2 panes (1 live)", st, d.Pid(), d.Address)
	}
	if ts, err := time.Parse(time.RFC3339Nano, st.StartedAt); err != nil || time.Since(ts) > time.Hour || time.Until(ts) > time.Minute {
		t.Errorf("started_at %q: %v", st.StartedAt, err)
	}
	r := d.CLI(t, "status")
	if r.Code != 0 || !strings.Contains(r.Stdout, "pid "+strconv.Itoa(d.Pid())) || !strings.Contains(r.Stdout, d.Address) {
		t.Errorf("human status:\n%s", r)
	}
	// The daemon's socket is private to its user.
	if fi, err := os.Stat(d.Socket); err != nil || fi.Mode().Perm()&0o077 != 0 || fi.Mode().Type() != os.ModeSocket {
		t.Errorf("socket %s: %v %v, want a socket without group or other permissions", d.Socket, fi.Mode(), err)
	}
}

// A second daemon on the same socket refuses to start; the first keeps working.
func TestDaemonSecondInstanceRefused(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "first")
	p := sleeper(t, d, w)
	before := d.Status(t)

	r := harness.RunTimeout(t, 20*time.Second, d.DaemonEnv(), harness.Bin(t, "signalttyd"))
	if r.Code == 0 {
		t.Errorf("a second signalttyd on %s exited 0, want a failure:\n%s", d.Socket, r)
	}
	// It names the first (docs/systemd.md, "One daemon per state directory").
	if msg := r.Stderr + r.Stdout; !strings.Contains(msg, "pid "+strconv.Itoa(d.Pid())) {
		t.Errorf("the second signalttyd does not name the first (pid %d):\n%s", d.Pid(), r)
	}
	r = harness.RunTimeout(t, 20*time.Second, d.DaemonEnv(), harness.Bin(t, "signalttyd"), "--address", d.Address)
	if r.Code == 0 {
		t.Errorf("a second signalttyd with --address %s exited 0:\n%s", d.Address, r)
	}

	if fi, err := os.Lstat(d.Socket); err != nil || fi.Mode().Type() != os.ModeSocket {
		t.Fatalf("the first daemon's socket is gone or replaced: %v", err)
	}
	after := d.Status(t)
	if after.Pid != d.Pid() || after.Source != before.Source || after.Panes != 1 {
		t.Errorf("status after the refused start: %+v, want the first daemon (%s) with its pane", after, before.Source)
	}
	if g := d.GetPane(t, p.ID); g.State != "live" || harness.Gone(p.PID()) {
		t.Errorf("the first daemon's pane: %+v", g)
	}
	run(t, d, bash(t, d, ws(w)).ID, "echo still-working", "still-working")
}

// SIGTERM with live panes: exit 0, panes terminated (their whole process
// groups), socket removed.
func TestDaemonSIGTERMWithLivePanes(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "term")
	a := sleeper(t, d, w)
	b := bash(t, d, ws(w))
	h := d.Spawn(t, ws(w), "bash", "-c", `trap '' HUP; echo ready; exec sleep 100`)
	d.WaitLine(t, h.ID, "ready")
	g := d.Spawn(t, ws(w), "sh", "-c", `sleep 1000 & echo "bg=$!"; wait`)
	c := d.WaitCapture(t, g.ID, "the background pid is printed", func(c harness.Capture) bool { return c.Contains("bg=") })
	bg := 0
	if m := regexp.MustCompile(`bg=(\d+)`).FindStringSubmatch(strings.Join(c.Lines, "\n")); m != nil {
		bg, _ = strconv.Atoi(m[1])
	}
	if bg <= 0 || harness.Gone(bg) {
		t.Fatalf("cannot find the background sleep:\n%s", c.Dump())
	}

	took := d.Stop(t) // asserts exit status 0 and the socket removed
	t.Logf("SIGTERM with 4 live panes (one ignoring SIGHUP): exited after %v", took.Round(time.Millisecond))
	checkGone(t, "after the daemon exited on SIGTERM", a.PID(), b.PID(), h.PID(), g.PID())
	harness.WaitGone(t, harness.PollTimeout, "the background process of a pane is gone", bg)
	if s := d.Stderr(); strings.Contains(s, "panic") || strings.Contains(s, "DATA RACE") {
		t.Errorf("daemon stderr:\n%s", s)
	}
}

// Server.Shutdown through the CLI stops the daemon and its panes.
func TestDaemonShutdownViaCLI(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "shut")
	a := sleeper(t, d, w)
	b := bash(t, d, ws(w))

	if r := d.CLI(t, "shutdown"); r.Code != 0 {
		t.Fatalf("signaltty shutdown:\n%s", r)
	}
	if code := d.WaitExit(t, harness.StopTimeout); code != 0 {
		t.Errorf("daemon exit status after Server.Shutdown: %d, want 0", code)
	}
	d.CheckSocketRemoved(t)
	checkGone(t, "after Server.Shutdown", a.PID(), b.PID())
	// Nobody answers any more, and the CLI (without autostart) says so.
	d.Fail(t, "unavailable.daemon", exitUnavailable, "status")
}

// With no daemon and autostart allowed, the CLI starts signalttyd (from
// next to itself) and its call succeeds.
func TestCLIAutostart(t *testing.T) {
	t.Parallel()
	u := harness.Unstarted(t)
	var env []string
	for _, kv := range u.ClientEnv() {
		if !strings.HasPrefix(kv, "SIGNALTTY_NO_AUTOSTART=") {
			env = append(env, kv)
		}
	}
	// Stop whatever got started, whatever happens below.
	t.Cleanup(func() {
		pids := harness.DaemonsFor(u.Address)
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGTERM)
		}
		harness.WaitGone(t, harness.StopTimeout, "the autostarted daemon exits on SIGTERM", pids...)
		u.CheckSocketRemoved(t)
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(u.Dir, "state", "signaltty", "signalttyd.log"))
			t.Logf("autostarted signalttyd log:\n%s", log)
		}
	})

	// First, with autostart disabled, nothing starts.
	r := harness.Run(t, u.ClientEnv(), harness.Bin(t, "signaltty"), "--json", "status")
	harness.CheckFail(t, r, "unavailable.daemon", exitUnavailable)
	if pids := harness.DaemonsFor(u.Address); len(pids) != 0 {
		t.Fatalf("SIGNALTTY_NO_AUTOSTART=1 and yet a daemon started: %v", pids)
	}

	r = harness.Run(t, env, harness.Bin(t, "signaltty"), "--json", "status")
	if r.Code != 0 {
		t.Fatalf("signaltty status with autostart:\n%s", r)
	}
	var st struct {
		Status harness.Status `json:"status"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil {
		t.Fatalf("status reply: %v\n%s", err, r)
	}
	pids := harness.DaemonsFor(u.Address)
	if len(pids) != 1 || st.Status.Pid != pids[0] || st.Status.Address != u.Address {
		t.Fatalf("autostart: status %+v, daemons for %s: %v; want exactly one, the one that answered", st.Status, u.Address, pids)
	}
	if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pids[0])); err != nil || exe != harness.Bin(t, "signalttyd") {
		t.Errorf("autostarted %q, want the signalttyd next to signaltty (%s)", exe, harness.Bin(t, "signalttyd"))
	}
	// The next call uses the same daemon.
	r = harness.Run(t, env, harness.Bin(t, "signaltty"), "--json", "workspace", "create", "--name", "auto")
	if r.Code != 0 {
		t.Fatalf("second call:\n%s", r)
	}
	if again := harness.DaemonsFor(u.Address); len(again) != 1 || again[0] != pids[0] {
		t.Errorf("after a second call, daemons %v, want only %d", again, pids[0])
	}
}

package tests

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// A pane's child gets TERM, SIGNALTTY_PANE and SIGNALTTY_ADDRESS, the
// daemon's ordinary variables and the requested ones, but none of the
// service manager's plumbing; and it inherits only descriptors 0, 1, 2 (its
// PTY), being a session leader with the PTY as controlling terminal.
func TestChildEnvironmentAndDescriptors(t *testing.T) {
	t.Parallel()
	plumbing := []string{
		// LISTEN_PID names a process that is not the daemon, so the daemon
		// must ignore the activation variables, and must not pass them on.
		fmt.Sprintf("LISTEN_PID=%d", os.Getpid()),
		"LISTEN_FDS=1",
		"LISTEN_FDNAMES=varlink",
		"NOTIFY_SOCKET=/nonexistent/notify",
		"INVOCATION_ID=0123456789abcdef0123456789abcdef",
		"JOURNAL_STREAM=8:12345",
		"WATCHDOG_USEC=1000000",
		"WATCHDOG_PID=1",
	}
	d := harness.Start(t, harness.Options{Env: append(plumbing, "E2E_INHERITED=from-daemon", "TERM=dumb")})
	if st := d.Status(t); st.SocketActivated {
		t.Errorf("daemon with a foreign LISTEN_PID reports socket_activated")
	}
	w := d.CreateWorkspace(t, "env")

	p := d.Spawn(t, append(ws(w), "--env", "E2E_EXTRA=requested value", "--env", "E2E_EMPTY="), "sleep", "100")
	env := harness.Environ(t, p.PID())
	want := map[string]string{
		"SIGNALTTY_PANE":    p.ID,
		"SIGNALTTY_ADDRESS": d.Address,
		"E2E_INHERITED":     "from-daemon",
		"E2E_EXTRA":         "requested value",
		"E2E_EMPTY":         "",
	}
	for k, v := range want {
		if got, ok := env[k]; !ok || got != v {
			t.Errorf("child env %s = %q (set: %v), want %q", k, got, ok, v)
		}
	}
	if term := env["TERM"]; term == "" || term == "dumb" {
		t.Errorf("child TERM = %q, want the daemon's terminal type (not the daemon's own TERM=dumb)", term)
	}
	for _, kv := range plumbing {
		k, _, _ := strings.Cut(kv, "=")
		if v, ok := env[k]; ok {
			t.Errorf("child env has %s=%q; plumbing must not reach panes", k, v)
		}
	}
	if !slices.Contains(p.Env, "E2E_EXTRA") || len(p.Env) != 2 {
		t.Errorf("pane env %v, want exactly the names of the two requested variables", p.Env)
	}

	// Descriptors: only 0, 1 and 2, all the same PTY.
	fds := harness.FDs(t, p.PID())
	if len(fds) != 3 || fds[0] == "" || fds[0] != fds[1] || fds[1] != fds[2] || !strings.HasPrefix(fds[0], "/dev/pts/") {
		t.Errorf("descriptors of the pane's child: %v, want only 0, 1, 2 on one /dev/pts/N", fds)
	}

	// Session and process group leader with a controlling terminal.
	proc, ok := harness.ReadProc(p.PID())
	if !ok || proc.Session != p.PID() || proc.Pgrp != p.PID() || proc.TtyNr == 0 || proc.Ppid != d.Pid() {
		t.Errorf("pane leader: %s; want its own session and process group, a controlling tty, parent the daemon (%d)", proc, d.Pid())
	}

	// Through a shell too: what the program itself sees.
	b := bash(t, d, ws(w))
	run(t, d, b.ID, `echo "pane=$SIGNALTTY_PANE"`, "pane="+b.ID)
	run(t, d, b.ID, `echo "listen=${LISTEN_PID-unset}/${NOTIFY_SOCKET-unset}/${INVOCATION_ID-unset}/${JOURNAL_STREAM-unset}"`, "listen=unset/unset/unset/unset")
}

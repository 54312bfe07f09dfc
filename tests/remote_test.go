package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// Remote daemons (docs/remote.md): the CLI and the MCP server reach a
// daemon through the system's ssh, with ssh-exec:HOST:COMMAND (varlink on
// the remote command's stdio: signaltty bridge) and ssh-unix:HOST:/PATH
// (ssh -W to the daemon's socket). The sshd is a private one on 127.0.0.1.

// remoteCLI runs `signaltty --json args...` with a remote address and
// returns its one output line and exit status.
func remoteCLI(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	r := harness.Run(t, env, harness.Bin(t, "signaltty"), append([]string{"--json"}, args...)...)
	if strings.Count(r.Stdout, "\n") != 1 {
		t.Fatalf("want one line of JSON:\n%s", r)
	}
	return strings.TrimSuffix(r.Stdout, "\n"), r.Code
}

// checkRemoteRun starts, waits for and captures a run through a remote
// address, and checks every reply against the local CLI's for the same
// request: the same daemon answers both, so they are equal byte for byte.
func checkRemoteRun(t *testing.T, d *harness.Daemon, env []string) {
	t.Helper()
	ws := d.CreateWorkspace(t, "remote")
	line, code := remoteCLI(t, env, "run", "--key", "remote-1", "--workspace", ws.ID, "--", "sh", "-c", "echo from afar; exit 4")
	if code != 0 {
		t.Fatalf("remote run: exit %d: %s", code, line)
	}
	var st struct{ Run, Pane string }
	if err := json.Unmarshal([]byte(line), &st); err != nil || st.Run == "" {
		t.Fatalf("remote run: %s", line)
	}
	wait, code := remoteCLI(t, env, "run", "wait", "--run", st.Run, "--timeout-ms", "20000")
	if code != 4 || !strings.Contains(wait, `"outcome":"failed"`) || !strings.Contains(wait, "from afar") {
		t.Fatalf("remote run wait: exit %d: %s", code, wait)
	}
	if local := strings.TrimSuffix(d.CLI(t, "--json", "run", "wait", "--run", st.Run, "--timeout-ms", "0").Stdout, "\n"); local != wait {
		t.Fatalf("remote and local run wait differ:\nremote %s\nlocal  %s", wait, local)
	}
	capture, code := remoteCLI(t, env, "pane", "capture", "--pane", st.Pane)
	if local := d.JSON(t, nil, "pane", "capture", "--pane", st.Pane); code != 0 || local != capture {
		t.Fatalf("remote and local pane capture differ (exit %d):\nremote %s\nlocal  %s", code, capture, local)
	}
}

func TestRemoteCLIOverSSHExec(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	s := harness.StartSSHD(t, false)
	checkRemoteRun(t, d, s.RemoteEnv(d, s.ExecAddress(t, d)))
}

func TestRemoteCLIOverSSHUnix(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	s := harness.StartSSHD(t, true)
	checkRemoteRun(t, d, s.RemoteEnv(d, s.UnixAddress(d)))
}

func TestRemoteMCPServerOverSSH(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	s := harness.StartSSHD(t, true)
	for i, addr := range []string{s.ExecAddress(t, d), s.UnixAddress(d)} {
		m := d.StartMCP(t, s.RemoteEnv(d, addr))
		ws := d.CreateWorkspace(t, "remote-mcp")
		r := m.Call(t, "run", map[string]any{"key": fmt.Sprintf("remote-mcp-%d", i), "workspace": ws.ID, "argv": []string{"echo", "via", "mcp"}})
		var st struct{ Run, Pane string }
		decodeText(t, r, &st)
		w := m.Call(t, "run_wait", map[string]any{"run": st.Run, "timeout_ms": 20000})
		// MCP asks for trimmed rows (docs/mcp.md), so the CLI does too.
		// MCP leaves some fields out (docs/mcp.md, "Small results").
		if local := mcpView(t, "run_wait", d.JSON(t, nil, "run", "wait", "--trim", "--run", st.Run, "--timeout-ms", "0")); w.IsError || harness.Normalize(t, w.Text) != harness.Normalize(t, local) {
			t.Fatalf("%s: run_wait differs from the local CLI:\nMCP %s\nCLI %s", addr, w.Text, local)
		}
		c := m.Call(t, "pane_capture", map[string]any{"pane": st.Pane})
		if local := d.JSON(t, nil, "pane", "capture", "--trim", "--pane", st.Pane); c.IsError || c.Text != local {
			t.Fatalf("%s: pane_capture differs from the local CLI:\nMCP %s\nCLI %s", addr, c.Text, local)
		}
		d.CLI(t, "workspace", "remove", "--workspace", ws.ID, "--recursive")
	}
}

func TestRemoteSSHFailureIsUnavailableTransport(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	s := harness.StartSSHD(t, false)
	for _, addr := range []string{
		"ssh-exec:" + harness.SSHDownHost + ":signaltty bridge",          // nobody listens
		"ssh-exec:" + harness.SSHHost + ":/nonexistent/signaltty bridge", // no such remote command
		"ssh-unix:" + harness.SSHDownHost + ":/run/x.sock",
	} {
		line, code := remoteCLI(t, s.RemoteEnv(d, addr), "status")
		if code != 6 || !strings.Contains(line, `"code":"unavailable.transport"`) {
			t.Fatalf("%s: want unavailable.transport (exit 6), got exit %d: %s", addr, code, line)
		}
	}
	line, code := remoteCLI(t, s.RemoteEnv(d, "ssh-unix:"+harness.SSHHost+":relative"), "status")
	if code != 6 || !strings.Contains(line, "must be absolute") {
		t.Fatalf("a relative ssh-unix: path: got exit %d: %s", code, line)
	}
}

func TestVarlinkctlReachesTheBridgeOverSSHExec(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	s := harness.StartSSHD(t, false)
	env := append(d.ClientEnv(), s.SSHEnv...)
	r := harness.Run(t, env, harness.Varlinkctl(t), "call", s.ExecAddress(t, d), "dev.signaltty.Server.GetStatus", "{}")
	if r.Code != 0 || !strings.Contains(r.Stdout, `"source"`) {
		t.Fatalf("varlinkctl over ssh-exec:\n%s", r)
	}
}

func TestRemoteSSHUnixWithAnOldClientIsUnavailableTransport(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	dir := harness.TempDir(t)
	old := dir + "/ssh"
	// An OpenSSH 9.2 client takes the socket path of ssh -W for a host and waits.
	if err := os.WriteFile(old, []byte("#!/bin/sh\n[ \"$1\" = -V ] && { echo 'OpenSSH_9.2p1 Debian-2' >&2; exit 0; }\nsleep 60\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	env := append(d.ClientEnv(), "SIGNALTTY_SSH="+old, "SIGNALTTY_ADDRESS=ssh-unix:host:"+d.Socket)
	line, code := remoteCLI(t, env, "status")
	if code != 6 || !strings.Contains(line, `"code":"unavailable.transport"`) || !strings.Contains(line, "OpenSSH 9.4") {
		t.Fatalf("want unavailable.transport naming OpenSSH 9.4, got exit %d: %s", code, line)
	}
}

// Attach through ssh-unix: (docs/remote.md): the attached client shows the
// remote pane, typed keys reach it, the detach key leaves it running.
func TestRemoteAttachOverSSHUnix(t *testing.T) {
	t.Parallel()
	harness.NeedTmux(t)
	d := harness.Start(t)
	s := harness.StartSSHD(t, true)
	w := d.CreateWorkspace(t, "remote-attach")
	p := bash(t, d, ws(w))
	argv := append([]string{"env"}, s.SSHEnv...)
	argv = append(argv, "SIGNALTTY_ADDRESS="+s.UnixAddress(d), harness.Bin(t, "signaltty"), "attach", p.ID)
	m := d.Tmux(t, 80, 24, argv...)
	waitSame(t, d, m, p.ID, "the client attached over ssh shows the pane's screen")
	m.SendText(t, "echo over-$((20+22))")
	m.SendKeys(t, "Enter")
	d.WaitLine(t, p.ID, "over-42")
	waitSame(t, d, m, p.ID, "the screen after typing over ssh")
	m.SendKeys(t, `C-\`)
	m.WaitEnded(t)
	if got := d.GetPane(t, p.ID); got.State != "live" {
		t.Errorf("after detaching over ssh the pane is %s, want live", got.State)
	}
}

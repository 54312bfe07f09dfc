package harness

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// SSHD is a private OpenSSH server on 127.0.0.1 that lets the test's own
// user in with a throwaway key, and a client configuration for it: the
// hosts SSHHost (this server) and SSHDownHost (a port nobody listens on).
type SSHD struct {
	Dir string
	// SSH is a wrapper running the ssh client with this configuration;
	// SSHEnv points signaltty (SIGNALTTY_SSH) and varlinkctl (SYSTEMD_SSH) at it.
	SSH    string
	SSHEnv []string
	cmd    *exec.Cmd
	log    string
}

const (
	SSHHost     = "stt-remote"
	SSHDownHost = "stt-down"
)

// sshClient is the ssh program the tests use: $SIGNALTTY_TEST_SSH (set by
// tests/run, see get-ssh.sh), else the system's. With unixForward the
// client must forward stdio to a remote unix socket (ssh -W /path, OpenSSH
// 9.4 or newer), which ssh-unix: addresses need.
func sshClient(t testing.TB, unixForward bool) string {
	t.Helper()
	p := os.Getenv("SIGNALTTY_TEST_SSH")
	if p == "" {
		var err error
		if p, err = exec.LookPath("ssh"); err != nil {
			t.Fatal("no ssh client: run the suite with tests/run (it installs openssh-client)")
		}
	}
	if unixForward {
		out, _ := exec.Command(p, "-V").CombinedOutput()
		if !regexp.MustCompile(`^OpenSSH_(9\.([4-9]|[1-9][0-9])|[1-9][0-9]+\.)`).Match(out) {
			t.Fatalf("%s is %s; ssh-unix: needs OpenSSH 9.4 or newer: run the suite with tests/run, "+
				"or bash tests/harness/get-ssh.sh DIR and export SIGNALTTY_TEST_SSH=DIR/bin/ssh", p, strings.TrimSpace(string(out)))
		}
	}
	return p
}

// StartSSHD starts sshd in the foreground (stopped at cleanup) and waits
// until a login works. unixForward asks for a client that can reach a
// remote unix socket (see sshClient).
func StartSSHD(t testing.TB, unixForward bool) *SSHD {
	t.Helper()
	sshd := os.Getenv("SIGNALTTY_TEST_SSHD")
	if sshd == "" {
		var err error
		if sshd, err = exec.LookPath("/usr/sbin/sshd"); err != nil {
			t.Fatal("no sshd: run the suite with tests/run (get-sshd.sh unpacks one into the test cache), " +
				"or bash tests/harness/get-sshd.sh DIR and export SIGNALTTY_TEST_SSHD=DIR/bin/sshd")
		}
	}
	client := sshClient(t, unixForward)
	dir := TempDir(t)
	s := &SSHD{Dir: dir, log: filepath.Join(dir, "sshd.log")}
	for _, k := range []string{"host", "user"} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "signaltty-tests", "-f", filepath.Join(dir, k)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
	}
	pub, err := os.ReadFile(filepath.Join(dir, "user.pub"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("authorized_keys", string(pub))
	port, down := freePort(t), freePort(t)
	cfg := write("sshd_config", fmt.Sprintf(`ListenAddress 127.0.0.1:%d
HostKey %[2]s/host
AuthorizedKeysFile %[2]s/authorized_keys
PidFile %[2]s/sshd.pid
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
AllowStreamLocalForwarding yes
`, port, dir))
	clientCfg := write("ssh_config", fmt.Sprintf(`Host %s
  HostName 127.0.0.1
  Port %d
Host %s
  HostName 127.0.0.1
  Port %d
Host *
  User %s
  IdentityFile %s/user
  IdentitiesOnly yes
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  LogLevel ERROR
  BatchMode yes
  ConnectTimeout 10
`, SSHHost, port, SSHDownHost, down, currentUser(t), dir))
	s.SSH = filepath.Join(dir, "ssh")
	if err := os.WriteFile(s.SSH, []byte(fmt.Sprintf("#!/bin/sh\nexec %q -F %q \"$@\"\n", client, clientCfg)), 0o700); err != nil {
		t.Fatal(err)
	}
	s.SSHEnv = []string{"SIGNALTTY_SSH=" + s.SSH, "SYSTEMD_SSH=" + s.SSH}
	s.cmd = sshdCommand(dir, sshd, "-D", "-f", cfg, "-E", s.log)
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(s.log)
			t.Logf("sshd log:\n%s", indent(string(b)))
		}
	})
	deadline := time.Now().Add(ReadyTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), PollTimeout)
		out, err := exec.CommandContext(ctx, s.SSH, SSHHost, "true").CombinedOutput()
		cancel()
		if err == nil {
			return s
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(s.log)
			t.Fatalf("cannot log in to the test sshd: %v\n%s\nsshd log:\n%s", err, out, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// sshdCommand runs sshd. As root, sshd wants its privilege separation
// user (sshd) and directory (/run/sshd), which openssh-server's package
// would add to the system: here they exist only in a private mount
// namespace (a copy of /etc/passwd with the user, a tmpfs on /run), and
// nothing outlives the test. The namespace's shell execs sshd, so the
// command's process is sshd itself.
func sshdCommand(dir, sshd string, args ...string) *exec.Cmd {
	if os.Geteuid() != 0 {
		return exec.Command(sshd, args...)
	}
	script := `set -e
if ! getent passwd sshd >/dev/null; then
  cp /etc/passwd "$0/passwd"
  echo 'sshd:x:65534:65534:sshd privilege separation:/run/sshd:/usr/sbin/nologin' >>"$0/passwd"
  mount -n --bind "$0/passwd" /etc/passwd
fi
if [ ! -d /run/sshd ]; then mount -n -t tmpfs -o mode=755,size=1m tmpfs /run && mkdir -m 755 /run/sshd; fi
exec "$@"`
	return exec.Command("unshare", append([]string{"-m", "--propagation", "private", "sh", "-c", script, dir, sshd}, args...)...)
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func currentUser(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("id", "-un").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// RemoteEnv is the daemon's client environment with SIGNALTTY_ADDRESS set
// to a remote address and ssh configured for this server.
func (s *SSHD) RemoteEnv(d *Daemon, address string) []string {
	env := append(d.ClientEnv(), s.SSHEnv...)
	return append(env, "SIGNALTTY_ADDRESS="+address)
}

// ExecAddress is the ssh-exec: address of d through this server: the
// built signaltty's bridge on the "remote" host.
func (s *SSHD) ExecAddress(t testing.TB, d *Daemon) string {
	return fmt.Sprintf("ssh-exec:%s:%s --address %s bridge", SSHHost, Bin(t, "signaltty"), d.Address)
}

// UnixAddress is the ssh-unix: address of d's socket through this server.
func (s *SSHD) UnixAddress(d *Daemon) string {
	return fmt.Sprintf("ssh-unix:%s:%s", SSHHost, d.Socket)
}

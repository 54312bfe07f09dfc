package address

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Remote addresses reach a daemon on another host through the system's
// OpenSSH client, with the meanings varlinkctl (systemd ≥ 257) gives them
// (docs/remote.md):
//
//	ssh-unix:HOST:/PATH   ssh -W /PATH HOST: the AF_UNIX socket /PATH on
//	                      HOST (needs OpenSSH ≥ 9.4)
//	ssh-exec:HOST:COMMAND ssh -e none -T HOST env SYSTEMD_VARLINK_LISTEN=- COMMAND:
//	                      varlink on COMMAND's standard input and output
//	                      (COMMAND is split at spaces; for signaltty it is
//	                      "signaltty bridge")
//
// HOST is anything ssh takes as a destination, including a Host of
// ~/.ssh/config. $SIGNALTTY_SSH names the ssh program (default "ssh").

// IsRemote reports whether address is an ssh-unix: or ssh-exec: address.
func IsRemote(address string) bool {
	return strings.HasPrefix(address, "ssh-unix:") || strings.HasPrefix(address, "ssh-exec:")
}

// sshCommand returns the ssh arguments for a remote address.
func sshCommand(address string) ([]string, error) {
	kind, rest, _ := strings.Cut(address, ":")
	host, target, ok := strings.Cut(rest, ":")
	if !ok || host == "" || target == "" || strings.HasPrefix(host, "-") {
		return nil, fmt.Errorf("address %q is not of the form %s:HOST:%s", address, kind, map[string]string{"ssh-unix": "/PATH", "ssh-exec": "COMMAND"}[kind])
	}
	if kind == "ssh-unix" {
		if !strings.HasPrefix(target, "/") {
			return nil, fmt.Errorf("address %q: the socket path must be absolute", address)
		}
		return []string{"-W", target, host}, nil
	}
	words := strings.Fields(target)
	if len(words) == 0 {
		return nil, fmt.Errorf("address %q has no command", address)
	}
	return append([]string{"-e", "none", "-T", host, "env", "SYSTEMD_VARLINK_LISTEN=-"}, words...), nil
}

// SSHConn is a connection to a remote daemon through an ssh process whose
// standard input and output are one end of a socket pair.
type SSHConn struct {
	net.Conn
	address string
	cmd     *exec.Cmd
	stderr  *lockedBuffer
	done    chan struct{} // closed when ssh has exited
	waitErr error
	once    sync.Once
}

// DialSSH starts ssh for a remote address. It fails only when ssh cannot be
// started; a connection ssh cannot make shows as an I/O error on the
// returned conn, which Failure then explains.
func DialSSH(ctx context.Context, address string) (*SSHConn, error) {
	args, err := sshCommand(address)
	if err != nil {
		return nil, err
	}
	prog := os.Getenv("SIGNALTTY_SSH")
	if prog == "" {
		prog = "ssh"
	}
	if strings.HasPrefix(address, "ssh-unix:") {
		if err := checkUnixForward(prog); err != nil {
			return nil, err
		}
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "varlink"), os.NewFile(uintptr(fds[1]), "ssh")
	defer theirs.Close()
	nc, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		return nil, err
	}
	c := &SSHConn{Conn: nc, address: address, stderr: &lockedBuffer{}, done: make(chan struct{})}
	c.cmd = exec.Command(prog, args...)
	c.cmd.Stdin, c.cmd.Stdout, c.cmd.Stderr = theirs, theirs, c.stderr
	// Its own process group: a Ctrl-C meant for us does not kill ssh
	// before we closed the connection cleanly.
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.cmd.Start(); err != nil {
		nc.Close()
		return nil, err
	}
	go func() {
		c.waitErr = c.cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

var sshVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`OpenSSH_([0-9]+)\.([0-9]+)`) })

// checkUnixForward fails unless the ssh client can forward stdio to a
// remote unix socket (ssh -W /PATH, OpenSSH 9.4 or newer; an older client
// takes the path for a host name and waits).
func checkUnixForward(prog string) error {
	out, err := exec.Command(prog, "-V").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s -V: %v", prog, err)
	}
	m := sshVersion().FindSubmatch(out)
	if m == nil {
		return nil // not OpenSSH: let it try
	}
	major, _ := strconv.Atoi(string(m[1]))
	minor, _ := strconv.Atoi(string(m[2]))
	if major < 9 || major == 9 && minor < 4 {
		return fmt.Errorf("ssh-unix: needs OpenSSH 9.4 or newer here to forward to a unix socket, %s is %s; use ssh-exec:HOST:signaltty bridge",
			prog, strings.TrimSpace(string(out)))
	}
	return nil
}

// Close closes the connection, which ends ssh; ssh is killed if it has not
// exited 2 s later.
func (c *SSHConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		select {
		case <-c.done:
		case <-time.After(2 * time.Second):
			_ = c.cmd.Process.Kill()
			<-c.done
		}
	})
	return err
}

// Failure explains an I/O error on the connection: ssh's exit status and
// the last line it wrote to its standard error, waiting up to 2 s for ssh
// to exit. It returns nil while ssh still runs.
func (c *SSHConn) Failure() error {
	select {
	case <-c.done:
	case <-time.After(2 * time.Second):
		return nil
	}
	msg := strings.TrimSpace(c.stderr.String())
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
		msg = strings.TrimSpace(msg[i+1:])
	}
	status := "exited"
	var ee *exec.ExitError
	if errors.As(c.waitErr, &ee) {
		status = ee.ProcessState.String()
	}
	if msg == "" {
		msg = "ssh " + status + " without a message"
	}
	return fmt.Errorf("%s (ssh %s)", msg, status)
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > 64<<10 {
		return len(p), nil
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

package varlink

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/signaltty/signaltty/service"
	vl "github.com/varlink/go/varlink"
	"golang.org/x/sys/unix"
)

// Connection identity (docs/security.md, "Who is calling"). The kernel
// tells who connected (SO_PEERCRED); the process is pinned by a pidfd
// (SO_PEERPIDFD, or pidfd_open of the credentials' pid on kernels without
// it) and resolved to its principal once, before the first call is read.
// Nothing the client sends or sets in its environment names its principal
// (the one exception: SIGNALTTY_TOKEN=@owner, read from the pinned
// process, when outside callers are unknown).

// Resolver resolves a pinned peer process to its principal.
type Resolver func(pid int, environ func() []byte) service.Principal

// SetResolver sets how connections resolve to principals; without one a
// peer whose credentials carry the daemon's uid is the owner and any
// other peer is nobody.
func (s *Server) SetResolver(r Resolver) { s.resolve = r }

// peer is a connection's pinned process and principal.
type peer struct {
	pid       int
	pidfd     int // -1: none
	principal service.Principal
}

func (p *peer) close() {
	if p != nil && p.pidfd >= 0 {
		unix.Close(p.pidfd)
		p.pidfd = -1
	}
}

// pin opens a pidfd for the peer of c whose credentials are cred, checks it
// names the credentials' pid, and resolves the principal.
func (s *Server) pin(c *net.UnixConn, cred *unix.Ucred) (*peer, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	var serr error
	if err := raw.Control(func(sfd uintptr) { fd, serr = unix.GetsockoptInt(int(sfd), unix.SOL_SOCKET, unix.SO_PEERPIDFD) }); err != nil {
		return nil, err
	}
	if serr != nil {
		// Kernels before 6.5: open one now. The pid could have been reused
		// since connect; alive-checks below narrow this to a process that
		// exited and whose pid came back in between (docs/security.md).
		if fd, serr = unix.PidfdOpen(int(cred.Pid), 0); serr != nil {
			return nil, fmt.Errorf("pidfd: %w", serr)
		}
	}
	p := &peer{pid: int(cred.Pid), pidfd: fd}
	if got := pidfdPid(fd); got != p.pid {
		p.close()
		return nil, fmt.Errorf("pidfd names pid %d, credentials %d", got, cred.Pid)
	}
	p.principal = nobody
	if s.resolve == nil && int(cred.Uid) == s.uid {
		p.principal = service.OwnerPrincipal
	}
	if s.resolve != nil {
		p.principal = s.resolve(p.pid, func() []byte {
			b, _ := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/environ")
			return b
		})
	}
	// What was read from /proc must have been the pinned process's.
	if err := unix.PidfdSendSignal(fd, 0, nil, 0); err != nil {
		p.close()
		return nil, fmt.Errorf("peer exited while being resolved: %w", err)
	}
	return p, nil
}

// pidfdPid reads the pid a pidfd refers to (/proc/self/fdinfo "Pid:"), -1
// if unknown or the process is gone.
func pidfdPid(fd int) int {
	f, err := os.Open("/proc/self/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Pid:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return -1
			}
			return n
		}
	}
	return -1
}

type principalKey struct{}

// nobody is the principal of a caller whose identity was not established
// (a connection not served by Server, or a context that carries no
// principal): an unknown caller with no grants, denied every right
// (docs/security.md, "Who is calling").
var nobody = service.Principal{ID: service.Unknown}

// withPrincipal returns ctx carrying the principal of call's connection.
func withPrincipal(ctx context.Context, call vl.Call) context.Context {
	return context.WithValue(ctx, principalKey{}, callPrincipal(call))
}

// callPrincipal is the principal of the connection a call came on (nobody
// for connections not served by Server).
func callPrincipal(call vl.Call) service.Principal {
	if gc, ok := call.Conn.(vl.GetNetConn); ok {
		if c, ok := gc.NetConn().(*conn); ok && c.peer != nil {
			return c.peer.principal
		}
	}
	return nobody
}

// principalOf is the caller's principal in a handler; nobody when ctx
// carries none.
func principalOf(ctx context.Context) service.Principal {
	if p, ok := ctx.Value(principalKey{}).(service.Principal); ok {
		return p
	}
	return nobody
}

package varlink

import (
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/signaltty/signaltty/service"
	vl "github.com/varlink/go/varlink"
	"golang.org/x/sys/unix"
)

// A connection's peer is pinned by a pidfd that names the credentials'
// pid, and resolved once with the pinned process's pid and environment.
func TestPeerIsPinnedAndResolvedOnce(t *testing.T) {
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := net.Dial("unix", ln.Addr().String())
		if err == nil {
			defer c.Close()
			buf := make([]byte, 1)
			c.Read(buf)
		}
	}()
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := &Server{log: slog.New(slog.DiscardHandler), uid: os.Getuid()}
	calls := 0
	var env []byte
	s.SetResolver(func(pid int, environ func() []byte) service.Principal {
		calls++
		env = environ()
		return service.Principal{ID: "pane:test", Pane: "test"}
	})
	cred := s.peerAllowed(c.(*net.UnixConn))
	if cred == nil || int(cred.Pid) != os.Getpid() {
		t.Fatalf("credentials: %+v", cred)
	}
	p, err := s.pin(c.(*net.UnixConn), cred)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	if p.pid != os.Getpid() || p.pidfd < 0 || pidfdPid(p.pidfd) != os.Getpid() || p.principal.ID != "pane:test" || calls != 1 {
		t.Errorf("peer %+v (resolver called %d times)", p, calls)
	}
	if len(env) == 0 {
		t.Errorf("the resolver could not read the pinned process's environment")
	}
	// The fallback for kernels without SO_PEERPIDFD names the same process.
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if pidfdPid(fd) != os.Getpid() {
		t.Errorf("pidfd_open's pidfd names pid %d", pidfdPid(fd))
	}
}

// A peer of another uid is refused (the daemon's uid stands in here).
func TestPeerOfAnotherUidIsRefused(t *testing.T) {
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := net.Dial("unix", ln.Addr().String()); err == nil {
			defer c.Close()
			buf := make([]byte, 1)
			c.Read(buf)
		}
	}()
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := &Server{log: slog.New(slog.DiscardHandler), uid: os.Getuid() + 1}
	if cred := s.peerAllowed(c.(*net.UnixConn)); cred != nil {
		t.Errorf("a peer of another uid was admitted: %+v", cred)
	}
}

// A call whose identity was not established is denied: a connection not
// served by Server, a context without a principal, and a peer of another
// uid with no resolver all act as nobody, never as the owner
// (docs/security.md, "Who is calling").
func TestCallWithNoPrincipalIsDenied(t *testing.T) {
	svc := service.New(service.Config{})
	for name, p := range map[string]service.Principal{
		"connection not served by Server": callPrincipal(vl.Call{}),
		"context without a principal":     principalOf(context.Background()),
	} {
		if p.IsOwner() {
			t.Errorf("%s: acts as the owner", name)
		}
		if err := svc.Access().Authorize(p, "dev.signaltty.Server.GetStatus", service.RightRead, "*"); err == nil {
			t.Errorf("%s: allowed", name)
		}
	}

	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := net.Dial("unix", ln.Addr().String()); err == nil {
			defer c.Close()
			buf := make([]byte, 1)
			c.Read(buf)
		}
	}()
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := &Server{log: slog.New(slog.DiscardHandler), uid: os.Getuid()}
	cred := s.peerAllowed(c.(*net.UnixConn))
	if cred == nil {
		t.Fatal("no credentials")
	}
	own, err := s.pin(c.(*net.UnixConn), cred)
	if err != nil {
		t.Fatal(err)
	}
	own.close()
	if !own.principal.IsOwner() {
		t.Errorf("a peer of the daemon's uid is %+v, want the owner", own.principal)
	}
	other := *cred
	other.Uid++
	p, err := s.pin(c.(*net.UnixConn), &other)
	if err != nil {
		t.Fatal(err)
	}
	p.close()
	if p.principal.IsOwner() {
		t.Errorf("a peer of another uid is the owner")
	}
}

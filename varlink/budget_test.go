package varlink

import (
	"bufio"
	"bytes"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	vl "github.com/varlink/go/varlink"
	"golang.org/x/sys/unix"
)

// pair serves one end of a socket pair with a Server and returns the other
// end and a channel closed when serving ended.
func pair(t *testing.T, l Limits) (*Server, *net.UnixConn, <-chan struct{}) {
	t.Helper()
	svc, err := vl.NewService("t", "t", "0", "")
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(svc, slog.New(slog.NewTextHandler(io.Discard, nil)))
	s.SetLimits(l)
	c, done := servePair(t, s)
	return s, c, done
}

// servePair serves one end of a new socket pair with s until the test
// ends and returns the other end and a channel closed when serving ended.
func servePair(tb testing.TB, s *Server) (*net.UnixConn, <-chan struct{}) {
	tb.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		tb.Fatal(err)
	}
	conns := make([]*net.UnixConn, 2)
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "pair")
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			tb.Fatal(err)
		}
		conns[i] = c.(*net.UnixConn)
	}
	// Pinned as the server pins an accepted connection: the test process
	// has the daemon's uid, so it is the owner.
	raw, err := conns[0].SyscallConn()
	if err != nil {
		tb.Fatal(err)
	}
	var cred *unix.Ucred
	if err := raw.Control(func(fd uintptr) { cred, err = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) }); err != nil {
		tb.Fatal(err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	p, err := s.pin(conns[0], cred)
	if err != nil {
		tb.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer p.close()
		(&clientConn{c: &conn{UnixConn: conns[0], peer: p}, s: s}).serve()
		conns[0].Close()
	}()
	tb.Cleanup(func() { conns[1].Close(); <-done })
	return conns[1], done
}

func readMsg(t *testing.T, c net.Conn, rd *bufio.Reader) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	m, err := rd.ReadString(0)
	if err != nil {
		t.Fatalf("reading a reply: %v", err)
	}
	return m
}

// A large request draws on the budget while it is buffered and gives all of
// it back once handled; so does one left incomplete when its client leaves.
func TestRequestBudgetIsGivenBack(t *testing.T) {
	s, c, done := pair(t, Limits{})
	rd := bufio.NewReader(c)
	pad := strings.Repeat("x", 1<<20)
	go c.Write([]byte(`{"method":"org.varlink.service.GetInfo","parameters":{"pad":"` + pad + `"}}` + "\x00"))
	if m := readMsg(t, c, rd); !strings.Contains(m, `"vendor"`) {
		t.Fatalf("reply to a large GetInfo: %.200q", m)
	}
	// The reply is sent before the buffer is dropped: poll.
	for deadline := time.Now().Add(10 * time.Second); s.BufferedRequestBytes() != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes of budget still drawn after the request was handled", s.BufferedRequestBytes())
		}
	}
	c.Write([]byte(`{"method":"org.varlink.service.GetInfo","parameters":{"pad":"` + pad))
	c.Close()
	<-done
	if n := s.BufferedRequestBytes(); n != 0 {
		t.Errorf("%d bytes of budget still drawn after the connection ended", n)
	}
}

// A request the budget cannot cover gets unavailable.request_budget at once;
// the rest of it is thrown away and the next request is served.
func TestRequestOverTheBudgetIsRefusedAndTheConnectionGoesOn(t *testing.T) {
	s, c, _ := pair(t, Limits{RequestBudget: 256 << 10})
	rd := bufio.NewReader(c)
	go func() {
		c.Write([]byte(`{"method":"org.varlink.service.GetInfo","parameters":{"pad":"`))
		c.Write(bytes.Repeat([]byte("x"), 1<<20))
		c.Write([]byte("\"}}\x00" + `{"method":"org.varlink.service.GetInfo"}` + "\x00"))
	}()
	if m := readMsg(t, c, rd); !strings.Contains(m, "unavailable.request_budget") {
		t.Fatalf("reply to a request over the budget: %.300q", m)
	}
	if m := readMsg(t, c, rd); !strings.Contains(m, `"vendor"`) {
		t.Fatalf("reply to the next request: %.300q", m)
	}
	for deadline := time.Now().Add(10 * time.Second); s.BufferedRequestBytes() != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes of budget drawn after both requests", s.BufferedRequestBytes())
		}
	}
}

package varlink

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"github.com/signaltty/signaltty/service"
	vl "github.com/varlink/go/varlink"
	"golang.org/x/sys/unix"
)

// MaxRequest is the largest request message accepted, in bytes. A longer
// one gets an InvalidParams error with code invalid_params.size and the
// connection is closed.
const MaxRequest = 16 << 20

// Server accepts varlink connections and dispatches them to a varlink.Service.
type Server struct {
	svc *vl.Service
	log *slog.Logger
	uid int
	// resolve resolves a connection's pinned peer to its principal (identity.go).
	resolve Resolver

	ctx    context.Context
	cancel context.CancelFunc
	calls  sync.WaitGroup // handlers running (Track)
	mu     sync.Mutex
	closed bool
	conns  map[net.Conn]struct{}
	// held counts the served connections by principal (connKey); pinning
	// counts those accepted and not yet resolved.
	held    map[string]int
	pinning int
	wg      sync.WaitGroup

	limits Limits   // budget.go
	budget budget   // request bytes buffered beyond each connection's free share
	rel    releaser // hands dropped request buffers back to the OS

	schemas map[string]*schema // interface name → input types (validate.go)
}

// NewServer wraps a varlink service whose interfaces are registered.
func NewServer(svc *vl.Service, log *slog.Logger) *Server {
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{svc: svc, log: log, uid: os.Getuid(), conns: map[net.Conn]struct{}{}, held: map[string]int{}, ctx: ctx, cancel: cancel}
	s.SetLimits(Limits{})
	return s
}

// Serve accepts connections on ln until ln is closed, serving each on its
// own goroutine. Connections outlive Serve until Close.
func (s *Server) Serve(ln net.Listener) error {
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		uc, ok := c.(*net.UnixConn)
		var cred *unix.Ucred
		if ok {
			cred = s.peerAllowed(uc)
		}
		if cred == nil {
			c.Close()
			continue
		}
		cc := &conn{UnixConn: uc, accepted: time.Now()}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			continue
		}
		// Connections not yet resolved to a principal are bounded too.
		if s.pinning >= s.limits.MaxConnections {
			s.mu.Unlock()
			s.refuse(cc, map[string]any{"max": s.limits.MaxConnections})
			continue
		}
		s.pinning++
		s.conns[cc] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			// The principal is resolved once, before the first call is read.
			p, err := s.pin(uc, cred)
			if err != nil {
				s.log.Warn("dropping connection: peer not pinned", "pid", cred.Pid, "err", err)
			}
			s.mu.Lock()
			s.pinning--
			var refused map[string]any
			key := ""
			if err == nil {
				key, refused = s.admit(p.principal)
			}
			if err != nil || refused != nil {
				delete(s.conns, cc)
			}
			s.mu.Unlock()
			switch {
			case err != nil:
				cc.Close()
				return
			case refused != nil:
				p.close()
				s.refuse(cc, refused)
				return
			}
			cc.peer = p
			(&clientConn{c: cc, s: s}).serve() // readloop.go
			p.close()
			cc.Close()
			s.mu.Lock()
			delete(s.conns, cc)
			if s.held[key]--; s.held[key] <= 0 {
				delete(s.held, key)
			}
			s.mu.Unlock()
		}()
	}
}

// ownerKey is the owner's key in held; others' keys are their ids.
const ownerKey = "\x00owner"

// admit counts a resolved connection against its principal's limits
// (docs/limits.md, "Connections"): the owner's connections have a pool of
// MaxConnections of their own; every other principal at most
// MaxConnectionsPerPrincipal, and all of them together MaxConnections.
// It returns the principal's key in held, or the refusal's data; s.mu is
// held.
func (s *Server) admit(p service.Principal) (string, map[string]any) {
	if p.IsOwner() {
		if s.held[ownerKey] >= s.limits.MaxConnections {
			return "", map[string]any{"max": s.limits.MaxConnections}
		}
		s.held[ownerKey]++
		return ownerKey, nil
	}
	others := 0
	for k, n := range s.held {
		if k != ownerKey {
			others += n
		}
	}
	if others >= s.limits.MaxConnections {
		return "", map[string]any{"max": s.limits.MaxConnections}
	}
	if s.held[p.ID] >= s.limits.MaxConnectionsPerPrincipal {
		return "", map[string]any{"max": s.limits.MaxConnectionsPerPrincipal, "principal": p.ID}
	}
	s.held[p.ID]++
	return p.ID, nil
}

// Dispatcher is a varlink interface as varlink.Service.RegisterInterface takes it.
type Dispatcher interface {
	VarlinkDispatch(ctx context.Context, c vl.Call, methodname string) error
	VarlinkGetName() string
	VarlinkGetDescription() string
}

// Track wraps an interface so that Drain knows when its handlers run.
// It also registers the interface's input types, which every call's
// parameters are checked against (validate.go).
func (s *Server) Track(d Dispatcher) Dispatcher {
	s.addSchema(d)
	return tracked{d, s}
}

type tracked struct {
	Dispatcher
	s *Server
}

func (t tracked) VarlinkDispatch(ctx context.Context, c vl.Call, method string) error {
	t.s.calls.Add(1)
	defer t.s.calls.Done()
	return t.Dispatcher.VarlinkDispatch(ctx, c, method)
}

// Drain waits up to timeout for running handlers to return, so replies
// produced by a shutdown (completed runs, final events) reach their clients
// before Close; it reports whether they all did.
func (s *Server) Drain(timeout time.Duration) bool {
	done := make(chan struct{})
	go func() {
		s.calls.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(timeout):
		return false
	}
}

// Connections is the number of client connections open now.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// Close ends every connection and waits for their handlers to return.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	s.cancel()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// peerAllowed admits only peers running as the daemon's own uid
// (SO_PEERCRED), returning their credentials; nil: refused.
func (s *Server) peerAllowed(c *net.UnixConn) *unix.Ucred {
	raw, err := c.SyscallConn()
	if err != nil {
		return nil
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) { cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) }); err != nil || cerr != nil {
		s.log.Warn("dropping connection: no peer credentials", "err", errors.Join(err, cerr))
		return nil
	}
	if int(cred.Uid) != s.uid {
		s.log.Warn("dropping connection from another user", "uid", cred.Uid, "pid", cred.Pid)
		return nil
	}
	return cred
}

// conn is one accepted client connection.
type conn struct {
	*net.UnixConn
	peer     *peer     // the pinned peer and its principal (identity.go)
	accepted time.Time // when it was accepted (FirstRequestTimeout)
}

var errTooLarge = errors.New("request too large")

// hangup returns a context that ends with parent or when the client of call
// closes its connection. The varlink library reads nothing while a handler
// runs, so a peek (MSG_PEEK) seeing end-of-file means the client is gone.
// Data from a client pipelining its next call stops the watch (no hang-up).
func hangup(parent context.Context, call vl.Call) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	gc, ok := call.Conn.(vl.GetNetConn)
	if !ok {
		return ctx, cancel
	}
	c, ok := gc.NetConn().(*conn)
	if !ok {
		return ctx, cancel
	}
	raw, err := c.UnixConn.SyscallConn()
	if err != nil {
		return ctx, cancel
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 1)
		gone := false
		_ = raw.Read(func(fd uintptr) bool {
			n, _, err := unix.Recvfrom(int(fd), buf, unix.MSG_PEEK|unix.MSG_DONTWAIT)
			switch {
			case err == unix.EAGAIN || err == unix.EINTR:
				return false // park in the poller until readable
			case n == 0 || err != nil:
				gone = true
			}
			return true
		})
		if gone {
			cancel()
		}
	}()
	// stop runs before the handler returns, so the library's next read never
	// sees the deadline used to wake the peek.
	stop := func() {
		cancel()
		c.UnixConn.SetReadDeadline(time.Unix(1, 0))
		<-done
		c.UnixConn.SetReadDeadline(time.Time{})
	}
	return ctx, stop
}

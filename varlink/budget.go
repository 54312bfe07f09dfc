package varlink

import (
	"encoding/json"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/signaltty/signaltty/service/errcode"
)

// Limits bound what clients can make the daemon hold (docs/limits.md).
type Limits struct {
	// RequestBudget is the total of request bytes, in bytes, that all
	// connections together may hold buffered beyond each connection's
	// first FreeRequestBytes. A request that would take more is refused
	// with unavailable.request_budget. Default 64 MiB.
	RequestBudget int64
	// IncompleteTimeout is how long a connection may take to finish a
	// message it has started sending; past it the connection gets a
	// timeout.request error and is closed. Default 10 s.
	IncompleteTimeout time.Duration
	// MaxConnections is the number of client connections served at once
	// for principals other than the owner, all together, and separately
	// for the owner, so that no other principal can take the owner's share;
	// a connection beyond it gets unavailable.connections and is closed.
	// Default 1,024.
	MaxConnections int
	// MaxConnectionsPerPrincipal is the number of connections one principal
	// other than the owner (one pane's, or unknown) may hold at once.
	// Default 256.
	MaxConnectionsPerPrincipal int
	// FirstRequestTimeout is how long a new connection may stay silent
	// before the first byte of its first message; past it the connection
	// gets timeout.idle and is closed. Default 30 s.
	FirstRequestTimeout time.Duration
}

// DefaultLimits are the limits used unless the daemon is told otherwise.
func DefaultLimits() Limits {
	return Limits{RequestBudget: 64 << 20, IncompleteTimeout: 10 * time.Second, MaxConnections: 1024,
		MaxConnectionsPerPrincipal: 256, FirstRequestTimeout: 30 * time.Second}
}

// FreeRequestBytes is how much buffer every connection may hold without
// drawing on the shared RequestBudget, in bytes: small requests are never
// refused for want of budget.
const FreeRequestBytes = 64 << 10

// readChunk is the size of one socket read.
const readChunk = 8 << 10

// budget is a shared pool of bytes that connections draw on.
type budget struct {
	max  int64
	used atomic.Int64
}

// take draws n bytes, or nothing and reports false when they are not there.
func (b *budget) take(n int64) bool {
	for {
		u := b.used.Load()
		if u+n > b.max {
			return false
		}
		if b.used.CompareAndSwap(u, u+n) {
			return true
		}
	}
}

func (b *budget) give(n int64) { b.used.Add(-n) }

// releaser hands memory back to the operating system some time after
// large request buffers were dropped, so the daemon's resident size
// returns near its idle level instead of waiting for the runtime's
// periodic collection and scavenging (minutes on an idle daemon).
type releaser struct {
	mu      sync.Mutex
	pending int64
	timer   *time.Timer
}

// releaseAfter is how many dropped bytes make a release worthwhile;
// releaseDelay lets a burst of large requests end before the release.
const (
	releaseAfter = 4 << 20
	releaseDelay = time.Second
)

func (r *releaser) dropped(n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending += n
	if r.pending >= releaseAfter && r.timer == nil {
		r.timer = time.AfterFunc(releaseDelay, r.release)
	}
}

func (r *releaser) release() {
	r.mu.Lock()
	r.pending = 0
	r.timer = nil
	r.mu.Unlock()
	debug.FreeOSMemory()
}

// SetLimits replaces the limits; call it before Serve. Zero fields keep
// their defaults.
func (s *Server) SetLimits(l Limits) {
	d := DefaultLimits()
	if l.RequestBudget > 0 {
		d.RequestBudget = l.RequestBudget
	}
	if l.IncompleteTimeout > 0 {
		d.IncompleteTimeout = l.IncompleteTimeout
	}
	if l.MaxConnections > 0 {
		d.MaxConnections = l.MaxConnections
	}
	if l.MaxConnectionsPerPrincipal > 0 {
		d.MaxConnectionsPerPrincipal = l.MaxConnectionsPerPrincipal
	}
	if l.FirstRequestTimeout > 0 {
		d.FirstRequestTimeout = l.FirstRequestTimeout
	}
	s.limits = d
	s.budget.max = d.RequestBudget
}

// Limits returns the limits in force (defaults filled in).
func (s *Server) Limits() Limits { return s.limits }

// BufferedRequestBytes is how much of the request budget is in use now.
func (s *Server) BufferedRequestBytes() int64 { return s.budget.used.Load() }

// serverError encodes a varlink error message of dev.signaltty.Server
// (with its terminating NUL) for failures outside any method call.
func serverError(name string, code errcode.Code, message string, data map[string]any) []byte {
	msg, _ := json.Marshal(map[string]any{"error": "dev.signaltty.Server." + name, "parameters": map[string]any{
		"code": code, "message": message, "data": data}})
	return append(msg, 0)
}

// refuseSlots bounds the goroutines that tell refused connections why.
var refuseSlots = make(chan struct{}, 64)

// refuse tells a connection over a connection limit why it is closed
// (data: max, and principal for the per-principal limit): the error first,
// then a short wait for the client's request (so its write does not fail
// before it reads the error), then close.
func (s *Server) refuse(c net.Conn, data map[string]any) {
	select {
	case refuseSlots <- struct{}{}:
	default:
		c.Close()
		return
	}
	go func() {
		defer func() { <-refuseSlots }()
		defer c.Close()
		c.SetDeadline(time.Now().Add(2 * time.Second))
		c.Write(serverError("Unavailable", errcode.UnavailableConnections, "too many client connections", data))
		var b [512]byte
		c.Read(b[:])
	}()
}

package varlink

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"time"

	"github.com/signaltty/signaltty/service/errcode"
)

// keepBuffer is the largest read buffer a connection keeps between
// messages, in bytes; a larger one is dropped once its message is handled.
const keepBuffer = 64 << 10

// clientConn is one client connection as the varlink library's handlers
// see it (varlink.ReadWriterContext and varlink.GetNetConn), with the read
// loop that frames its NUL-terminated messages (docs/limits.md):
//   - one message is at most MaxRequest bytes;
//   - its buffer beyond FreeRequestBytes is drawn from the server's
//     request budget, and a message that does not fit is refused;
//   - a message must be complete within the incomplete-message timeout of
//     its first byte;
//   - a large buffer is dropped after its message.
type clientConn struct {
	c   *conn
	s   *Server
	buf []byte // read from the socket, not yet consumed
	// rest is what follows the message being handled: buf[end:], read by
	// a handler that takes over the connection (Read).
	rest    []byte
	charged int64     // bytes of cap(buf) drawn from the budget
	started time.Time // first byte of the message being read; zero when none
	spoke   bool      // a first byte ever arrived (FirstRequestTimeout)
}

var errRefused = errors.New("request refused")

// serve reads and dispatches messages until the connection ends.
func (cc *clientConn) serve() {
	defer cc.release()
	for {
		msg, err := cc.next()
		if err != nil {
			return
		}
		refused, err := cc.s.checkRequest(cc, msg) // validate.go
		if err == nil && !refused {
			err = cc.s.svc.HandleMessage(cc.s.ctx, cc, msg)
		}
		large := len(msg) > keepBuffer
		msg = nil
		cc.compact()
		if large {
			// The request's decoded copies are garbage now too.
			cc.s.rel.dropped(int64(cap(cc.buf)) + 2*int64(keepBuffer))
		}
		if err != nil {
			return
		}
	}
}

// next returns the next message without its terminating NUL. The bytes
// stay in buf (and charged) until compact.
func (cc *clientConn) next() ([]byte, error) {
	scanned := 0
	discard := false // refused for budget: read on to the NUL, keeping nothing
	for {
		if i := bytes.IndexByte(cc.buf[scanned:], 0); i >= 0 {
			end := scanned + i
			if discard {
				cc.buf = cc.buf[:copy(cc.buf, cc.buf[end+1:])]
				cc.started, scanned, discard = time.Time{}, 0, false
				if len(cc.buf) > 0 {
					cc.started = time.Now()
				}
				continue
			}
			cc.rest = cc.buf[end+1:]
			return cc.buf[:end], nil
		}
		if discard {
			cc.buf = cc.buf[:0]
		}
		scanned = len(cc.buf)
		if len(cc.buf) > MaxRequest {
			cc.say(serverError("InvalidParams", "invalid_params.size", "request larger than 16 MiB",
				map[string]any{"param": "request", "reason": "size", "max": MaxRequest}))
			return nil, errTooLarge
		}
		if !discard && !cc.grow() {
			cc.say(serverError("Unavailable", errcode.UnavailableRequestBudget,
				"the daemon holds too many large requests now; try again later",
				map[string]any{"budget": cc.s.limits.RequestBudget}))
			discard = true
			if old := cap(cc.buf); old > keepBuffer {
				cc.buf = make([]byte, 0, readChunk)
				cc.recharge()
				cc.s.rel.dropped(int64(old))
			}
			cc.buf = cc.buf[:0]
			scanned = 0
		}
		var deadline time.Time
		if !cc.started.IsZero() {
			deadline = cc.started.Add(cc.s.limits.IncompleteTimeout)
		} else if !cc.spoke && len(cc.buf) == 0 && !cc.c.accepted.IsZero() {
			deadline = cc.c.accepted.Add(cc.s.limits.FirstRequestTimeout)
		}
		cc.c.SetReadDeadline(deadline)
		n, err := cc.c.Read(cc.buf[len(cc.buf):cap(cc.buf)])
		if n > 0 && cc.started.IsZero() {
			cc.started = time.Now()
		}
		if n > 0 {
			cc.spoke = true
		}
		cc.buf = cc.buf[:len(cc.buf)+n]
		if err != nil {
			if i := bytes.IndexByte(cc.buf[scanned:], 0); i >= 0 && !discard {
				continue // a complete message came with the error: serve it first
			}
			if errors.Is(err, os.ErrDeadlineExceeded) && !cc.spoke {
				cc.say(serverError("Internal", errcode.TimeoutIdle, "the connection sent nothing in time",
					map[string]any{"timeout_ms": cc.s.limits.FirstRequestTimeout.Milliseconds()}))
			}
			if errors.Is(err, os.ErrDeadlineExceeded) && !cc.started.IsZero() && !discard { // a refused message had its error
				cc.say(serverError("Internal", errcode.TimeoutRequest, "the request was not completed in time",
					map[string]any{"param": "request", "timeout_ms": cc.s.limits.IncompleteTimeout.Milliseconds()}))
			}
			return nil, err
		}
	}
}

// grow makes room for one more read, drawing on the budget for buffer
// beyond FreeRequestBytes; false when the budget cannot cover it.
func (cc *clientConn) grow() bool {
	if cap(cc.buf)-len(cc.buf) >= readChunk {
		return true
	}
	newCap := max(2*cap(cc.buf), len(cc.buf)+readChunk)
	newCap = min(newCap, MaxRequest+2*readChunk)
	need := max(int64(newCap)-FreeRequestBytes, 0)
	if need > cc.charged {
		if !cc.s.budget.take(need - cc.charged) {
			return false
		}
		cc.charged = need
	}
	b := make([]byte, len(cc.buf), newCap)
	copy(b, cc.buf)
	cc.buf = b
	return true
}

// compact drops the message just handled, keeping what follows it, and
// replaces a large buffer with a small one.
func (cc *clientConn) compact() {
	rest := cc.rest
	cc.rest = nil
	cc.started = time.Time{}
	if len(rest) > 0 {
		cc.started = time.Now()
	}
	if cap(cc.buf) <= keepBuffer {
		cc.buf = cc.buf[:copy(cc.buf, rest)]
		return
	}
	old := cap(cc.buf)
	b := make([]byte, len(rest), max(len(rest), readChunk))
	copy(b, rest)
	cc.buf = b
	cc.recharge()
	cc.s.rel.dropped(int64(old))
}

// recharge gives back budget the current buffer no longer needs.
func (cc *clientConn) recharge() {
	need := max(int64(cap(cc.buf))-FreeRequestBytes, 0)
	if need < cc.charged {
		cc.s.budget.give(cc.charged - need)
		cc.charged = need
	}
}

// release gives back everything when the connection ends.
func (cc *clientConn) release() {
	if cap(cc.buf) > keepBuffer {
		cc.s.rel.dropped(int64(cap(cc.buf)))
	}
	cc.buf, cc.rest = nil, nil
	cc.s.budget.give(cc.charged)
	cc.charged = 0
}

// say writes a message outside any call (an error about the connection).
func (cc *clientConn) say(msg []byte) {
	cc.c.SetWriteDeadline(time.Now().Add(time.Second))
	cc.c.Write(msg)
	cc.c.SetWriteDeadline(time.Time{})
}

// Write sends reply bytes; ctx ending interrupts it.
func (cc *clientConn) Write(ctx context.Context, p []byte) (int, error) {
	stop := context.AfterFunc(ctx, func() { cc.c.SetWriteDeadline(time.Unix(1, 0)) })
	n, err := cc.c.Write(p)
	if !stop() {
		cc.c.SetWriteDeadline(time.Time{})
		if err == nil {
			err = ctx.Err()
		}
	}
	return n, err
}

// Read is for a handler that takes the connection over (varlink upgrade):
// bytes the client sent after its call come first.
func (cc *clientConn) Read(ctx context.Context, p []byte) (int, error) {
	if len(cc.rest) > 0 {
		n := copy(p, cc.rest)
		cc.rest = cc.rest[n:]
		return n, nil
	}
	stop := context.AfterFunc(ctx, func() { cc.c.SetReadDeadline(time.Unix(1, 0)) })
	n, err := cc.c.Read(p)
	if !stop() {
		cc.c.SetReadDeadline(time.Time{})
		if err == nil {
			err = ctx.Err()
		}
	}
	return n, err
}

// ReadBytes reads up to and including delim, for a handler that reads
// further messages itself.
func (cc *clientConn) ReadBytes(ctx context.Context, delim byte) ([]byte, error) {
	var out []byte
	var b [1]byte
	for {
		n, err := cc.Read(ctx, b[:])
		if n == 1 {
			out = append(out, b[0])
			if b[0] == delim {
				return out, nil
			}
		}
		if err != nil {
			return out, err
		}
		if len(out) > MaxRequest {
			return out, errTooLarge
		}
	}
}

// NetConn is the socket (varlink.GetNetConn), for peer credentials and
// hang-up detection.
func (cc *clientConn) NetConn() net.Conn { return cc.c }

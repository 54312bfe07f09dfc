package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/signaltty/signaltty/varlink/address"
	vl "github.com/varlink/go/varlink"
)

// IsRemote reports whether addr is reached through ssh (docs/remote.md).
func IsRemote(addr string) bool { return address.IsRemote(addr) }

// DialStream opens the byte stream to the daemon at addr, local (unix:) or
// through ssh, for callers that speak on it themselves (a protocol upgrade
// such as attach's). It starts no daemon. An ssh stream is an
// *address.SSHConn, whose Failure explains a later I/O error.
func DialStream(ctx context.Context, addr string) (net.Conn, error) {
	if IsRemote(addr) {
		sc, err := address.DialSSH(ctx, addr)
		if err != nil {
			return nil, transportError(addr, err)
		}
		return sc, nil
	}
	path, err := address.SocketPath(addr)
	if err != nil {
		return nil, &Error{Code: "invalid_params.address", Message: err.Error(), Data: map[string]any{"address": addr}}
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, unavailable(addr, err)
	}
	return c, nil
}

// dialRemote connects through ssh (ssh-unix:HOST:/PATH, ssh-exec:HOST:CMD).
// What ssh reports when it cannot connect comes back as
// unavailable.transport on the first call.
func dialRemote(ctx context.Context, addr string) (*Client, error) {
	nc, err := DialStream(ctx, addr)
	if err != nil {
		return nil, err
	}
	sc := nc.(*address.SSHConn)
	// varlink/go dials only unix: and tcp:; the dialer hands it the ssh conn.
	conn, err := vl.NewConnectionWithDialer(ctx, "unix:ssh", connDialer{sc})
	if err != nil {
		sc.Close()
		return nil, transportError(addr, err)
	}
	return &Client{Conn: conn, address: addr, ssh: sc}, nil
}

type connDialer struct{ c net.Conn }

func (d connDialer) DialContext(context.Context, string, string) (net.Conn, error) { return d.c, nil }

func transportError(addr string, err error) *Error {
	return &Error{Code: "unavailable.transport", Message: fmt.Sprintf("cannot reach signalttyd at %s: %v", addr, err),
		Data: map[string]any{"address": addr}}
}

// fail turns a call's error into an *Error; a connection lost because
// ssh failed is unavailable.transport with what ssh said.
func (c *Client) fail(err error) error {
	var ve *vl.Error
	var ip *vl.InvalidParameter
	var mnf *vl.MethodNotFound
	if c.ssh != nil && !errors.As(err, &ve) && !errors.As(err, &ip) && !errors.As(err, &mnf) {
		if f := c.ssh.Failure(); f != nil { // not a reply: did ssh fail?
			return transportError(c.address, f)
		}
	}
	e := replyError(err)
	if ce, ok := e.(*Error); ok && c.ssh == nil {
		if ce.Code == "unavailable.daemon" {
			if oe := otherUser(c.address); oe != nil { // the socket is another user's: say so
				return oe
			}
		}
		if strings.HasPrefix(ce.Message, lostPrefix) {
			if why := lostToStartLimit(c.address); why != nil { // socket activation refused: say why
				ce.Message += "; " + why.Error()
			}
		}
	}
	return e
}

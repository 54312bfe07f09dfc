package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/signaltty/signaltty/varlink/address"
	"github.com/spf13/cobra"
	vl "github.com/varlink/go/varlink"
)

// isRemote reports whether addr is reached through ssh (docs/remote.md).
func isRemote(addr string) bool { return address.IsRemote(addr) }

// dialStream opens the byte stream to the daemon at addr, local (unix:) or
// through ssh, for callers that speak on it themselves (a protocol upgrade
// such as attach's). It starts no daemon. An ssh stream is an
// *address.SSHConn, whose Failure explains a later I/O error.
func dialStream(ctx context.Context, addr string) (net.Conn, error) {
	if isRemote(addr) {
		sc, err := address.DialSSH(ctx, addr)
		if err != nil {
			return nil, transportError(addr, err)
		}
		return sc, nil
	}
	path, err := address.SocketPath(addr)
	if err != nil {
		return nil, &callError{Code: "invalid_params.address", Message: err.Error(), Data: map[string]any{"address": addr}}
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
func dialRemote(ctx context.Context, addr string) (*client, error) {
	nc, err := dialStream(ctx, addr)
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
	return &client{conn: conn, address: addr, ssh: sc}, nil
}

type connDialer struct{ c net.Conn }

func (d connDialer) DialContext(context.Context, string, string) (net.Conn, error) { return d.c, nil }

func transportError(addr string, err error) *callError {
	return &callError{Code: "unavailable.transport", Message: fmt.Sprintf("cannot reach signalttyd at %s: %v", addr, err),
		Data: map[string]any{"address": addr}}
}

// fail turns a call's error into a *callError; a connection lost because
// ssh failed is unavailable.transport with what ssh said.
func (c *client) fail(err error) error {
	var ve *vl.Error
	var ip *vl.InvalidParameter
	var mnf *vl.MethodNotFound
	if c.ssh != nil && !errors.As(err, &ve) && !errors.As(err, &ip) && !errors.As(err, &mnf) {
		if f := c.ssh.Failure(); f != nil { // not a reply: did ssh fail?
			return transportError(c.address, f)
		}
	}
	return replyError(err)
}

// bridgeCmd is the remote end of ssh-exec: addresses: it connects to the
// local daemon (starting it if needed, as every command does) and copies
// standard input to it and its replies to standard output.
func bridgeCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "bridge",
		Short: "Connect standard input and output to the daemon (for ssh-exec:HOST:signaltty bridge)",
		Long: `Relay varlink between standard input/output and the local daemon, so that
another host reaches it with the address "ssh-exec:HOST:signaltty bridge"
(the CLI, signaltty mcp, and varlinkctl alike). Ends when either side closes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			addr := a.address
			if addr == "" {
				addr = defaultAddress()
			}
			if isRemote(addr) {
				return &callError{Code: "invalid_params.address", Message: "signaltty bridge relays to a local daemon, not " + addr,
					Data: map[string]any{"address": addr}}
			}
			probe, err := dial(cmd.Context(), addr) // starts the daemon when none answers
			if err != nil {
				return err
			}
			probe.conn.Close()
			nc, err := dialStream(cmd.Context(), addr)
			if err != nil {
				return err
			}
			uc := nc.(*net.UnixConn)
			defer uc.Close()
			// The end of input half-closes the daemon connection; the daemon
			// then finishes its replies and closes, which ends the copy out.
			done := make(chan struct{})
			go func() { _, _ = io.Copy(uc, os.Stdin); _ = uc.CloseWrite() }()
			go func() { _, _ = io.Copy(os.Stdout, uc); close(done) }()
			select {
			case <-done:
			case <-cmd.Context().Done():
			}
			return nil
		},
	}
}

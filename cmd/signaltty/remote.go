package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"

	"github.com/signaltty/signaltty/varlink/address"
	"github.com/spf13/cobra"
	vl "github.com/varlink/go/varlink"
)

// isRemote reports whether addr is reached through ssh (docs/remote.md).
func isRemote(addr string) bool { return address.IsRemote(addr) }

// dialRemote connects through ssh (ssh-unix:HOST:/PATH, ssh-exec:HOST:CMD).
// What ssh reports when it cannot connect comes back as
// unavailable.transport on the first call.
func dialRemote(ctx context.Context, addr string) (*client, error) {
	sc, err := address.DialSSH(ctx, addr)
	if err != nil {
		return nil, transportError(addr, err)
	}
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
			path, err := address.SocketPath(addr)
			if err != nil {
				return &callError{Code: "invalid_params.address", Message: err.Error(), Data: map[string]any{"address": addr}}
			}
			probe, err := dial(cmd.Context(), addr) // starts the daemon when none answers
			if err != nil {
				return err
			}
			probe.conn.Close()
			uc, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
			if err != nil {
				return unavailable(addr, err)
			}
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
			_ = syscall.Close(1) // the peer sees the end of the stream
			return nil
		},
	}
}

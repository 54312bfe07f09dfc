package main

import (
	"io"
	"net"
	"os"

	"github.com/signaltty/signaltty/cmd/internal/daemon"
	"github.com/spf13/cobra"
)

// isRemote reports whether addr is reached through ssh (docs/remote.md).
func isRemote(addr string) bool { return daemon.IsRemote(addr) }

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

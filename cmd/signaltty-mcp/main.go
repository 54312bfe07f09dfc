// Command signaltty-mcp is signaltty's Model Context Protocol server
// (docs/mcp.md): one tool per varlink call of the signaltty CLI, served on
// standard input and output. Users and agents start it as `signaltty mcp`,
// which replaces itself with this program; it is a program of its own so
// that the MCP SDK is not linked into the CLI.
//
//	signaltty-mcp [--address ADDRESS] [--wait-cap-ms MS]
//
// --address is the daemon address (default $SIGNALTTY_ADDRESS, else the
// user's socket); --wait-cap-ms sets the longest run_wait and pane_wait of
// one call (default 110000 ms, at most 1500000; docs/mcp.md, "Long
// waits"). $MAX_MCP_OUTPUT_TOKENS (default 25,000) sets the budget every
// result is kept under (docs/mcp.md, "Result size"). Exit status: 0 when the client goes away, 2 for a bad flag, 1
// when serving fails.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/signaltty/signaltty/cmd/internal/daemon"
	"github.com/signaltty/signaltty/service/request"
)

// version is the signaltty version, set by the build (meson: -X main.version).
var version = "0.1.0"

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("signaltty-mcp", flag.ContinueOnError)
	addr := fs.String("address", "", "daemon address (default $SIGNALTTY_ADDRESS or unix:$XDG_RUNTIME_DIR/signaltty/dev.signaltty)")
	waitCap := fs.Int64("wait-cap-ms", request.MCPWaitCapMs, "longest run_wait and pane_wait of one call, in ms (at most "+strconv.Itoa(request.MaxMCPWaitCapMs)+")")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "signaltty-mcp: unexpected argument %q (invalid_params.usage)\n", fs.Arg(0))
		return 2
	}
	s := &server{address: *addr, waitCap: *waitCap, budget: resultBudget()}
	if s.address == "" {
		s.address = daemon.DefaultAddress()
	}
	if s.waitCap <= 0 {
		s.waitCap = request.MCPWaitCapMs
	}
	if s.waitCap > request.MaxMCPWaitCapMs {
		s.waitCap = request.MaxMCPWaitCapMs
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := s.serve(ctx, &lineTransport{r: os.Stdin, w: os.Stdout}); err != nil {
		fmt.Fprintf(os.Stderr, "signaltty-mcp: %v\n", err)
		return 1
	}
	return 0
}

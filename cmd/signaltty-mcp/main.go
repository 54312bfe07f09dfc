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

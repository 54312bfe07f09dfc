package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/signaltty/signaltty/cmd/internal/daemon"
)

// options are the view's keys and whether it may send anything.
type options struct {
	readOnly bool
	detach   byte
	prefix   byte
	history  byte // after the prefix: the history view
	mouse    bool // take the terminal's mouse reports (mouse.go)
}

// viewer is one run of the program: the daemon's address.
type viewer struct {
	address string
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("signaltty-attach", flag.ContinueOnError)
	addr := fs.String("address", "", "daemon address (default $SIGNALTTY_ADDRESS or unix:$XDG_RUNTIME_DIR/signaltty/dev.signaltty)")
	asJSON := fs.Bool("json", false, "print a failure as one line of JSON")
	readOnly := fs.Bool("read-only", false, "only watch: send no keys and never resize the panes")
	detach := fs.Uint("detach", 0x1c, "the detach key's byte")
	prefix := fs.Uint("prefix", 0x02, "the prefix key's byte")
	history := fs.Uint("history", '[', "after the prefix, the history view key's byte")
	mouse := fs.Bool("mouse", false, "take the terminal's mouse reports: click to focus, drag a border, the wheel")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 1 || *detach > 0xff || *prefix > 0xff || *history > 0xff || *detach == *prefix || *history == *prefix || *history == *detach {
		fmt.Fprintln(os.Stderr, "usage: signaltty-attach [--address A] [--json] [--read-only] [--detach BYTE] [--prefix BYTE] [--history BYTE] [--mouse] [TAB]")
		return 2
	}
	v := &viewer{address: *addr}
	if v.address == "" {
		v.address = daemon.DefaultAddress()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := v.attachTab(ctx, fs.Arg(0), options{readOnly: *readOnly, detach: byte(*detach), prefix: byte(*prefix), history: byte(*history), mouse: *mouse})
	if err == nil {
		return 0
	}
	ce := daemon.AsError(err, "invalid_params.usage") // as the CLI maps an error that is not a call's
	if *asJSON {
		fmt.Fprintln(os.Stdout, string(ce.JSON()))
	} else {
		fmt.Fprintf(os.Stderr, "signaltty: %s (%s)\n", ce.Message, ce.Code)
	}
	return ce.ExitStatus()
}

// decode unmarshals a reply; a reply that does not decode is internal.
func decode(raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return &daemon.Error{Code: "internal", Message: "cannot decode reply: " + err.Error(), Data: map[string]any{}}
	}
	return nil
}

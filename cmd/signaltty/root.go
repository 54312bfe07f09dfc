package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/signaltty/signaltty/cmd/internal/daemon"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// app holds the global flags and the output streams.
type app struct {
	address string
	json    bool
	out     io.Writer
	errw    io.Writer
}

// execute runs the CLI with args and returns the exit status.
func execute(args []string) int { return executeTo(args, os.Stdout, os.Stderr) }

// executeTo is execute printing to out and errw.
func executeTo(args []string, out, errw io.Writer) int {
	a := &app{out: out, errw: errw}
	root := &cobra.Command{
		Use:   "signaltty",
		Short: "Drive signalttyd: workspaces, tabs and panes running programs on real PTYs",
		Long: `signaltty talks to signalttyd, the signaltty daemon, over varlink.
Each subcommand makes one call; --json prints exactly the reply object (or
{"error":{...}}) on one line. Exit status: 0 ok, 2 invalid parameters,
3 not found, 4 denied, 5 conflict, 6 unavailable, 7 timeout, 8 cancelled,
10 unsupported, 1 anything else.

Without a command it prints the tree of workspaces, tabs and panes (with
--json: {"workspaces":[{workspace, tabs, panes}...]}); on a terminal it then
asks for a pane to attach to.

When no daemon answers and SIGNALTTY_NO_AUTOSTART is unset, signalttyd is
started in the background first.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// Without a command: the navigator (navigator.go).
	root.Args = cobra.NoArgs
	root.RunE = a.navigate
	versionFlag(root) // version.go
	root.PersistentFlags().StringVar(&a.address, "address", "", "daemon address (default $SIGNALTTY_ADDRESS or unix:$XDG_RUNTIME_DIR/signaltty/dev.signaltty)")
	root.PersistentFlags().BoolVar(&a.json, "json", false, "print the reply object as one line of JSON")
	root.AddCommand(commandsFor(a, args)...) // commands.go
	for _, c := range root.Commands() {
		strictGroup(c)
	}
	for _, arg := range args { // known before cobra parses, for usage errors too
		if arg == "--" {
			break
		}
		if arg == "--json" || arg == "--json=true" {
			a.json = true
		}
	}
	root.SetArgs(args)
	root.SetOut(a.out)
	root.SetErr(a.errw)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var es exitStatus
	if errors.As(err, &es) {
		return int(es)
	}
	ce := asCallError(err, "invalid_params.usage") // else cobra: unknown command or flag, bad flag value
	if a.json {
		fmt.Fprintln(a.out, string(errorJSON(ce)))
	} else {
		fmt.Fprintf(a.errw, "signaltty: %s (%s)\n", ce.Message, ce.Code)
	}
	return ce.ExitStatus()
}

// asCallError is err as a *callError: the daemon's error, "cancelled" for
// an interrupt, else code with err's text.
func asCallError(err error, code string) *callError { return daemon.AsError(err, code) }

// errorJSON is what --json prints for a failure: {"error":{"code",
// "message","data"}}. The MCP server's tool errors carry the same text.
func errorJSON(ce *callError) []byte { return ce.JSON() }

// call dials the daemon and makes one call; its reply is what --json
// prints (through compact) and what the MCP server returns.
func (a *app) call(ctx context.Context, method string, params map[string]any) (json.RawMessage, error) {
	c, err := a.dial(ctx)
	if err != nil {
		return nil, err
	}
	defer c.conn.Close()
	return c.call(ctx, method, params)
}

// run dials the daemon, makes one call and prints the reply: raw with
// --json, else through human (nil prints nothing).
func (a *app) run(cmd *cobra.Command, method string, params map[string]any, human func(json.RawMessage) error) error {
	raw, err := a.call(cmd.Context(), method, params)
	if err != nil {
		return err
	}
	if a.json {
		fmt.Fprintln(a.out, string(compact(raw)))
		return nil
	}
	if human == nil {
		return nil
	}
	return human(raw)
}

func (a *app) dial(ctx context.Context) (*client, error) {
	addr := a.address
	if addr == "" {
		addr = defaultAddress()
	}
	return dial(ctx, addr)
}

func compact(raw json.RawMessage) []byte { return daemon.Compact(raw) }

// params collects the flags the user set into call parameters; a flag
// "grace-ms" is the parameter "grace_ms".
func params(cmd *cobra.Command, names ...string) map[string]any {
	p := map[string]any{}
	for _, n := range names {
		f := cmd.Flags().Lookup(n)
		if f == nil || !f.Changed {
			continue
		}
		name := strings.ReplaceAll(n, "-", "_")
		switch f.Value.Type() {
		case "bool":
			v, _ := cmd.Flags().GetBool(n)
			p[name] = v
		case "int", "int64":
			v, _ := cmd.Flags().GetInt64(n)
			p[name] = v
		case "float64":
			v, _ := cmd.Flags().GetFloat64(n)
			p[name] = v
		case "stringSlice", "stringArray":
			p[name] = arrayFlag(cmd.Flags(), n)
		default:
			p[name] = f.Value.String()
		}
	}
	return p
}

// arrayFlag is the values of a repeatable flag as given, an empty one
// included (pflag's GetStringArray drops a single empty value, and
// it fails on a StringSlice flag); nil for a flag not given.
func arrayFlag(f *pflag.FlagSet, name string) []string {
	if fl := f.Lookup(name); fl != nil && fl.Changed {
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			return sv.GetSlice()
		}
	}
	return nil
}

// usageError is a command line that asks for something the command cannot
// do: invalid_params.usage, exit 2.
func usageError(msg string) error {
	return &callError{Code: "invalid_params.usage", Message: msg, Data: map[string]any{}}
}

// decode unmarshals a reply for human output.
func decode(raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return &callError{Code: "internal", Message: "cannot decode reply: " + err.Error(), Data: map[string]any{}}
	}
	return nil
}

// exitStatus ends the CLI with a status and no message (run wait's result).
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// strictGroup makes a command that only groups subcommands fail on an
// unknown subcommand (invalid_params.usage, exit 2) instead of printing its
// help and exiting 0.
func strictGroup(c *cobra.Command) {
	for _, sub := range c.Commands() {
		strictGroup(sub)
	}
	if c.Run != nil || c.RunE != nil || !c.HasSubCommands() {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return fmt.Errorf("%s needs a subcommand (see %s --help)", cmd.CommandPath(), cmd.CommandPath())
		}
		return fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath())
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/signaltty/signaltty/cmd/internal/attachio"
	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
	"github.com/spf13/cobra"
)

func attachCmd(a *app) *cobra.Command {
	var o attachOptions
	c := &cobra.Command{
		Use:   "attach [PANE] [--read-only] [--detach-key C-\\] | attach --tab [TAB]",
		Short: "Show a pane on this terminal and type into it (Mux.AttachPane)",
		Long: `Attach this terminal to a pane: its screen is drawn (colours, attributes,
cursor, title), then followed live; keys, pastes and mouse reports go to the
program as it asked for them. The detach key (default C-\, Ctrl-backslash;
--detach-key takes a key as pane send --key names it) leaves the program
running. Several clients may attach to one pane. The client that attached or
resized last sets the pane's size; --read-only sends nothing (no keys, no
resize). A pane without a process shows its saved rows and its state until
a key is pressed; a pane whose process exits while attached ends the attach
with a line saying how. Without PANE, the panes are listed to pick one (as
signaltty alone does). See docs/attach.md.

With --tab, all panes of a tab (default: the active tab of the first
workspace that has one) are drawn in their split layout, each in a frame
titled with its title and id, the focused one green; the panes are resized
to their frames. Keys go to the focused pane, except the prefix (default
C-b) followed by: o, n, Tab, Right or Down (focus the next pane), p, Left or
Up (the previous), z (zoom the focused pane to the whole view and back), d
(detach) or the prefix again (send it).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref := o.pane
			if len(args) == 1 {
				ref = args[0]
			}
			key, err := keyBytes(o.detachKey)
			if err != nil || len(key) != 1 {
				return &callError{Code: "invalid_params.detach_key", Message: fmt.Sprintf("--detach-key %q is not a key of one byte", o.detachKey),
					Data: map[string]any{"param": "detach_key"}}
			}
			o.detach = key[0]
			if key, err = keyBytes(o.prefixKey); err != nil || len(key) != 1 || key[0] == o.detach {
				return &callError{Code: "invalid_params.prefix", Message: fmt.Sprintf("--prefix %q is not a key of one byte other than the detach key", o.prefixKey),
					Data: map[string]any{"param": "prefix"}}
			}
			o.prefix = key[0]
			if o.tab {
				return a.attachTab(cmd.Context(), ref, o)
			}
			if ref == "" {
				if !attachio.IsTerminal(os.Stdin) || !attachio.IsTerminal(os.Stdout) {
					return &callError{Code: "invalid_params.pane", Message: "attach needs a pane (signaltty attach PANE; signaltty alone lists them)",
						Data: map[string]any{"param": "pane"}}
				}
				return a.navigateWith(cmd.Context(), o) // pick one
			}
			return a.attach(cmd.Context(), ref, o)
		},
	}
	c.Flags().StringVar(&o.pane, "pane", "", "pane id (or give it as the argument)")
	c.Flags().BoolVar(&o.readOnly, "read-only", false, "only watch: send no keys and never resize the pane")
	c.Flags().StringVar(&o.detachKey, "detach-key", `C-\`, "key that detaches")
	c.Flags().BoolVar(&o.tab, "tab", false, "draw all panes of a tab in their layout")
	c.Flags().StringVar(&o.prefixKey, "prefix", "C-b", "with --tab: the prefix key of the view's commands")
	return c
}

type attachOptions struct {
	pane      string
	readOnly  bool
	detachKey string
	detach    byte
	tab       bool
	prefixKey string
	prefix    byte
}

// The terminal side of an attach is package attachio, which the tab view
// program signaltty-attach shares; these are its names here.
type (
	attachReply = attachio.Reply
	terminalIO  = attachio.Terminal
)

func openTerminal() (*terminalIO, error) { return attachio.Open() }

// attach runs one client attached to one pane until the user detaches, the
// pane's process exits, or ctx ends.
func (a *app) attach(ctx context.Context, ref string, o attachOptions) error {
	ctl, err := a.dial(ctx)
	if err != nil {
		return err
	}
	defer ctl.conn.Close()
	raw, err := ctl.call(ctx, "dev.signaltty.Mux.GetPane", map[string]any{"pane": ref})
	if err != nil {
		return err
	}
	var got struct{ Pane mux.Pane }
	if err := decode(raw, &got); err != nil {
		return err
	}
	pane := got.Pane
	stream, err := a.dial(ctx)
	if err != nil {
		return err
	}
	defer stream.conn.Close()

	tio, err := openTerminal()
	if err != nil {
		return err
	}
	restore := tio.Restore
	defer restore()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Size policy (docs/attach.md): the client that attached or resized
	// last sets the size; a read-only client never does.
	var lastCols, lastRows int
	resize := func() {
		if o.readOnly || pane.State != "live" {
			return
		}
		cols, rows := tio.Size()
		if cols == lastCols && rows == lastRows {
			return
		}
		lastCols, lastRows = cols, rows
		_, _ = ctl.call(ctx, "dev.signaltty.Mux.ResizePane", map[string]any{"pane": pane.Id, "cols": cols, "rows": rows})
	}
	resize()
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	defer signal.Stop(winch)

	// Output: the stream's frames go to the terminal as they come.
	type ending struct {
		reply attachReply
		err   error
	}
	ended := make(chan ending, 1)
	go func() {
		var last attachReply
		err := stream.stream(ctx, "dev.signaltty.Mux.AttachPane", map[string]any{"pane": pane.Id, "term": os.Getenv("TERM")},
			func(raw json.RawMessage) error {
				var r attachReply
				if err := json.Unmarshal(raw, &r); err != nil {
					return err
				}
				if data, err := base64.StdEncoding.DecodeString(r.Data); err == nil && len(data) > 0 {
					if err := writeFrame(tio, data); err != nil {
						return err
					}
				}
				if r.Pane != nil {
					last.Pane = r.Pane
				}
				last.End = r.End
				return nil
			})
		ended <- ending{last, err}
	}()

	// Input: keys go to the pane (on the control connection) until the
	// detach key; after the end, any key.
	keys := tio.Keys(ctx)

	var end *ending
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-winch:
			resize()
		case e := <-ended:
			end = &e
			if e.err != nil {
				restore()
				return e.err
			}
			if e.reply.Pane != nil {
				pane = *e.reply.Pane
			}
			if !attachedLive(got.Pane) {
				// Nothing ran while attached: show the saved screen and its
				// state until a key is pressed.
				cols, rows := tio.Size()
				line := fmt.Sprintf(" %s: %s — press a key ", pane.Id, endLine(pane, e.reply.End))
				_ = writeFrame(tio, []byte(fmt.Sprintf("\x1b[%d;1H\x1b[7m%-*.*s\x1b[m", rows, cols, cols, line)))
				continue
			}
			restore()
			fmt.Fprintf(a.out, "[%s %s]\n", pane.Id, endLine(pane, e.reply.End))
			return nil
		case b, ok := <-keys:
			if !ok {
				return nil
			}
			if end != nil {
				restore()
				fmt.Fprintf(a.out, "[%s %s]\n", pane.Id, endLine(pane, end.reply.End))
				return nil
			}
			i := bytes.IndexByte(b, o.detach)
			send := b
			if i >= 0 {
				send = b[:i]
			}
			if len(send) > 0 && !o.readOnly {
				_, _ = ctl.call(ctx, "dev.signaltty.Mux.SendInput", map[string]any{"pane": pane.Id, "data": base64.StdEncoding.EncodeToString(send)})
			}
			if i >= 0 {
				restore()
				fmt.Fprintf(a.out, "[detached from %s]\n", pane.Id)
				return nil
			}
		}
	}
}

// attachedLive reports whether a pane had a process when the client attached.
func attachedLive(p mux.Pane) bool { return p.State == "live" }

// endLine says how an attach ended (attachio.EndLine).
func endLine(p mux.Pane, end *string) string { return attachio.EndLine(p, end) }

// writeFrame writes b to the terminal (attachio.ErrDetached once restored).
func writeFrame(t *terminalIO, b []byte) error {
	_, err := t.Write(b)
	return err
}

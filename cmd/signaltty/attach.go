package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/signaltty/signaltty/cmd/internal/attachio"
	"github.com/signaltty/signaltty/cmd/internal/historyview"
	"github.com/signaltty/signaltty/cmd/internal/keytable"
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
Up (the previous), a (the next pane that needs you: frames say "! ATTENTION"),
z (zoom the focused pane to the whole view and back), d (detach) or the
prefix again (send it). Without TAB: the active tab of the workspace of the
pane this runs in (else of the first workspace), never a run's tab. With
--mouse: a click focuses a pane, the wheel shows its history view, a drag of
the border between panes resizes the split (saved in the layout), and a pane
that asked for mouse reports gets them.

The prefix (default C-b) then [ (--history-key) or PageUp shows the pane's
history view: its rows as pane capture numbers them, in colour, while the
pane keeps running; the bottom line's [B/T] says how many rows the pane has
below the view (B) and how many it keeps (T). Up/Down/k/j a row,
PageUp/PageDown a page, g/G the oldest/newest rows, the mouse wheel; / and
? search towards newer and older rows (plain text, or a regular expression
after re:), n and N repeat it; v or Space selects characters from the
cursor, V whole rows, C-v or r toggles a rectangle, y or Enter copies the
selection to the terminal's clipboard (OSC 52), s saves it to a file; q or
Escape goes back to the live pane. The
prefix twice sends the prefix; the prefix then another key sends both.
With --mouse, while the pane takes no mouse reports, the client takes
them: the wheel enters the view, a drag enters it selecting, its release
copies. --keys lists every key.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.keys {
				return keytable.Print(a.out)
			}
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
			if key, err = keyBytes(o.historyKey); err != nil || len(key) != 1 || key[0] == o.detach || key[0] == o.prefix {
				return &callError{Code: "invalid_params.history_key", Message: fmt.Sprintf("--history-key %q is not a key of one byte other than the detach and prefix keys", o.historyKey),
					Data: map[string]any{"param": "history_key"}}
			}
			o.history = key[0]
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
	c.Flags().StringVar(&o.prefixKey, "prefix", "C-b", "the prefix key of the view's commands")
	c.Flags().StringVar(&o.historyKey, "history-key", "[", "after the prefix: enter the history view (PageUp too)")
	c.Flags().BoolVar(&o.mouse, "mouse", false, "take the mouse reports a pane does not: the wheel and drags enter the history view; in the tab view clicks focus, border drags resize")
	c.Flags().BoolVar(&o.keys, "keys", false, "list every key of attach, the tab view, the history view and the navigator, and exit")
	return c
}

type attachOptions struct {
	pane       string
	readOnly   bool
	detachKey  string
	detach     byte
	tab        bool
	prefixKey  string
	prefix     byte
	historyKey string
	history    byte
	mouse      bool
	keys       bool // list the keys (keytable) and exit
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

	// Output: the stream's frames go to the terminal as they come, except
	// while the history view is shown (docs/attach.md, "History view"):
	// leaving it starts the stream again, on a new connection, whose first
	// reply draws the whole screen; frames of an earlier stream are dropped.
	type ending struct {
		reply attachReply
		err   error
	}
	var (
		outMu  sync.Mutex
		inView bool
		gen    int   // the current stream's number
		mouse  uint8 // the pane's mouse tracking modes (mouseReports)
	)
	ended := make(chan ending, 1)
	restart := make(chan struct{}, 1)
	go func() {
		var last attachReply
		for {
			outMu.Lock()
			mine := gen
			mouse = 0 // the first reply sets the pane's modes from none
			outMu.Unlock()
			var restarted atomic.Bool
			done := make(chan struct{})
			go func(c *client) {
				select {
				case <-restart:
					restarted.Store(true)
					_ = c.conn.Close()
				case <-done:
				}
			}(stream)
			err := stream.stream(ctx, "dev.signaltty.Mux.AttachPane", map[string]any{"pane": pane.Id, "term": os.Getenv("TERM")},
				func(raw json.RawMessage) error {
					var r attachReply
					if err := json.Unmarshal(raw, &r); err != nil {
						return err
					}
					if data, err := base64.StdEncoding.DecodeString(r.Data); err == nil && len(data) > 0 {
						outMu.Lock()
						var err error
						if mine == gen && !inView {
							was := mouse
							mouse = mouseReports(data, mouse)
							if o.mouse && mouse != 0 && was == 0 {
								data = append([]byte(clientMouseOff), data...) // the pane's own reports only
							} else if o.mouse && mouse == 0 {
								data = append(data, clientMouseOn...)
							}
							err = writeFrame(tio, data)
						}
						outMu.Unlock()
						if err != nil {
							return err
						}
					}
					if r.Pane != nil {
						last.Pane = r.Pane
					}
					last.End = r.End
					return nil
				})
			close(done)
			if restarted.Load() && ctx.Err() == nil { // the watcher closed it
				next, derr := a.dial(ctx)
				if derr == nil {
					stream = next
					continue
				}
				err = derr
			} else {
				_ = stream.conn.Close()
			}
			ended <- ending{last, err}
			return
		}
	}()

	// The history view: entered with the prefix then the history key (or
	// PageUp), drawn over the pane until q or Escape.
	var view *historyview.View
	draw := func() {
		out, err := view.Render(ctx, 0, 0)
		if err != nil {
			view.Say(err.Error())
			out, _ = view.Render(ctx, 0, 0)
		}
		outMu.Lock()
		_ = writeFrame(tio, out)
		outMu.Unlock()
	}
	enterView := func(rest []byte, fromScreen bool) {
		cols, rows := tio.Size()
		v, err := historyview.New(ctx, historyview.Capture{Call: ctl.call, Pane: pane.Id}, cols, rows)
		if err != nil {
			return // the pane is gone: its stream ends the attach
		}
		if fromScreen {
			v.FromScreen()
		}
		view = v
		outMu.Lock()
		inView = true
		_ = writeFrame(tio, []byte(historyview.Enter))
		outMu.Unlock()
		if quit, err := view.Key(ctx, rest); err != nil {
			view.Say(err.Error())
		} else if quit {
			return
		}
		draw()
	}
	paneMouse := func() bool {
		outMu.Lock()
		defer outMu.Unlock()
		return mouse != 0
	}
	leaveView := func() {
		view = nil
		outMu.Lock()
		inView = false
		gen++
		_ = writeFrame(tio, []byte(historyview.Leave+attachio.ResetModes))
		outMu.Unlock()
		select {
		case restart <- struct{}{}:
		default:
		}
	}
	tick := time.NewTicker(time.Second) // the view's position line follows the pane
	defer tick.Stop()

	// Input: keys go to the pane (on the control connection) until the
	// detach key; after the end, any key.
	keys := tio.Keys(ctx)
	pending := false // the prefix key was pressed
	var press []byte // with --mouse: the last left button press the client took

	var end *ending
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-winch:
			resize()
			if view != nil {
				view.Resize(tio.Size())
				draw()
			}
		case <-tick.C:
			if view != nil {
				if err := view.Refresh(ctx); err != nil {
					view.Say(err.Error())
				}
				draw()
			}
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
			if view != nil {
				quit, err := view.Key(ctx, b)
				if err != nil {
					view.Say(err.Error())
				}
				if quit {
					leaveView()
				} else {
					draw()
				}
				continue
			}
			var send []byte
			flush := func() {
				if len(send) > 0 && !o.readOnly {
					_, _ = ctl.call(ctx, "dev.signaltty.Mux.SendInput", map[string]any{"pane": pane.Id, "data": base64.StdEncoding.EncodeToString(send), "baseline": false})
				}
				send = nil
			}
		bytes:
			for i := 0; i < len(b); i++ {
				c := b[i]
				switch {
				case pending:
					pending = false
					switch {
					case c == o.history:
						flush()
						enterView(b[i+1:], false)
						break bytes
					case bytes.HasPrefix(b[i:], []byte(pageUp)):
						flush()
						enterView(b[i:], false) // and scroll a page up
						break bytes
					case c == o.detach:
						send = append(send, o.prefix)
						i--
					case c == o.prefix:
						send = append(send, c)
					default: // not a command: both keys go to the pane
						send = append(send, o.prefix, c)
					}
				case c == 0x1b && o.mouse && bytes.HasPrefix(b[i:], []byte("\x1b[<")) && !paneMouse():
					// The client's own mouse report: the wheel up enters the
					// history view, anything else is dropped.
					n := bytes.IndexAny(b[i:], "Mm")
					if n < 0 {
						break bytes
					}
					var btn, x, y int
					report := b[i : i+n+1]
					if _, err := fmt.Sscanf(string(b[i+3:i+n]), "%d;%d;%d", &btn, &x, &y); err == nil && b[i+n] == 'M' {
						switch {
						case btn&^0x1c == 64:
							flush()
							enterView(b[i:], false)
							break bytes
						case btn&^0x1c == 0:
							press = append(press[:0], report...)
						case btn&^0x1c == 32 && press != nil: // a drag: the view selects from the press
							flush()
							enterView(append(press, b[i:]...), true)
							press = nil
							break bytes
						}
					} else {
						press = nil
					}
					i += n
				case c == o.detach:
					flush()
					restore()
					fmt.Fprintf(a.out, "[detached from %s]\n", pane.Id)
					return nil
				case c == o.prefix:
					pending = true
				default:
					send = append(send, c)
				}
			}
			flush()
		}
	}
}

// pageUp is what a terminal sends for Page Up.
const pageUp = "\x1b[5~"

// The client's own mouse reports (--mouse): button events (presses,
// releases and drags), SGR encoding.
const (
	clientMouseOn  = "\x1b[?1002h\x1b[?1006h"
	clientMouseOff = "\x1b[?1002l\x1b[?1006l"
)

// mouseSet matches DEC private mode sets and resets (CSI ? Pm h/l).
var mouseSet = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\x1b\[\?([0-9;]+)([hl])`) })

// mouseReports follows which mouse tracking modes (9, 1000, 1002, 1003;
// bits 0-3) a pane's replies turned on, from those on before data.
func mouseReports(data []byte, on uint8) uint8 {
	for _, m := range mouseSet().FindAllSubmatch(data, -1) {
		for _, mode := range strings.Split(string(m[1]), ";") {
			bit := map[string]uint8{"9": 1, "1000": 2, "1002": 4, "1003": 8}[mode]
			if m[2][0] == 'h' {
				on |= bit
			} else {
				on &^= bit
			}
		}
	}
	return on
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

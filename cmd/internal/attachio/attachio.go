package attachio

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	xterm "github.com/charmbracelet/x/term"
	"github.com/signaltty/signaltty/cmd/internal/daemon"
	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
)

// Reply is one reply of Mux.AttachPane: Data is base64 output, Cols and
// Rows the pane's size in cells, Pane and End set on the last reply.
type Reply struct {
	Data string    `json:"data"`
	Cols int       `json:"cols"`
	Rows int       `json:"rows"`
	Pane *mux.Pane `json:"pane"`
	End  *string   `json:"end"`
}

// Sequences the client writes around an attach: its own alternate screen,
// and on leaving every input mode a pane may have set, reset.
const (
	enterScreen = "\x1b[?1049h\x1b[H\x1b[2J"
	leaveScreen = ResetModes + "\x1b[m\x1b[?25h\x1b[?1049l"
)

// ResetModes resets every input mode a pane may set (docs/attach.md,
// "Input modes") to its default.
const ResetModes = "\x1b[?1l\x1b[?9l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1004l\x1b[?1005l\x1b[?1006l\x1b[?1015l\x1b[?2004l"

// Terminal is the user's terminal in raw mode. Frames are written with
// Write, which does nothing once the terminal was restored (a frame still
// arriving then must not land on the user's screen).
type Terminal struct {
	In, Out *os.File
	state   *xterm.State
	mu      sync.Mutex
	done    bool
}

// ErrDetached ends a stream whose client detached.
var ErrDetached = errors.New("detached")

// Open puts standard input in raw mode and enters the alternate screen on
// standard output. Not a terminal: invalid_params.terminal.
func Open() (*Terminal, error) {
	in, out := os.Stdin, os.Stdout
	if !IsTerminal(in) || !IsTerminal(out) {
		return nil, &daemon.Error{Code: "invalid_params.terminal", Message: "attach needs a terminal on standard input and output",
			Data: map[string]any{"param": "terminal"}}
	}
	st, err := xterm.MakeRaw(in.Fd())
	if err != nil {
		return nil, &daemon.Error{Code: "internal", Message: "cannot put the terminal in raw mode: " + err.Error(), Data: map[string]any{}}
	}
	_, _ = out.WriteString(enterScreen)
	return &Terminal{In: in, Out: out, state: st}, nil
}

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool { return xterm.IsTerminal(f.Fd()) }

// Write writes to the terminal unless it was restored (ErrDetached).
func (t *Terminal) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return 0, ErrDetached
	}
	return t.Out.Write(b)
}

// Size is the terminal's size in cells (80×24 when unknown).
func (t *Terminal) Size() (cols, rows int) {
	cols, rows, err := xterm.GetSize(t.Out.Fd())
	if err != nil || cols <= 0 || rows <= 0 {
		return 80, 24
	}
	return cols, rows
}

// Keys reads the terminal's input until it fails (then the channel is
// closed) or ctx ends; each value is one read's bytes, at most 64 KiB.
func (t *Terminal) Keys(ctx context.Context) <-chan []byte {
	keys := make(chan []byte)
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := t.In.Read(buf)
			if n > 0 {
				select {
				case keys <- append([]byte(nil), buf[:n]...):
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				close(keys)
				return
			}
		}
	}()
	return keys
}

// Restore leaves the alternate screen and raw mode (once).
func (t *Terminal) Restore() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return
	}
	t.done = true
	_, _ = t.Out.WriteString(leaveScreen)
	_ = xterm.Restore(t.In.Fd(), t.state)
}

// EndLine says how an attach ended: "exited with status 0", "killed by
// SIGTERM", "has no process (restored after a restart)", "was removed".
func EndLine(p mux.Pane, end *string) string {
	switch {
	case end != nil && *end == "removed":
		return "was removed"
	case p.Restore_state == "RESUMABLE":
		return "has no process (restored; signaltty resume " + p.Id + " resumes its agent)"
	case p.Restore_state == "RESTORED" || (end != nil && *end == "restored"):
		return "has no process (restored; pane relaunch starts it again)"
	case p.Status != nil && p.Status.Signal != nil:
		return "was killed by " + *p.Status.Signal
	case p.Status != nil && p.Status.Code != nil:
		return fmt.Sprintf("exited with status %d", *p.Status.Code)
	}
	return "has exited"
}

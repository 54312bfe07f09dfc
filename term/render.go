package term

import (
	"bytes"
	"slices"
	"time"

	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/signaltty/signaltty/term/rowstore"
)

// clientModes are the DEC private modes that decide what a terminal sends
// as input: cursor keys, mouse reports and their encodings, focus reports
// and bracketed paste. An attached client's terminal is put in the same
// state as the pane's, so the keys, mouse reports and pastes it sends are
// what the program asked for (docs/attach.md).
var clientModes = []ansi.DECMode{
	ansi.ModeCursorKeys,       // ?1 application cursor keys
	ansi.ModeMouseX10,         // ?9
	ansi.ModeMouseNormal,      // ?1000
	ansi.ModeMouseButtonEvent, // ?1002
	ansi.ModeMouseAnyEvent,    // ?1003
	ansi.ModeFocusEvent,       // ?1004
	ansi.DECMode(1005),        // UTF-8 mouse encoding
	ansi.ModeMouseExtSgr,      // ?1006
	ansi.DECMode(1015),        // urxvt mouse encoding
	ansi.ModeBracketedPaste,   // ?2004
}

var clientMode = func() map[ansi.DECMode]bool {
	m := map[ansi.DECMode]bool{}
	for _, d := range clientModes {
		m[d] = true
	}
	return m
}()

// Watch returns a channel that receives a value when the screen may have
// changed (after output, a resize, the release of the emulator) and a
// function that stops the watch. The terminal never blocks on it: one
// pending value stands for any number of changes.
func (t *Terminal) Watch() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	t.mu.Lock()
	if t.watchers == nil {
		t.watchers = map[chan struct{}]struct{}{}
	}
	t.watchers[ch] = struct{}{}
	t.mu.Unlock()
	return ch, func() {
		t.mu.Lock()
		delete(t.watchers, ch)
		t.mu.Unlock()
	}
}

// notifyLocked tells the watchers that the screen may have changed; t.mu is held.
func (t *Terminal) notifyLocked() {
	t.changes.Add(1)
	for ch := range t.watchers {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// Changes is a counter that grows whenever the screen or the history may
// have changed (output, a resize, the release of the emulator). It takes no
// lock: a saver compares it with the value it last saved at.
func (t *Terminal) Changes() uint64 { return t.changes.Load() }

// LastOutput is when the program's output last reached Write (also output
// dropped after Release); the zero time before any.
func (t *Terminal) LastOutput() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.wrote
}

// Title returns the last title the program set with OSC 0 or 2 ("" if none).
func (t *Terminal) Title() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.title
}

// Renderer turns a terminal's screen into the bytes that draw it on a
// client terminal of the same size: the cells with their colours and
// attributes (the emulator's own cells, diffed and encoded by the
// ultraviolet terminal renderer), the cursor's position and visibility,
// the input modes of clientModes and the title. The first frame, and the
// first after Invalidate or a size change, redraws the whole screen; later
// ones carry only what changed since the previous frame. A Renderer is
// not safe for concurrent use.
type Renderer struct {
	termName string
	out      bytes.Buffer
	uvr      *uv.TerminalRenderer
	sb       uv.ScreenBuffer
	cols     int
	rows     int
	full     bool
	modes    map[ansi.DECMode]bool // as last sent
	title    string                // as last sent
}

// NewRenderer returns a renderer for a client terminal whose $TERM is
// termName (it decides which control sequences the renderer may use;
// "" is taken as xterm-256color).
func NewRenderer(termName string) *Renderer {
	if termName == "" {
		termName = "xterm-256color"
	}
	return &Renderer{termName: termName, full: true}
}

// Size is the screen size, in cells, of the last frame.
func (r *Renderer) Size() (cols, rows int) { return r.cols, r.rows }

// Invalidate makes the next frame redraw the whole screen (for a client
// whose screen no longer matches the frames it was sent).
func (r *Renderer) Invalidate() { r.full = true }

// Frame returns the bytes that take a client terminal from the previous
// frame's screen (nothing, for the first) to the terminal's current one;
// nil when nothing changed. The bytes are valid until the next call. A
// terminal without an emulator (exited, restored) shows its stored rows
// with their styles and no cursor.
func (t *Terminal) Frame(r *Renderer) []byte {
	t.mu.Lock()
	t.parking.unparkLocked()
	t.flushHeld()
	if r.sb.RenderBuffer == nil || r.cols != t.cols || r.rows != t.rows {
		r.cols, r.rows = t.cols, t.rows
		r.sb = uv.NewScreenBuffer(r.cols, r.rows)
		r.full = true
	}
	var cur uv.Position
	hidden := true
	switch {
	case t.emu != nil:
		for y := 0; y < r.rows; y++ {
			for x := 0; x < r.cols; {
				c := t.emu.CellAt(x, y)
				if c == nil {
					r.sb.SetCell(x, y, &uv.EmptyCell)
					x++
					continue
				}
				if c.Width == 0 { // a wide character's continuation, set with it
					x++
					continue
				}
				r.sb.SetCell(x, y, c)
				x += c.Width
			}
		}
		cur, hidden = t.emu.CursorPosition(), t.emu.CursorHidden()
	case t.lazy: // nothing printed yet
		r.sb.Fill(&uv.EmptyCell)
		hidden = false
	default:
		for y := 0; y < r.rows; y++ {
			var row rowstore.Row
			if y < len(t.frozen) {
				row = t.frozen[y]
			}
			uv.NewStyledString(row.Styled(r.cols)).Draw(r.sb, uv.Rect(0, y, r.cols, 1))
		}
	}
	modes := make(map[ansi.DECMode]bool, len(t.modes))
	for m, on := range t.modes {
		modes[m] = on
	}
	title := t.title
	t.mu.Unlock()
	return r.encode(cur, hidden, modes, title)
}

// encode renders r.sb after the cells were copied, outside the terminal's lock.
func (r *Renderer) encode(cur uv.Position, hidden bool, modes map[ansi.DECMode]bool, title string) []byte {
	r.out.Reset()
	full := r.full
	if full {
		r.uvr = uv.NewTerminalRenderer(&r.out, []string{"TERM=" + r.termName})
		r.uvr.SetColorProfile(colorprofile.TrueColor)
		r.uvr.SetFullscreen(true)
		r.uvr.Erase()
		r.full = false
	}
	w := r.uvr
	_, _ = w.WriteString(ansi.HideCursor)
	for _, m := range clientModes {
		if on := modes[m]; full || on != r.modes[m] {
			if on {
				_, _ = w.WriteString(ansi.SetMode(m))
			} else {
				_, _ = w.WriteString(ansi.ResetMode(m))
			}
		}
	}
	r.modes = modes
	if title != r.title || (full && title != "") { // a program that set no title leaves the client's alone
		_, _ = w.WriteString(ansi.SetWindowTitle(title))
		r.title = title
	}
	w.Render(r.sb.RenderBuffer)
	w.MoveTo(cur.X, cur.Y)
	if !hidden {
		_, _ = w.WriteString(ansi.ShowCursor)
	}
	_ = w.Flush()
	return r.out.Bytes()
}

// RenderScreen returns the bytes that draw the terminal's current screen on
// a client terminal of the same size whose $TERM is termName, from a blank
// state: the first frame of a new Renderer.
func (t *Terminal) RenderScreen(termName string) []byte {
	return slices.Clone(t.Frame(NewRenderer(termName)))
}

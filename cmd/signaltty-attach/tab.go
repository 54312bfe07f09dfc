package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/signaltty/signaltty/cmd/internal/layout"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
	"github.com/signaltty/signaltty/cmd/internal/attachio"
	"github.com/signaltty/signaltty/cmd/internal/daemon"
	"github.com/signaltty/signaltty/cmd/internal/historyview"
	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
)

// The tab view (docs/attach.md, "Tab view"): every pane of a tab in its
// split layout, each in a frame with its title, composed with the
// emulator library's screen types: each pane's attach stream is fed to a
// local emulator of the pane's size, whose cells are copied into the
// view's screen buffer next to borders drawn by ultraviolet, and the
// buffer is drawn on the terminal by ultraviolet's renderer.

// tabPane is one pane of the view.
type tabPane struct {
	id, title string
	emu       *vt.Emulator // the pane's screen, as its attach stream draws it
	area      uv.Rectangle // its frame on the view; empty when not shown
	ended     string       // how it ended, "" while attached
	attention string       // its attention as last read (docs/agents.md, "Attention")
	agent     string       // its agent's kind and lifecycle ("claude working"), "" for none
	modes     map[ansi.DECMode]bool
}

type tabView struct {
	a       *viewer
	o       options
	ctl     *daemon.Client
	tio     *attachio.Terminal
	tab     mux.Tab
	mu      sync.Mutex // guards everything below and the panes' emulators
	panes   []*tabPane // layout order
	focus   int
	zoom    bool
	dirty   chan struct{}
	uvr     *uv.TerminalRenderer
	sb      uv.ScreenBuffer
	sent    map[ansi.DECMode]bool // input modes the terminal is in
	prefix  byte
	hist    *historyview.View // the focused pane's history view, nil when not shown
	drag    *drag             // the border being dragged with the mouse, nil when none
	pressed int               // the pane a mouse button went down on, -1 when none
}

// tabModes are the input modes the view gives the terminal from the
// focused pane (mouse reports are not passed on: their coordinates are the
// view's).
var tabModes = []ansi.DECMode{ansi.ModeCursorKeys, ansi.ModeBracketedPaste}

// attachTab runs the tab view until the user detaches or ctx ends.
func (a *viewer) attachTab(ctx context.Context, ref string, o options) error {
	ctl, err := daemon.Dial(ctx, a.address)
	if err != nil {
		return err
	}
	defer ctl.Close()
	tab, panes, err := findTab(ctx, ctl, ref)
	if err != nil {
		return err
	}
	tio, err := attachio.Open()
	if err != nil {
		return err
	}
	defer tio.Restore()
	v := &tabView{a: a, o: o, ctl: ctl, tio: tio, tab: tab, dirty: make(chan struct{}, 1), prefix: o.prefix, sent: map[ansi.DECMode]bool{}, pressed: -1}
	if o.mouse {
		_, _ = tio.Write([]byte(mouseOn))
	}
	byID := map[string]mux.Pane{}
	for _, p := range panes {
		byID[p.Id] = p
	}
	for i, id := range layout.Leaves(tab.Layout) {
		p := byID[id]
		tp := &tabPane{id: id, title: p.Title, agent: kindOf(p), emu: vt.NewEmulator(max(int(p.Cols), 1), max(int(p.Rows), 1)), modes: map[ansi.DECMode]bool{}}
		tp.emu.SetCallbacks(vt.Callbacks{
			EnableMode:  func(m ansi.Mode) { tp.setMode(m, true) },
			DisableMode: func(m ansi.Mode) { tp.setMode(m, false) },
		})
		go drainReplies(tp.emu)
		if p.State != "live" {
			tp.ended = attachio.EndLine(p, nil)
		}
		v.panes = append(v.panes, tp)
		if tab.Active_pane != nil && *tab.Active_pane == id {
			v.focus = i
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	v.relayout(ctx)
	for _, tp := range v.panes {
		go v.follow(ctx, tp)
	}
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	defer signal.Stop(winch)
	keys := tio.Keys(ctx)
	pending := false // the prefix key was pressed
	last := time.Time{}
	tick := time.NewTicker(time.Second) // the history view's position line follows the pane
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-winch:
			v.relayout(ctx)
		case <-v.dirty:
			if wait := 10*time.Millisecond - time.Since(last); wait > 0 {
				time.Sleep(wait) // coalesce bursts of frames into one redraw
			}
			v.draw()
			v.drawHistory(ctx)
			last = time.Now()
		case <-tick.C:
			v.readAttention(ctx)
			if v.hist != nil {
				if err := v.hist.Refresh(ctx); err != nil {
					v.hist.Say(err.Error())
				}
				v.drawHistory(ctx)
			}
		case b, ok := <-keys:
			if !ok {
				return nil
			}
			if v.hist != nil && o.mouse && v.pressElsewhere(b) {
				v.leaveHistory() // a press on another pane: back to live, and the press is its
			}
			if v.hist != nil {
				quit, err := v.hist.Key(ctx, b)
				if err != nil {
					v.hist.Say(err.Error())
				}
				if quit {
					v.leaveHistory()
				} else {
					v.drawHistory(ctx)
				}
				continue
			}
			var send []byte
		bytes:
			for i := 0; i < len(b); i++ {
				c := b[i]
				switch {
				case pending && (c == o.history || strings.HasPrefix(string(b[i:]), "\x1b[5~")):
					pending = false
					v.flush(ctx, send)
					send = nil
					rest := b[i+1:]
					if c != o.history {
						rest = b[i:] // PageUp: and a page up
					}
					v.enterHistory(ctx, rest)
					break bytes
				case pending:
					pending = false
					switch c {
					case 'd', o.detach:
						v.flush(ctx, send)
						tio.Restore()
						fmt.Fprintf(os.Stdout, "[detached from tab %s]\n", tab.Id)
						return nil
					case 'o', '\t', 'n':
						v.move(ctx, 1)
					case 'p':
						v.move(ctx, -1)
					case 'a':
						v.jumpToAttention(ctx)
					case 'z':
						v.mu.Lock()
						v.zoom = !v.zoom
						v.mu.Unlock()
						v.relayout(ctx)
					case v.prefix:
						send = append(send, c)
					case 0x1b: // an arrow key: ESC [ A..D or ESC O A..D
						if i+2 < len(b) && (b[i+1] == '[' || b[i+1] == 'O') {
							switch b[i+2] {
							case 'A', 'D':
								v.move(ctx, -1)
							case 'B', 'C':
								v.move(ctx, 1)
							}
							i += 2
						}
					}
				case c == 0x1b && o.mouse && strings.HasPrefix(string(b[i:]), "\x1b[<"):
					r, n := parseReport(b[i:])
					if n == 0 {
						break bytes // a report cut short: dropped
					}
					v.flush(ctx, send)
					send = nil
					if v.mouse(ctx, r) {
						v.enterHistory(ctx, b[i:])
						break bytes
					}
					i += n - 1
				case c == o.detach:
					v.flush(ctx, send)
					tio.Restore()
					fmt.Fprintf(os.Stdout, "[detached from tab %s]\n", tab.Id)
					return nil
				case c == v.prefix:
					pending = true
				default:
					send = append(send, c)
				}
			}
			v.flush(ctx, send)
		}
	}
}

func drainReplies(e *vt.Emulator) {
	buf := make([]byte, 256)
	for {
		if _, err := e.Read(buf); err != nil {
			return
		}
	}
}

func (tp *tabPane) setMode(m ansi.Mode, on bool) {
	if d, ok := m.(ansi.DECMode); ok {
		tp.modes[d] = on
	}
}

// flush sends typed bytes to the focused pane.
func (v *tabView) flush(ctx context.Context, b []byte) {
	if len(b) == 0 || v.o.readOnly {
		return
	}
	v.mu.Lock()
	id := v.panes[v.focus].id
	v.mu.Unlock()
	v.sendTo(ctx, id, b)
}

// sendTo sends bytes to a pane.
func (v *tabView) sendTo(ctx context.Context, id string, b []byte) {
	_, _ = v.ctl.Call(ctx, "dev.signaltty.Mux.SendInput", map[string]any{"pane": id, "data": base64.StdEncoding.EncodeToString(b), "baseline": false})
}

// move gives the focus to the next (d = 1) or previous (d = -1) pane.
func (v *tabView) move(ctx context.Context, d int) {
	v.mu.Lock()
	v.focus = (v.focus + d + len(v.panes)) % len(v.panes)
	zoom := v.zoom
	v.mu.Unlock()
	if zoom {
		v.relayout(ctx)
		return
	}
	v.redraw()
}

func (v *tabView) redraw() {
	select {
	case v.dirty <- struct{}{}:
	default:
	}
}

// follow feeds a pane's attach stream to its emulator until it ends.
func (v *tabView) follow(ctx context.Context, tp *tabPane) {
	c, err := daemon.Dial(ctx, v.a.address)
	if err != nil {
		v.ended(tp, "cannot attach: "+err.Error())
		return
	}
	defer c.Close()
	err = c.Stream(ctx, "dev.signaltty.Mux.AttachPane", map[string]any{"pane": tp.id, "term": "xterm-256color"}, func(raw json.RawMessage) error {
		var r attachio.Reply
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		data, _ := base64.StdEncoding.DecodeString(r.Data)
		v.mu.Lock()
		if r.Cols > 0 && r.Rows > 0 && (tp.emu.Width() != r.Cols || tp.emu.Height() != r.Rows) {
			tp.emu.Resize(r.Cols, r.Rows)
		}
		_, _ = tp.emu.Write(data)
		if r.Pane != nil {
			tp.title = r.Pane.Title
			if r.End != nil {
				tp.ended = attachio.EndLine(*r.Pane, r.End)
			}
		} else if r.End != nil {
			tp.ended = attachio.EndLine(mux.Pane{}, r.End)
		}
		v.mu.Unlock()
		v.redraw()
		return nil
	})
	if err != nil && ctx.Err() == nil {
		v.ended(tp, "stream ended: "+err.Error())
	}
}

func (v *tabView) ended(tp *tabPane, why string) {
	v.mu.Lock()
	if tp.ended == "" {
		tp.ended = why
	}
	v.mu.Unlock()
	v.redraw()
}

// draw composes the view and renders what changed.
func (v *tabView) draw() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.sb.Fill(&uv.EmptyCell)
	var cursor *uv.Position
	for i, tp := range v.panes {
		if tp.area.Empty() {
			continue
		}
		border := uv.RoundedBorder()
		if i == v.focus {
			border = border.Style(uv.Style{Fg: ansi.Green, Attrs: uv.AttrBold})
		}
		border.Draw(v.sb, tp.area)
		title := " " + tp.title + " · " + tp.id + " "
		if tp.ended != "" {
			title = " " + tp.title + " · " + tp.ended + " "
		}
		if tp.agent != "" {
			title = " " + tp.agent + title
		}
		if layout.NeedsYou(tp.attention) {
			title = " ! " + tp.attention + title
		}
		title = ansi.Truncate(title, max(tp.area.Dx()-4, 0), "…")
		uv.NewStyledString(title).Draw(v.sb, uv.Rect(tp.area.Min.X+2, tp.area.Min.Y, ansi.StringWidth(title), 1))
		in := inner(tp.area)
		w, h := min(in.Dx(), tp.emu.Width()), min(in.Dy(), tp.emu.Height())
		if i == v.focus && v.hist != nil {
			continue // the history view is drawn there
		}
		for y := 0; y < h; y++ {
			for x := 0; x < w; {
				c := tp.emu.CellAt(x, y)
				switch {
				case c == nil:
					x++
				case c.Width == 0:
					x++
				case x+c.Width > w: // a wide character cut by the frame
					x = w
				default:
					v.sb.SetCell(in.Min.X+x, in.Min.Y+y, c)
					x += c.Width
				}
			}
		}
		if i == v.focus && tp.ended == "" && !tp.emu.CursorHidden() {
			p := tp.emu.CursorPosition()
			if p.X < w && p.Y < h {
				pos := uv.Pos(in.Min.X+p.X, in.Min.Y+p.Y)
				cursor = &pos
			}
		}
	}
	r := v.uvr
	_, _ = r.WriteString(ansi.HideCursor)
	focused := v.panes[v.focus]
	for _, m := range tabModes {
		if on := focused.modes[m]; on != v.sent[m] {
			if on {
				_, _ = r.WriteString(ansi.SetMode(m))
			} else {
				_, _ = r.WriteString(ansi.ResetMode(m))
			}
			v.sent[m] = on
		}
	}
	r.Render(v.sb.RenderBuffer)
	if cursor != nil {
		r.MoveTo(cursor.X, cursor.Y)
		_, _ = r.WriteString(ansi.ShowCursor)
	}
	_ = r.Flush()
}

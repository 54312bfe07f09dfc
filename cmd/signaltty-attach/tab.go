package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/signaltty/signaltty/cmd/internal/layout"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/charmbracelet/colorprofile"
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

// kindOf is a pane's agent's kind and lifecycle (docs/agents.md,
// "Lifecycle"), "" for none.
func kindOf(p mux.Pane) string {
	if p.Agent == nil || p.Agent.Kind == "" || p.Agent.Kind == "none" {
		return ""
	}
	if p.Lifecycle == "" || p.Lifecycle == "unknown" {
		return p.Agent.Kind
	}
	return p.Agent.Kind + " " + p.Lifecycle
}

// readAttention reads the tab's panes' attention and agents again
// (Mux.ListPanes), redrawing the frames whose title changes.
func (v *tabView) readAttention(ctx context.Context) {
	raw, err := v.ctl.Call(ctx, "dev.signaltty.Mux.ListPanes", map[string]any{"tab": v.tab.Id})
	if err != nil {
		return
	}
	var r struct{ Panes []mux.Pane }
	if decode(raw, &r) != nil {
		return
	}
	v.mu.Lock()
	changed := false
	for _, p := range r.Panes {
		for _, tp := range v.panes {
			if tp.id == p.Id && (tp.attention != p.Attention || tp.agent != kindOf(p)) {
				tp.attention, tp.agent, changed = p.Attention, kindOf(p), true
			}
		}
	}
	v.mu.Unlock()
	if changed {
		v.redraw()
	}
}

// jumpToAttention focuses the next pane after the focused one, in layout
// order, among those that need the user most (layout.Urgency), and marks
// it seen (Mux.MarkSeen): the user now looks at it.
func (v *tabView) jumpToAttention(ctx context.Context) {
	v.mu.Lock()
	best, at := 5, -1
	for d := 1; d <= len(v.panes); d++ {
		i := (v.focus + d) % len(v.panes)
		if u := layout.Urgency(v.panes[i].attention); u < best {
			best, at = u, i
		}
	}
	if at < 0 {
		v.mu.Unlock()
		return
	}
	id := v.panes[at].id
	v.panes[at].attention = "none"
	v.mu.Unlock()
	v.move(ctx, (at-v.focus+len(v.panes))%len(v.panes))
	if !v.o.readOnly {
		_, _ = v.ctl.Call(ctx, "dev.signaltty.Mux.MarkSeen", map[string]any{"pane": id})
	}
}

// enterHistory shows the focused pane's history view in its frame
// (docs/attach.md, "History view") and hands it the keys in rest.
func (v *tabView) enterHistory(ctx context.Context, rest []byte) {
	v.mu.Lock()
	id := v.panes[v.focus].id
	in := inner(v.panes[v.focus].area)
	v.mu.Unlock()
	if in.Empty() {
		return
	}
	h, err := historyview.New(ctx, historyview.Capture{Call: v.ctl.Call, Pane: id}, in.Dx(), in.Dy())
	if err != nil {
		return // the pane is gone: its frame says so
	}
	if quit, err := h.Key(ctx, rest); err != nil {
		h.Say(err.Error())
	} else if quit {
		return
	}
	_, _ = v.tio.Write([]byte(historyview.Enter))
	v.mu.Lock()
	v.hist = h
	v.mu.Unlock()
	v.redraw() // the frame's live cells go; drawHistory draws over them
}

// leaveHistory goes back to the live pane: everything is drawn again.
func (v *tabView) leaveHistory() {
	leave := historyview.Leave + attachio.ResetModes
	if v.o.mouse {
		leave += mouseOn
	}
	_, _ = v.tio.Write([]byte(leave))
	v.mu.Lock()
	v.hist = nil
	v.sent = map[ansi.DECMode]bool{}
	v.uvr.Erase()
	v.mu.Unlock()
	v.redraw()
}

// drawHistory draws the history view, if shown, inside the focused pane's
// frame, over what the renderer drew there (nothing: draw leaves it blank).
func (v *tabView) drawHistory(ctx context.Context) {
	if v.hist == nil {
		return
	}
	v.mu.Lock()
	in := inner(v.panes[v.focus].area)
	v.mu.Unlock()
	if in.Empty() {
		return
	}
	v.hist.Resize(in.Dx(), in.Dy())
	out, err := v.hist.Render(ctx, in.Min.Y, in.Min.X)
	if err != nil {
		v.hist.Say(err.Error())
		out, _ = v.hist.Render(ctx, in.Min.Y, in.Min.X)
	}
	_, _ = v.tio.Write(out)
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
	_, _ = v.ctl.Call(ctx, "dev.signaltty.Mux.SendInput", map[string]any{"pane": id, "data": base64.StdEncoding.EncodeToString(b)})
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

// relayout computes every pane's frame for the terminal's size, resizes
// the panes to their frames' insides (unless read-only) and redraws all.
func (v *tabView) relayout(ctx context.Context) {
	cols, rows := v.tio.Size()
	v.mu.Lock()
	for _, tp := range v.panes {
		tp.area = uv.Rectangle{}
	}
	byID := map[string]*tabPane{}
	for _, tp := range v.panes {
		byID[tp.id] = tp
	}
	full := uv.Rect(0, 0, cols, rows)
	if v.zoom {
		v.panes[v.focus].area = full
	} else {
		place(v.tab.Layout, full, byID)
	}
	type resize struct {
		id         string
		cols, rows int
	}
	var todo []resize
	for _, tp := range v.panes {
		in := inner(tp.area)
		if in.Dx() > 0 && in.Dy() > 0 && tp.ended == "" && (tp.emu.Width() != in.Dx() || tp.emu.Height() != in.Dy()) {
			todo = append(todo, resize{tp.id, in.Dx(), in.Dy()})
		}
	}
	v.sb = uv.NewScreenBuffer(cols, rows)
	v.uvr = uv.NewTerminalRenderer(v.tio, []string{"TERM=" + os.Getenv("TERM")})
	v.uvr.SetColorProfile(colorprofile.TrueColor)
	v.uvr.SetFullscreen(true)
	v.uvr.Erase()
	v.mu.Unlock()
	if !v.o.readOnly {
		for _, r := range todo {
			_, _ = v.ctl.Call(ctx, "dev.signaltty.Mux.ResizePane", map[string]any{"pane": r.id, "cols": r.cols, "rows": r.rows})
		}
	}
	v.redraw()
}

// place divides area along the layout: a split gives its first child
// ratio of the area along its axis ("cols": side by side, "rows": stacked).
func place(l *mux.Layout, area uv.Rectangle, panes map[string]*tabPane) {
	switch {
	case l == nil:
	case l.Kind == "pane" && l.Pane != nil:
		if tp := panes[*l.Pane]; tp != nil {
			tp.area = area
		}
	case l.First != nil && l.Second != nil:
		ratio := 0.5
		if l.Ratio != nil {
			ratio = *l.Ratio
		}
		a, b := area, area
		if l.Axis != nil && *l.Axis == "rows" {
			h := int(float64(area.Dy())*ratio + 0.5)
			a.Max.Y, b.Min.Y = area.Min.Y+h, area.Min.Y+h
		} else {
			w := int(float64(area.Dx())*ratio + 0.5)
			a.Max.X, b.Min.X = area.Min.X+w, area.Min.X+w
		}
		place(l.First, a, panes)
		place(l.Second, b, panes)
	}
}

// inner is a frame's inside: the frame less its border.
func inner(r uv.Rectangle) uv.Rectangle {
	if r.Dx() < 3 || r.Dy() < 3 {
		return uv.Rectangle{}
	}
	return uv.Rect(r.Min.X+1, r.Min.Y+1, r.Dx()-2, r.Dy()-2)
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

// pickTab is the tab ref of a workspace's tabs or, for ref "", the one
// to show of it: its active tab when it has panes, else its last tab with
// panes; never a run's tab (docs/workspaces.md, "Run tabs"), whose
// command may have finished long ago.
func pickTab(tabs []mux.Tab, active *string, ref string) (mux.Tab, bool) {
	var last *mux.Tab
	for i, t := range tabs {
		switch {
		case ref != "":
			if t.Id == ref {
				return t, true
			}
		case t.Run != nil || t.Layout == nil:
		case active != nil && t.Id == *active:
			return t, true
		default:
			last = &tabs[i]
		}
	}
	if last != nil {
		return *last, true
	}
	return mux.Tab{}, false
}

// findTab returns a tab (ref: its id; "": the tab to show of the workspace
// of the pane this runs in, else of the first workspace that has one;
// pickTab) and its panes.
func findTab(ctx context.Context, c *daemon.Client, ref string) (mux.Tab, []mux.Pane, error) {
	var wsIDs []string
	if ref != "" {
		raw, err := c.Call(ctx, "dev.signaltty.Mux.ListPanes", map[string]any{"tab": ref})
		if err != nil {
			return mux.Tab{}, nil, err
		}
		var r struct{ Panes []mux.Pane }
		if err := decode(raw, &r); err != nil {
			return mux.Tab{}, nil, err
		}
		if len(r.Panes) == 0 {
			return mux.Tab{}, nil, &daemon.Error{Code: "conflict.tab_empty", Message: "tab " + ref + " has no panes", Data: map[string]any{"tab": ref}}
		}
		wsIDs = []string{r.Panes[0].Workspace}
	} else {
		raw, err := c.Call(ctx, "dev.signaltty.Mux.ListWorkspaces", nil)
		if err != nil {
			return mux.Tab{}, nil, err
		}
		var r struct{ Workspaces []mux.Workspace }
		if err := decode(raw, &r); err != nil {
			return mux.Tab{}, nil, err
		}
		// The workspace of the pane this runs in first (SIGNALTTY_PANE):
		// "the workspace's active tab".
		if here := os.Getenv("SIGNALTTY_PANE"); here != "" {
			if raw, err := c.Call(ctx, "dev.signaltty.Mux.GetPane", map[string]any{"pane": here}); err == nil {
				var got struct{ Pane mux.Pane }
				if decode(raw, &got) == nil && got.Pane.Workspace != "" {
					wsIDs = append(wsIDs, got.Pane.Workspace)
				}
			}
		}
		for _, w := range r.Workspaces {
			wsIDs = append(wsIDs, w.Id)
		}
	}
	for _, ws := range wsIDs {
		raw, err := c.Call(ctx, "dev.signaltty.Mux.GetWorkspace", map[string]any{"workspace": ws})
		if err != nil {
			return mux.Tab{}, nil, err
		}
		var r struct {
			Workspace mux.Workspace
			Tabs      []mux.Tab
			Panes     []mux.Pane
		}
		if err := decode(raw, &r); err != nil {
			return mux.Tab{}, nil, err
		}
		if t, ok := pickTab(r.Tabs, r.Workspace.Active_tab, ref); ok {
			var ps []mux.Pane
			for _, p := range r.Panes {
				if p.Tab == t.Id {
					ps = append(ps, p)
				}
			}
			return t, ps, nil
		}
	}
	return mux.Tab{}, nil, &daemon.Error{Code: "not_found.tab", Message: "no tab to show (create a workspace and spawn a pane first)", Data: map[string]any{"tab": ref}}
}

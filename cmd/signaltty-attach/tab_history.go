package main

import (
	"context"

	"github.com/charmbracelet/x/ansi"
	"github.com/signaltty/signaltty/cmd/internal/attachio"
	"github.com/signaltty/signaltty/cmd/internal/historyview"
)

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

package main

import (
	"context"

	"github.com/signaltty/signaltty/cmd/internal/layout"
	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
)

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

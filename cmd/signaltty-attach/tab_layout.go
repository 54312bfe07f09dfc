package main

import (
	"context"
	"os"

	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/signaltty/signaltty/cmd/internal/daemon"
	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
)

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

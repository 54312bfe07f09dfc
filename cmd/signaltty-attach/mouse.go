package main

import (
	"context"
	"fmt"
	"image"

	"github.com/charmbracelet/x/ansi"
	"github.com/signaltty/signaltty/cmd/internal/layout"
	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
)

// The tab view's mouse (docs/attach.md, "Tab view"), with --mouse: the
// view takes the terminal's mouse reports (button events, SGR encoding); a
// press focuses the pane under it, a press on the border between two
// panes drags that border (the split's ratio, saved with
// Mux.SetSplitRatio on release), the wheel over a pane that takes no mouse
// reports shows its history view, and the reports over a pane that asked
// for them (modes 9, 1000, 1002, 1003) go to it, at its own coordinates
// and in the encoding it asked for.

// mouseOn is what turns the view's mouse reports on.
const mouseOn = "\x1b[?1002h\x1b[?1006h"

// report is one SGR mouse report: btn as the terminal sent it (with its
// shift, meta and control bits), the cell x, y (0-based) and press (false:
// a release).
type report struct {
	btn, x, y int
	press     bool
}

// button is the report's button without its modifier bits: 0-2 a button,
// 32-34 a motion with it down, 64 and 65 the wheel.
func (r report) button() int { return r.btn &^ 0x1c }

// parseReport reads the SGR report at the start of b (ESC [ < btn ; x ; y
// M|m) and returns it and its length; n is 0 when b has no whole report.
func parseReport(b []byte) (r report, n int) {
	if len(b) < 3 || string(b[:3]) != "\x1b[<" {
		return report{}, 0
	}
	for i := 3; i < len(b); i++ {
		if b[i] == 'M' || b[i] == 'm' {
			var x, y int
			if _, err := fmt.Sscanf(string(b[3:i]), "%d;%d;%d", &r.btn, &x, &y); err != nil {
				return report{}, i + 1 // malformed: dropped
			}
			r.x, r.y, r.press = x-1, y-1, b[i] == 'M'
			return r, i + 1
		}
		if (b[i] < '0' || b[i] > '9') && b[i] != ';' {
			return report{}, i
		}
	}
	return report{}, 0
}

// split is a split's place on the view: the border between its parts is
// the columns (axis cols) or rows at-1 and at, across area.
type split struct {
	node   *mux.Layout
	area   image.Rectangle
	at     int
	rows   bool   // stacked: the border is rows
	before string // the pane its second part starts with (Mux.SetSplitRatio)
}

// splits lists the layout's splits placed in area, outer ones first (as
// place divides it).
func splits(l *mux.Layout, area image.Rectangle) []split {
	if l == nil || l.Kind == "pane" || l.First == nil || l.Second == nil {
		return nil
	}
	ratio := 0.5
	if l.Ratio != nil {
		ratio = *l.Ratio
	}
	a, b := area, area
	s := split{node: l, area: area, rows: l.Axis != nil && *l.Axis == "rows"}
	if leaves := layout.Leaves(l.Second); len(leaves) > 0 {
		s.before = leaves[0]
	}
	if s.rows {
		s.at = area.Min.Y + int(float64(area.Dy())*ratio+0.5)
		a.Max.Y, b.Min.Y = s.at, s.at
	} else {
		s.at = area.Min.X + int(float64(area.Dx())*ratio+0.5)
		a.Max.X, b.Min.X = s.at, s.at
	}
	return append(append([]split{s}, splits(l.First, a)...), splits(l.Second, b)...)
}

// onBorder returns the innermost split whose border has the cell (x, y).
func onBorder(ss []split, x, y int) *split {
	var hit *split
	for i := range ss {
		s := &ss[i]
		if s.rows && (y == s.at-1 || y == s.at) && x >= s.area.Min.X && x < s.area.Max.X ||
			!s.rows && (x == s.at-1 || x == s.at) && y >= s.area.Min.Y && y < s.area.Max.Y {
			hit = s
		}
	}
	return hit
}

// dragTo is the ratio that puts the split's border at the cell (x, y): its
// first part ends there, both parts keeping at least 3 cells (a frame and
// one cell inside), within the ratios a split may have.
func (s *split) dragTo(x, y int) float64 {
	size, at := s.area.Dx(), x-s.area.Min.X
	if s.rows {
		size, at = s.area.Dy(), y-s.area.Min.Y
	}
	if size < 6 {
		return s.ratio()
	}
	at = max(min(at, size-3), 3)
	return max(min(float64(at)/float64(size), 0.95), 0.05)
}

func (s *split) ratio() float64 {
	if s.node.Ratio == nil {
		return 0.5
	}
	return *s.node.Ratio
}

// mouseModes are the modes by which a program asks for mouse reports.
var mouseModes = []ansi.DECMode{ansi.ModeMouseX10, ansi.ModeMouseNormal, ansi.ModeMouseButtonEvent, ansi.ModeMouseAnyEvent}

// wantsMouse reports whether the pane asked for mouse reports.
func (tp *tabPane) wantsMouse() bool {
	for _, m := range mouseModes {
		if tp.modes[m] {
			return true
		}
	}
	return false
}

// encode is the report as the pane asked for it, at (x, y) of its own
// screen (0-based); nil when its modes take no such report: X10 (9) only
// presses, normal tracking (1000) no motion, button events (1002) motion
// with a button down, any events (1003) all; SGR (1006) or else the
// original encoding, which cannot say a cell past 223.
func (tp *tabPane) encode(r report, x, y int) []byte {
	m := tp.modes
	motion := r.btn&32 != 0
	switch {
	case m[ansi.ModeMouseAnyEvent]:
	case m[ansi.ModeMouseButtonEvent]:
		if motion && r.button() == 35 { // motion with no button down
			return nil
		}
	case m[ansi.ModeMouseNormal]:
		if motion {
			return nil
		}
	case m[ansi.ModeMouseX10]:
		if motion || !r.press || r.button() >= 64 {
			return nil
		}
	default:
		return nil
	}
	if m[ansi.ModeMouseExtSgr] {
		fin := 'M'
		if !r.press {
			fin = 'm'
		}
		return fmt.Appendf(nil, "\x1b[<%d;%d;%d%c", r.btn, x+1, y+1, fin)
	}
	if x+1 > 223 || y+1 > 223 {
		return nil
	}
	cb := r.btn
	if !r.press {
		cb = r.btn&^3 | 3 // a release says no button
	}
	return []byte{0x1b, '[', 'M', byte(32 + cb), byte(32 + x + 1), byte(32 + y + 1)}
}

// drag is a border being dragged.
type drag struct {
	s split
}

// mouse handles one of the terminal's mouse reports while no history view
// is shown. enter is true when it asks for the history view of the pane
// now focused (the wheel over a pane that takes no reports).
func (v *tabView) mouse(ctx context.Context, r report) (enter bool) {
	v.mu.Lock()
	if v.drag != nil {
		s := &v.drag.s
		ratio := s.dragTo(r.x, r.y)
		s.node.Ratio = &ratio
		done := !r.press
		if done {
			v.drag = nil
		}
		tab := v.tab.Id
		v.mu.Unlock()
		v.relayout(ctx)
		if done && !v.o.readOnly {
			_, _ = v.ctl.Call(ctx, "dev.signaltty.Mux.SetSplitRatio", map[string]any{"tab": tab, "pane": s.before, "ratio": ratio})
		}
		return false
	}
	at := image.Pt(r.x, r.y)
	if r.press && r.button() == 0 && !v.zoom {
		cols, rows := v.tio.Size()
		if s := onBorder(splits(v.tab.Layout, image.Rect(0, 0, cols, rows)), r.x, r.y); s != nil {
			v.drag = &drag{s: *s}
			v.mu.Unlock()
			return false
		}
	}
	target := -1
	for i, tp := range v.panes {
		if at.In(inner(tp.area)) {
			target = i
		}
	}
	if target < 0 && !r.press && v.pressed >= 0 { // a release or drag outside: the pane pressed
		target = v.pressed
	}
	if target < 0 {
		v.mu.Unlock()
		return false
	}
	tp := v.panes[target]
	refocus := r.press && r.button()&^3 == 0 || r.button() >= 64 // a press or the wheel
	if refocus && target != v.focus {
		v.focus = target
		v.redraw()
	}
	if r.press && r.button() < 3 {
		v.pressed = target
	} else if !r.press {
		v.pressed = -1
	}
	in := inner(tp.area)
	x, y := max(min(r.x-in.Min.X, in.Dx()-1), 0), max(min(r.y-in.Min.Y, in.Dy()-1), 0)
	id, wants, data := tp.id, tp.wantsMouse(), tp.encode(r, x, y)
	v.mu.Unlock()
	if wants {
		if data != nil && !v.o.readOnly {
			v.sendTo(ctx, id, data)
		}
		return false
	}
	return r.press && (r.button() == 64 || r.button() == 65)
}

// pressElsewhere reports whether b is a press of the left button outside
// the focused pane's inside (where its history view is drawn).
func (v *tabView) pressElsewhere(b []byte) bool {
	r, n := parseReport(b)
	if n == 0 || !r.press || r.button() != 0 {
		return false
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	return !image.Pt(r.x, r.y).In(inner(v.panes[v.focus].area))
}

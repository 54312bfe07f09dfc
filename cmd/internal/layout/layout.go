package layout

import mux "github.com/signaltty/signaltty/varlink/devsignalttymux"

// Leaves lists the panes of a layout in order, first child before second;
// nil for a nil layout.
func Leaves(l *mux.Layout) []string {
	switch {
	case l == nil:
		return nil
	case l.Kind == "pane" && l.Pane != nil:
		return []string{*l.Pane}
	}
	return append(Leaves(l.First), Leaves(l.Second)...)
}

// Urgency orders a pane's attention (docs/agents.md, "Attention") for the
// views that list panes, most urgent first: 0 for a pane waiting for the
// user's answer (permission_required, input_required), then error,
// warning, unread; none (or anything else) is 5.
func Urgency(attention string) int {
	switch attention {
	case "permission_required":
		return 0
	case "input_required":
		return 1
	case "error":
		return 2
	case "warning":
		return 3
	case "unread":
		return 4
	}
	return 5
}

// NeedsYou reports whether a pane's attention asks the user to look.
func NeedsYou(attention string) bool { return Urgency(attention) < 5 }

// Package layout reads the split tree of a tab (dev.signaltty.Mux Layout)
// for the programs that show tabs: the CLI's navigator and the tab view.
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

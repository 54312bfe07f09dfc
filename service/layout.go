package service

// Axes of a split.
const (
	AxisCols = "cols" // side by side: the columns are divided
	AxisRows = "rows" // stacked: the rows are divided
)

// leaves lists the pane ids of a layout, first to last.
func (n *node) leaves() []string {
	if n == nil {
		return nil
	}
	if n.pane != "" {
		return []string{n.pane}
	}
	return append(n.first.leaves(), n.second.leaves()...)
}

// split replaces the leaf of target with a split holding target first and
// newPane second; it reports whether target was found.
func (n *node) split(target, newPane, axis string) bool {
	if n == nil {
		return false
	}
	if n.pane == target {
		*n = node{axis: axis, ratio: 0.5, first: &node{pane: target}, second: &node{pane: newPane}}
		return true
	}
	return n.first.split(target, newPane, axis) || n.second.split(target, newPane, axis)
}

// without returns the layout with the leaf of id removed, its parent split
// collapsing into the sibling; nil when id was the only leaf.
func (n *node) without(id string) *node {
	if n == nil || n.pane == id {
		return nil
	}
	if n.pane != "" {
		return n
	}
	f, s := n.first.without(id), n.second.without(id)
	switch {
	case f == nil:
		return s
	case s == nil:
		return f
	}
	n.first, n.second = f, s
	return n
}

// splitSize divides size cells along a split with ratio: first gets
// floor((size-1)*ratio) cells (at least 1), one cell is the divider, second
// the rest. ok is false when size is too small for two panes.
func splitSize(size int, ratio float64) (first, second int, ok bool) {
	if size < 3 {
		return 0, 0, false
	}
	first = int(float64(size-1) * ratio)
	if first < 1 {
		first = 1
	}
	second = size - 1 - first
	if second < 1 {
		first, second = size-2, 1
	}
	return first, second, true
}

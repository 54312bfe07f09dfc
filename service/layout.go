package service

import "github.com/signaltty/signaltty/service/events"

// Axes of a split.
const (
	AxisCols = "cols" // side by side: the columns are divided
	AxisRows = "rows" // stacked: the rows are divided
)

// leaves lists the pane ids of a layout, first to last.
func (n *node) leaves() []string { return n.appendLeaves(nil) }

// appendLeaves appends the leaves' panes to dst in order (one slice for
// the whole tree: a deep layout costs no copies per level).
func (n *node) appendLeaves(dst []string) []string {
	if n == nil {
		return dst
	}
	if n.pane != "" {
		return append(dst, n.pane)
	}
	return n.second.appendLeaves(n.first.appendLeaves(dst))
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

// area is the size a layout covers, derived from its panes' sizes: a split
// along cols is its parts side by side plus a one-cell divider, along rows
// stacked plus a divider row. panes maps pane ids to (cols, rows).
func (n *node) area(size func(id string) (int, int)) (cols, rows int) {
	if n.pane != "" {
		return size(n.pane)
	}
	c1, r1 := n.first.area(size)
	c2, r2 := n.second.area(size)
	if n.axis == AxisCols {
		return c1 + 1 + c2, max(r1, r2)
	}
	return max(c1, c2), r1 + 1 + r2
}

// fit divides cols×rows among a layout's panes by its splits' ratios and
// calls set for each pane with its size. A part too small to split keeps at
// least one cell for each side.
func (n *node) fit(cols, rows int, set func(id string, cols, rows int)) {
	if n.pane != "" {
		set(n.pane, cols, rows)
		return
	}
	size := cols
	if n.axis == AxisRows {
		size = rows
	}
	first, second, ok := splitSize(size, n.ratio)
	if !ok {
		first, second = max(size/2, 1), max(size-size/2-1, 1)
	}
	if n.axis == AxisCols {
		n.first.fit(first, rows, set)
		n.second.fit(second, rows, set)
		return
	}
	n.first.fit(cols, first, set)
	n.second.fit(cols, second, set)
}

// before returns the split whose second part's first leaf is pane (the
// border before pane), nil when there is none.
func (n *node) before(pane string) *node {
	if n == nil || n.pane != "" {
		return nil
	}
	if n.second.firstLeaf() == pane {
		return n
	}
	if s := n.first.before(pane); s != nil {
		return s
	}
	return n.second.before(pane)
}

// firstLeaf is a layout's first leaf.
func (n *node) firstLeaf() string {
	for n != nil && n.pane == "" {
		n = n.first
	}
	if n == nil {
		return ""
	}
	return n.pane
}

// Split ratios a client may set (Mux.SetSplitRatio).
const (
	MinRatio = 0.05
	MaxRatio = 0.95
)

// SetSplitRatio sets the ratio of the split of tab whose second part
// starts with pane (Mux.SetSplitRatio); the panes keep their sizes.
// Errors: not_found.tab, invalid_params.ratio (range), invalid_params.pane
// (no_split).
func (s *Service) SetSplitRatio(tabID, pane string, ratio float64) (Tab, error) {
	if !(ratio >= MinRatio && ratio <= MaxRatio) {
		return Tab{}, invalid("ratio", "range", "ratio %v is not within %v..%v", ratio, MinRatio, MaxRatio)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.lookupTab(tabID)
	if err != nil {
		return Tab{}, err
	}
	n := t.layout.before(pane)
	if n == nil {
		return Tab{}, invalid("pane", "no_split", "no split of tab %s has its second part starting with pane %q", t.id, pane)
	}
	if n.ratio != ratio {
		n.ratio = ratio
		s.emitLocked(events.TabLayoutChanged{Tab: t.id, Workspace: t.workspace})
	}
	return t.snapshot(), nil
}

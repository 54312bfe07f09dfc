package service

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/signaltty/signaltty/service/errcode"
)

// model is the workspaces, tabs and panes of a Service and the lookups
// over them. The service's lock guards it all and is held in every method.
type model struct {
	workspaces workspaceSet
	wsOrder    []string
	tabs       map[string]*tab
	panes      map[string]*pane
}

// lookupTab finds a tab. Errors: invalid_params.tab, not_found.tab.
func (m *model) lookupTab(id string) (*tab, *Error) {
	if id == "" {
		return nil, invalid("tab", "missing", "tab is required")
	}
	if t, ok := m.tabs[id]; ok {
		return t, nil
	}
	return nil, notFound("tab", id)
}

// lookupPane finds a pane; a new pane whose first start has not committed
// is not there yet. Errors: invalid_params.pane, not_found.pane.
func (m *model) lookupPane(id string) (*pane, *Error) {
	if id == "" {
		return nil, invalid("pane", "missing", "pane is required")
	}
	if p, ok := m.panes[id]; ok && p.announced() {
		return p, nil
	}
	return nil, notFound("pane", id)
}

// tabPanes lists a tab's panes in layout order.
func (m *model) tabPanes(t *tab) []*pane {
	var out []*pane
	for _, id := range t.layout.leaves() {
		out = append(out, m.panes[id])
	}
	return out
}

// uniqueHandle returns base, or base-2, base-3… whichever is free.
func (m *model) uniqueHandle(base string) string {
	taken := map[string]bool{}
	for _, w := range m.workspaces {
		taken[w.handle] = true
	}
	h := base
	for i := 2; taken[h]; i++ {
		h = base + "-" + strconv.Itoa(i)
	}
	return h
}

// paneSize is a pane's recorded size.
func (m *model) paneSize(id string) (int, int) {
	p := m.panes[id]
	return p.cols, p.rows
}

// livePanesLocked fails conflict.pane_live while a pane holds a PTY.
func (m *model) livePanesLocked() error {
	var live []string
	for _, p := range m.panes {
		if p.state.holdsPTY() {
			live = append(live, p.id)
		}
	}
	if len(live) == 0 {
		return nil
	}
	slices.Sort(live)
	return newError(errcode.ConflictPaneLive, map[string]any{"panes": live},
		"%d live pane(s); stop them before restoring a snapshot", len(live))
}

// lookupWorkspace is workspaceSet.lookup over the model.
func (m *model) lookupWorkspace(ref string) (*workspace, *Error) { return m.workspaces.lookup(ref) }

// workspaceSet is the model's workspaces by id; guarded by s.mu.
type workspaceSet map[string]*workspace

// lookup finds a workspace by id, handle or exact name
// (docs/workspaces.md, "Names"). A reference that is one workspace's id or
// handle and another's name is refused, whichever came first. Errors:
// invalid_params.workspace, not_found.workspace, conflict.name_ambiguous,
// conflict.ref_ambiguous.
func (ws workspaceSet) lookup(ref string) (*workspace, *Error) {
	if ref == "" {
		return nil, invalid("workspace", "missing", "workspace is required")
	}
	exact := ws[ref]
	if exact == nil {
		for _, w := range ws {
			if w.handle == ref {
				exact = w
				break
			}
		}
	}
	if exact == nil {
		return ws.byName(ref)
	}
	if named := ws.namedOtherThan(ref, exact); len(named) > 0 {
		what := "handle"
		if exact.id == ref {
			what = "id"
		}
		return nil, newError(errcode.ConflictRefAmbiguous, map[string]any{"ref": ref, "workspaces": append([]string{exact.id}, named...),
			"by_" + what: exact.id, "by_name": named},
			"%q is the %s of workspace %s and the name of %s; name one by its id", ref, what, exact.id, strings.Join(named, ", "))
	}
	return exact, nil
}

// byName finds the one workspace whose name is exactly name, for
// references that are neither an id nor a handle. Errors:
// not_found.workspace, conflict.name_ambiguous.
func (ws workspaceSet) byName(name string) (*workspace, *Error) {
	var found []*workspace
	for _, w := range ws {
		if w.name == name {
			found = append(found, w)
		}
	}
	switch len(found) {
	case 0:
		return nil, notFound("workspace", name)
	case 1:
		return found[0], nil
	}
	ids := make([]string, 0, len(found))
	for _, w := range found {
		ids = append(ids, w.id)
	}
	sort.Strings(ids)
	return nil, newError(errcode.ConflictNameAmbiguous, map[string]any{"workspaces": ids},
		"%d workspaces are named %q; name one by its handle or id", len(ids), name)
}

// namedOtherThan returns the ids, sorted, of the workspaces other than w
// whose name is exactly name.
func (ws workspaceSet) namedOtherThan(name string, w *workspace) []string {
	var ids []string
	for _, o := range ws {
		if o != w && o.name == name {
			ids = append(ids, o.id)
		}
	}
	sort.Strings(ids)
	return ids
}

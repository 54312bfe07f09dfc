package authz

import (
	"sort"
	"strings"
)

// Model is what a Table asks of the live model; its methods run under the
// lock the Table's caller holds.
type Model interface {
	// WorkspaceID is the id of the workspace ref names (id, handle or
	// name); false when there is none.
	WorkspaceID(ref string) (string, bool)
	// Container is the live container of resource ("<kind>:<id>"): a
	// run's pane, a pane's tab (or its workspace when it has none), a
	// tab's workspace; "" when the model does not hold resource.
	Container(resource string) string
	// PaneWorkspace is the id of a live pane's workspace; false when the
	// pane is not live.
	PaneWorkspace(pane string) (string, bool)
}

// Table is the authorization data of the model: who created each
// resource, each pane principal's grants, containment frozen when first
// seen (so retained runs and events of removed panes keep being judged as
// they were) and denials by verb. The zero Table is ready; it is not safe
// for concurrent use.
type Table struct {
	creator map[string]string  // resource -> principal id that created it
	grants  map[string][]Grant // pane id -> its principal's grants
	parent  map[string]string  // resource -> its container, kept after removal
	denials map[string]int64   // verb -> denials since start
}

func (t *Table) init() {
	if t.creator == nil {
		t.creator, t.grants, t.parent, t.denials = map[string]string{}, map[string][]Grant{}, map[string]string{}, map[string]int64{}
	}
}

// Adopt records a new pane's creator ("" is the owner), its containment
// (tab "" for a pane outside tabs) and its principal's grants (nil:
// DefaultPaneGrants).
func (t *Table) Adopt(pane, tab, workspace, creator string, grants []Grant) {
	t.init()
	if creator == "" {
		creator = Owner
	}
	if grants == nil {
		grants = DefaultPaneGrants
	}
	t.creator["pane:"+pane] = creator
	if tab != "" { // frozen containment, for after removal
		t.parent["pane:"+pane], t.parent["tab:"+tab] = "tab:"+tab, "workspace:"+workspace
	} else {
		t.parent["pane:"+pane] = "workspace:" + workspace
	}
	t.grants[pane] = append([]Grant{}, grants...)
}

// OwnRun records a new run's owner (principal id) and containment, kept
// while its record is retained.
func (t *Table) OwnRun(run, principal, pane, tab, workspace string) {
	t.init()
	t.creator["run:"+run] = principal
	t.parent["run:"+run] = "pane:" + pane
	if tab != "" {
		t.parent["pane:"+pane], t.parent["tab:"+tab] = "tab:"+tab, "workspace:"+workspace
	}
}

// SetCreator records who created resource ("workspace:<id>", "tab:<id>").
func (t *Table) SetCreator(resource, principal string) {
	t.init()
	t.creator[resource] = principal
}

// PanePrincipal is the principal of pane id (DefaultPaneGrants for a pane
// it has no grants of).
func (t *Table) PanePrincipal(id string) Principal {
	g, ok := t.grants[id]
	if !ok {
		g = DefaultPaneGrants
	}
	return Principal{ID: "pane:" + id, Pane: id, Grants: append([]Grant{}, g...)}
}

// Allowed reports whether p holds right on resource ("<kind>:<id>").
func (t *Table) Allowed(m Model, p Principal, right, resource string) bool {
	if p.IsOwner() {
		return true
	}
	t.init()
	c := t.chain(m, resource)
	for _, g := range p.Grants {
		if t.covers(m, p, g, right, c) {
			return true
		}
	}
	return false
}

// Exceeding is the first of grants that caller does not hold itself (the
// same right on the same or a larger scope), and true; false when caller
// holds them all. A new pane is something its caller creates, so self
// within self; home within home (a pane a caller can make is in the
// caller's workspace or in one it holds spawn on).
func (t *Table) Exceeding(m Model, caller Principal, grants []Grant) (Grant, bool) {
	if caller.IsOwner() {
		return Grant{}, false
	}
	for _, g := range grants {
		if !t.within(m, caller, g) {
			return g, true
		}
	}
	return Grant{}, false
}

func (t *Table) within(m Model, caller Principal, g Grant) bool {
	_, id, _ := strings.Cut(g.Scope, ":")
	for _, h := range caller.Grants {
		if h.Right != g.Right {
			continue
		}
		switch {
		case h.Scope == "*", h.Scope == g.Scope:
			return true
		case g.Scope == "*" || g.Scope == "self" || g.Scope == "home":
		case id == "*":
			// only "*" or the same wildcard hold a kind wildcard
		default:
			if t.Allowed(m, caller, g.Right, g.Scope) {
				return true
			}
		}
	}
	return false
}

// chain is resource followed by its containers, outermost last, as far as
// the model (or the frozen data of removed resources) knows them; an
// unknown resource is alone. Workspace refs (handles, names) become ids.
func (t *Table) chain(m Model, resource string) []string {
	kind, id, _ := strings.Cut(resource, ":")
	if kind == "workspace" {
		if w, ok := m.WorkspaceID(id); ok {
			resource = "workspace:" + w
		}
	}
	out := []string{resource}
	for i := 0; i < 4; i++ {
		last := out[len(out)-1]
		kind, _, _ := strings.Cut(last, ":")
		next := ""
		switch kind {
		case "run", "pane", "tab":
			next = m.Container(last)
		}
		if next == "" && kind != "run" { // an absent run has no containers
			next = t.parent[last]
		} else if next != "" {
			t.init()
			t.parent[last] = next
		}
		if next == "" {
			break
		}
		out = append(out, next)
	}
	return out
}

// covers reports whether grant g gives right on the resources of chain
// (the target first) to principal p.
func (t *Table) covers(m Model, p Principal, g Grant, right string, chain []string) bool {
	if g.Right != right || len(chain) == 0 {
		return false
	}
	switch kind, id, _ := strings.Cut(g.Scope, ":"); {
	case g.Scope == "*":
		return true
	case g.Scope == "self":
		for _, r := range chain {
			if (p.Pane != "" && r == "pane:"+p.Pane) || t.createdBy(r, p.ID) {
				return true
			}
		}
	case g.Scope == "home":
		return p.Pane != "" && chain[0] == t.homeOf(m, p.Pane)
	case id == "*":
		k, _, _ := strings.Cut(chain[0], ":")
		return k == kind
	default:
		for _, r := range chain {
			if r == g.Scope {
				return true
			}
		}
	}
	return false
}

// maxCreators bounds how many creators createdBy follows.
const maxCreators = 64

// createdBy reports whether principal created resource, or created the
// pane whose principal created it, and so on (creator rights are
// transitive).
func (t *Table) createdBy(resource, principal string) bool {
	for i := 0; i < maxCreators; i++ {
		c, ok := t.creator[resource]
		if !ok || c == Owner || c == "" {
			return false
		}
		if c == principal {
			return true
		}
		if !strings.HasPrefix(c, "pane:") {
			return false
		}
		resource = c
	}
	return false
}

// homeOf is "workspace:<id>" of pane's workspace (kept after its removal).
func (t *Table) homeOf(m Model, pane string) string {
	if w, ok := m.PaneWorkspace(pane); ok {
		return "workspace:" + w
	}
	c := t.chain(m, "pane:"+pane)
	if last := c[len(c)-1]; strings.HasPrefix(last, "workspace:") {
		return last
	}
	return ""
}

// Denials counts the denials since the daemon started, by verb.
type Denials struct {
	Verb  string
	Count int64
}

// CountDenial counts one denial of verb.
func (t *Table) CountDenial(verb string) {
	t.init()
	t.denials[verb]++
}

// DenialCounts returns the denials by verb, sorted by verb.
func (t *Table) DenialCounts() []Denials {
	out := make([]Denials, 0, len(t.denials))
	for v, n := range t.denials {
		out = append(out, Denials{v, n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Verb < out[j].Verb })
	return out
}

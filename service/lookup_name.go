package service

import (
	"sort"
	"strings"

	"github.com/signaltty/signaltty/service/errcode"
)

// workspaceSet is the model's workspaces by id; guarded by s.mu.
type workspaceSet map[string]*workspace

// lookupWorkspace is workspaceSet.lookup over the model; s.mu is held.
func (s *Service) lookupWorkspace(ref string) (*workspace, *Error) { return s.workspaces.lookup(ref) }

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

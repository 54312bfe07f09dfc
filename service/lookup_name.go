package service

import "sort"

// lookupWorkspaceName finds the one workspace whose name is exactly name,
// for references that are neither an id nor a handle; s.mu is held.
// Errors: not_found.workspace, conflict.name_ambiguous.
func (s *Service) lookupWorkspaceName(name string) (*workspace, *Error) {
	var found []*workspace
	for _, w := range s.workspaces {
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
	return nil, newError("conflict.name_ambiguous", map[string]any{"workspaces": ids},
		"%d workspaces are named %q; name one by its handle or id", len(ids), name)
}

package service

import "strings"

// Delegation (docs/security.md, "Grants"): a spawn may give the new pane's
// principal only rights its caller holds itself.

var rights = map[string]bool{RightRead: true, RightWrite: true, RightSpawn: true, RightAdmin: true}
var kinds = map[string]bool{"workspace": true, "tab": true, "pane": true, "run": true}

// checkGrant validates a grant's form. Errors: invalid_params.grants.
func checkGrant(g Grant) *Error {
	if !rights[g.Right] {
		return newError("invalid_params.grants", map[string]any{"param": "grants", "reason": "right"},
			"right must be read, write, spawn or admin")
	}
	if g.Scope == "*" || g.Scope == "self" || g.Scope == "home" {
		return nil
	}
	kind, id, ok := strings.Cut(g.Scope, ":")
	if !ok || !kinds[kind] || id == "" || len(g.Scope) > 256 {
		return newError("invalid_params.grants", map[string]any{"param": "grants", "reason": "scope"},
			"scope must be *, self, home, <kind>:* or <kind>:<id> (kinds workspace, tab, pane, run)")
	}
	return nil
}

// CheckDelegation reports whether caller may give grants to a pane it
// creates. Errors: invalid_params.grants, denied.delegation (nothing is
// created; the denial is audited under verb).
func (s *Service) CheckDelegation(caller Principal, verb string, grants []Grant) error {
	for _, g := range grants {
		if err := checkGrant(g); err != nil {
			return err
		}
	}
	if caller.IsOwner() {
		return nil
	}
	for _, g := range grants {
		if !s.within(caller, g) {
			e := s.Deny(caller, verb, "delegation", g.Right+" on "+g.Scope)
			e.Message = "a grant exceeds the caller's own: " + g.Right + " on " + g.Scope
			return e
		}
	}
	return nil
}

// within reports whether caller's own grants include g: the same right on
// the same or a larger scope. A new pane is something its caller creates,
// so self within self; home within home (a pane a caller can make is in
// the caller's workspace or in one it holds spawn on).
func (s *Service) within(caller Principal, g Grant) bool {
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
			if s.Allowed(caller, g.Right, g.Scope) {
				return true
			}
		}
	}
	return false
}

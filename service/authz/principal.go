package authz

import (
	"strings"

	"github.com/signaltty/signaltty/service/errcode"
)

// Rights.
const (
	RightRead  = "read"
	RightWrite = "write"
	RightSpawn = "spawn"
	RightAdmin = "admin"
)

// Owner is the owner's principal id; Unknown is the principal of an
// outside caller when outside callers are treated as unknown
// (docs/security.md, "Who is calling").
const (
	Owner   = "owner"
	Unknown = "unknown"
)

// Grant is one right on one scope: "*", "<kind>:*", "<kind>:<id>" (kinds
// workspace, tab, pane, run), "self" (the principal's own pane and what
// it created, or what those created in turn, with everything they contain)
// or "home" (the workspace of the principal's pane itself, not what it
// holds: with spawn, new tabs, panes in new tabs and runs in new tabs).
type Grant struct{ Right, Scope string }

// Principal is who a connection acts as, resolved once when it connects.
type Principal struct {
	ID     string  // Owner, "pane:<id>" or Unknown
	Pane   string  // a pane principal's pane
	Grants []Grant // what it holds; the owner holds everything (nil here)
	// Unattributed: an Unknown principal with no grants because the caller
	// was started inside a pane or by the daemon and no live pane claims it
	// (it left its pane, or its pane or daemon is gone); every call it
	// makes is denied with reason "unattributed".
	Unattributed bool
	// HelperPid, with Unattributed: the caller descends from an agent's
	// shared helper (of agent Helper), which serves several panes, so no
	// one pane is its; every call is denied.shared_helper
	// (docs/security.md, "Shared agent helpers").
	HelperPid int
	Helper    string
}

// OwnerPrincipal is the owner.
var OwnerPrincipal = Principal{ID: Owner}

// DefaultPaneGrants are a new pane principal's grants unless its spawn
// names others (docs/security.md, "Default grants"): read, write and spawn
// on itself and what it creates (transitively), and spawn of new tabs,
// panes and runs in its own workspace.
var DefaultPaneGrants = []Grant{{RightRead, "self"}, {RightWrite, "self"}, {RightSpawn, "self"}, {RightSpawn, "home"}}

// IsOwner reports whether p holds every right: only a principal whose ID
// is Owner (the zero Principal is not the owner).
func (p Principal) IsOwner() bool { return p.ID == Owner }

// HoldsAny reports whether p holds right on some scope (the dispatch gate).
func (p Principal) HoldsAny(right string) bool {
	if p.IsOwner() {
		return true
	}
	for _, g := range p.Grants {
		if g.Right == right {
			return true
		}
	}
	return false
}

// Denied is the error p gets for lacking right, and the attributes its
// audit line adds to principal, verb, right and resource: reason and, for
// a shared helper, helper_pid. fix is how to run the helper once per pane
// (used only when p.HelperPid > 0). Codes: denied.shared_helper,
// denied.<right>. The error names neither the resource nor whether it
// exists, so a missing target and a forbidden one are denied identically.
func (p Principal) Denied(right, fix string) (*errcode.Error, []any) {
	if p.HelperPid > 0 {
		return errcode.New(errcode.DeniedSharedHelper, map[string]any{"right": right, "reason": "shared_helper", "agent": p.Helper, "helper_pid": p.HelperPid},
				"the caller runs under %s's shared helper (pid %d), which serves the agents of several panes, so it acts for none and is denied: %s",
				p.Helper, p.HelperPid, fix),
			[]any{"reason", "shared_helper", "helper_pid", p.HelperPid}
	}
	if p.Unattributed {
		return errcode.New(errcode.Code("denied."+right), map[string]any{"right": right, "reason": "unattributed"},
				"the caller was started inside a pane (or by the daemon) but no live pane claims it: it is denied, never the owner"),
			[]any{"reason", "unattributed"}
	}
	return errcode.New(errcode.Code("denied."+right), map[string]any{"right": right}, "%s needs %s on its target", p.ID, right), nil
}

// Delegation (docs/security.md, "Grants"): a spawn may give the new pane's
// principal only rights its caller holds itself.

var (
	rights = map[string]bool{RightRead: true, RightWrite: true, RightSpawn: true, RightAdmin: true}
	kinds  = map[string]bool{"workspace": true, "tab": true, "pane": true, "run": true}
)

// CheckGrants validates the form of each grant (a known right; a scope of
// *, self, home, <kind>:* or <kind>:<id> of at most 256 bytes). Errors:
// invalid_params.grants.
func CheckGrants(grants []Grant) *errcode.Error {
	for _, g := range grants {
		if !rights[g.Right] {
			return errcode.New("invalid_params.grants", map[string]any{"param": "grants", "reason": "right"},
				"right must be read, write, spawn or admin")
		}
		if g.Scope == "*" || g.Scope == "self" || g.Scope == "home" {
			continue
		}
		kind, id, ok := strings.Cut(g.Scope, ":")
		if !ok || !kinds[kind] || id == "" || len(g.Scope) > 256 {
			return errcode.New("invalid_params.grants", map[string]any{"param": "grants", "reason": "scope"},
				"scope must be *, self, home, <kind>:* or <kind>:<id> (kinds workspace, tab, pane, run)")
		}
	}
	return nil
}

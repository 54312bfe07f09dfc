package service

import "testing"

// Scopes cover what they contain (workspace ⊃ tab ⊃ pane ⊃ run); a kind
// wildcard covers only its kind; self covers the principal's own pane and
// what it created; a missing resource only *, its kind's wildcard or its id.
func TestGrantScopesCoverWhatTheyContain(t *testing.T) {
	s := newTestService(t)
	w, _ := s.CreateWorkspace("w", t.TempDir())
	a, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sleep", "60"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sleep", "60"}, Creator: "pane:" + a.ID})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := s.CreateWorkspace("o", t.TempDir())
	c, err := s.SpawnPane(SpawnRequest{Workspace: other.ID, Argv: []string{"sleep", "60"}})
	if err != nil {
		t.Fatal(err)
	}
	pa := s.Access().panePrincipal(a.ID)
	with := func(g ...Grant) Principal { return Principal{ID: "pane:x", Pane: "x", Grants: g} }
	for _, tc := range []struct {
		name     string
		p        Principal
		right    string
		resource string
		want     bool
	}{
		{"self: own pane", pa, RightWrite, "pane:" + a.ID, true},
		{"self: a pane it created", pa, RightWrite, "pane:" + b.ID, true},
		{"self: another's pane", pa, RightWrite, "pane:" + c.ID, false},
		{"self: its workspace", pa, RightRead, "workspace:" + w.ID, false},
		{"self: a missing pane", pa, RightRead, "pane:pane_000000000000", false},
		{"self: admin", pa, RightAdmin, "*", false},
		{"workspace scope covers its tab and panes", with(Grant{Right: RightRead, Scope: "workspace:" + w.ID}), RightRead, "pane:" + a.ID, true},
		{"by handle too", with(Grant{Right: RightRead, Scope: "workspace:" + w.ID}), RightRead, "workspace:" + w.Handle, true},
		{"workspace scope: not another's", with(Grant{Right: RightRead, Scope: "workspace:" + w.ID}), RightRead, "pane:" + c.ID, false},
		{"tab scope", with(Grant{Right: RightRead, Scope: "tab:" + a.Tab}), RightRead, "pane:" + a.ID, true},
		{"right must match", with(Grant{Right: RightRead, Scope: "*"}), RightWrite, "pane:" + a.ID, false},
		{"pane:* covers panes", with(Grant{Right: RightRead, Scope: "pane:*"}), RightRead, "pane:" + c.ID, true},
		{"pane:* covers a missing pane", with(Grant{Right: RightRead, Scope: "pane:*"}), RightRead, "pane:pane_000000000000", true},
		{"pane:* does not cover runs", with(Grant{Right: RightRead, Scope: "pane:*"}), RightRead, "run:r0", false},
		{"run:* covers runs", with(Grant{Right: RightRead, Scope: "run:*"}), RightRead, "run:r7", true},
		{"the owner holds everything", OwnerPrincipal, RightAdmin, "*", true},
	} {
		if got := s.Access().Allowed(tc.p, tc.right, tc.resource); got != tc.want {
			t.Errorf("%s: Allowed(%s on %s) = %v, want %v", tc.name, tc.right, tc.resource, got, tc.want)
		}
	}
}

// A spawn may hand out only what its caller holds.
func TestDelegationStaysWithinTheCallersGrants(t *testing.T) {
	s := newTestService(t)
	w, _ := s.CreateWorkspace("w", t.TempDir())
	p := Principal{ID: "pane:x", Pane: "x", Grants: []Grant{{Right: RightRead, Scope: "workspace:" + w.ID}, {Right: RightWrite, Scope: "self"}, {Right: RightSpawn, Scope: "pane:*"}}}
	for _, g := range []Grant{{Right: RightRead, Scope: "workspace:" + w.ID}, {Right: RightWrite, Scope: "self"}, {Right: RightSpawn, Scope: "pane:*"}} {
		if err := s.Access().CheckDelegation(p, "v", []Grant{g}); err != nil {
			t.Errorf("%+v within the caller's: %v", g, err)
		}
	}
	for _, g := range []Grant{{Right: RightRead, Scope: "*"}, {Right: RightWrite, Scope: "workspace:" + w.ID}, {Right: RightAdmin, Scope: "self"}, {Right: RightSpawn, Scope: "*"}, {Right: RightRead, Scope: "workspace:*"}} {
		err := s.Access().CheckDelegation(p, "v", []Grant{g})
		if e, ok := err.(*Error); !ok || e.Code != "denied.delegation" {
			t.Errorf("%+v beyond the caller's: %v", g, err)
		}
	}
	if e, ok := s.Access().CheckDelegation(OwnerPrincipal, "v", []Grant{{Right: "fly", Scope: "*"}}).(*Error); !ok || e.Code != "invalid_params.grants" {
		t.Errorf("a bad right: %v", e)
	}
	if d := s.Access().DenialCounts(); len(d) != 1 || d[0].Verb != "v" || d[0].Count != 5 {
		t.Errorf("denials: %+v", d)
	}
}

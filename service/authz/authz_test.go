package authz

import (
	"strconv"
	"testing"
	"time"

	"github.com/signaltty/signaltty/service/errcode"
)

// model is a made-up live model: containers by resource, workspace refs.
type model struct {
	containers map[string]string
	refs       map[string]string // workspace ref -> id
}

func (m model) WorkspaceID(ref string) (string, bool) {
	if id, ok := m.refs[ref]; ok {
		return id, true
	}
	return "", false
}

func (m model) Container(resource string) string { return m.containers[resource] }

func (m model) PaneWorkspace(pane string) (string, bool) {
	for r := m.containers["pane:"+pane]; r != ""; r = m.containers[r] {
		if len(r) > 10 && r[:10] == "workspace:" {
			return r[10:], true
		}
	}
	return "", false
}

// Two workspaces: w holds tab t with panes a and b (b created by a's
// principal), o holds tab u with pane c.
func fixture() (*Table, model) {
	m := model{containers: map[string]string{
		"pane:a": "tab:t", "pane:b": "tab:t", "tab:t": "workspace:w",
		"pane:c": "tab:u", "tab:u": "workspace:o",
	}, refs: map[string]string{"w": "w", "w-handle": "w", "o": "o"}}
	var t Table
	t.Adopt("a", "t", "w", "", nil)
	t.Adopt("b", "t", "w", "pane:a", nil)
	t.Adopt("c", "u", "o", "", nil)
	return &t, m
}

// Scopes cover what they contain (workspace ⊃ tab ⊃ pane ⊃ run); a kind
// wildcard covers only its kind; self covers the principal's own pane and
// what it created; a missing resource only *, its kind's wildcard or its id.
func TestScopesCoverWhatTheyContain(t *testing.T) {
	tb, m := fixture()
	pa := tb.PanePrincipal("a")
	with := func(g ...Grant) Principal { return Principal{ID: "pane:x", Pane: "x", Grants: g} }
	for _, tc := range []struct {
		name     string
		p        Principal
		right    string
		resource string
		want     bool
	}{
		{"self: own pane", pa, RightWrite, "pane:a", true},
		{"self: a pane it created", pa, RightWrite, "pane:b", true},
		{"self: another's pane", pa, RightWrite, "pane:c", false},
		{"self: its workspace", pa, RightRead, "workspace:w", false},
		{"self: a missing pane", pa, RightRead, "pane:gone", false},
		{"self: admin", pa, RightAdmin, "*", false},
		{"home: spawn in its own workspace", pa, RightSpawn, "workspace:w", true},
		{"home: not another workspace", pa, RightSpawn, "workspace:o", false},
		{"workspace scope covers its tab and panes", with(Grant{Right: RightRead, Scope: "workspace:w"}), RightRead, "pane:a", true},
		{"by handle too", with(Grant{Right: RightRead, Scope: "workspace:w"}), RightRead, "workspace:w-handle", true},
		{"workspace scope: not another's", with(Grant{Right: RightRead, Scope: "workspace:w"}), RightRead, "pane:c", false},
		{"tab scope", with(Grant{Right: RightRead, Scope: "tab:t"}), RightRead, "pane:a", true},
		{"right must match", with(Grant{Right: RightRead, Scope: "*"}), RightWrite, "pane:a", false},
		{"pane:* covers panes", with(Grant{Right: RightRead, Scope: "pane:*"}), RightRead, "pane:c", true},
		{"pane:* covers a missing pane", with(Grant{Right: RightRead, Scope: "pane:*"}), RightRead, "pane:gone", true},
		{"pane:* does not cover runs", with(Grant{Right: RightRead, Scope: "pane:*"}), RightRead, "run:r0", false},
		{"run:* covers runs", with(Grant{Right: RightRead, Scope: "run:*"}), RightRead, "run:r7", true},
		{"the owner holds everything", OwnerPrincipal, RightAdmin, "*", true},
		{"the zero principal holds nothing", Principal{}, RightRead, "*", false},
	} {
		if got := tb.Allowed(m, tc.p, tc.right, tc.resource); got != tc.want {
			t.Errorf("%s: Allowed(%s on %s) = %v, want %v", tc.name, tc.right, tc.resource, got, tc.want)
		}
	}
}

// Containment seen once is kept: a removed pane and a retained run are
// judged as they were.
func TestRemovedResourcesAreJudgedAsTheyWere(t *testing.T) {
	tb, m := fixture()
	tb.OwnRun("r1", "pane:a", "a", "t", "w")
	p := Principal{ID: "pane:x", Pane: "x", Grants: []Grant{{Right: RightRead, Scope: "workspace:w"}}}
	m.containers["run:r1"] = "pane:a"
	if !tb.Allowed(m, p, RightRead, "run:r1") {
		t.Fatal("a live run of the workspace is not covered")
	}
	delete(m.containers, "pane:a")
	delete(m.containers, "tab:t")
	if !tb.Allowed(m, p, RightRead, "pane:a") {
		t.Error("a removed pane lost its workspace")
	}
	if !tb.Allowed(m, tb.PanePrincipal("a"), RightRead, "run:r1") {
		t.Error("a run its pane's principal started is not its own")
	}
}

// A spawn may hand out only what its caller holds; grants of a bad form
// are invalid before anything else.
func TestDelegationStaysWithinTheCallersGrants(t *testing.T) {
	tb, m := fixture()
	p := Principal{ID: "pane:x", Pane: "x", Grants: []Grant{{Right: RightRead, Scope: "workspace:w"}, {Right: RightWrite, Scope: "self"}, {Right: RightSpawn, Scope: "pane:*"}}}
	for _, g := range []Grant{{Right: RightRead, Scope: "workspace:w"}, {Right: RightWrite, Scope: "self"}, {Right: RightSpawn, Scope: "pane:*"}, {Right: RightRead, Scope: "pane:a"}} {
		if bad, over := tb.Exceeding(m, p, []Grant{g}); over {
			t.Errorf("%+v within the caller's: exceeds by %+v", g, bad)
		}
	}
	for _, g := range []Grant{{Right: RightRead, Scope: "*"}, {Right: RightWrite, Scope: "workspace:w"}, {Right: RightAdmin, Scope: "self"}, {Right: RightSpawn, Scope: "*"}, {Right: RightRead, Scope: "workspace:*"}} {
		if _, over := tb.Exceeding(m, p, []Grant{g}); !over {
			t.Errorf("%+v beyond the caller's", g)
		}
	}
	if _, over := tb.Exceeding(m, OwnerPrincipal, []Grant{{Right: RightAdmin, Scope: "*"}}); over {
		t.Error("the owner may give anything")
	}
	for _, g := range []Grant{{Right: "fly", Scope: "*"}, {Right: RightRead, Scope: "disk:x"}, {Right: RightRead, Scope: "pane:"}} {
		if e := CheckGrants([]Grant{g}); e == nil || e.Code != "invalid_params.grants" {
			t.Errorf("%+v: %v", g, e)
		}
	}
}

// Denials say why without naming the resource, and are counted by verb.
func TestDenialsSayWhyAndAreCounted(t *testing.T) {
	var tb Table
	for _, tc := range []struct {
		p      Principal
		code   errcode.Code
		reason any
	}{
		{Principal{ID: "pane:x"}, "denied.write", nil},
		{Principal{ID: Unknown, Unattributed: true}, "denied.write", "unattributed"},
		{Principal{ID: Unknown, Unattributed: true, HelperPid: 7, Helper: "codex"}, errcode.DeniedSharedHelper, "shared_helper"},
	} {
		e, _ := tc.p.Denied(RightWrite, "fix")
		if e.Code != tc.code || e.Data["reason"] != tc.reason {
			t.Errorf("%+v: %s %v", tc.p, e.Code, e.Data)
		}
		tb.CountDenial("v")
	}
	tb.CountDenial("a")
	if d := tb.DenialCounts(); len(d) != 2 || d[0] != (Denials{"a", 1}) || d[1] != (Denials{"v", 3}) {
		t.Errorf("denials: %+v", d)
	}
}

// Callers no pane claims are counted by name and by helper, within
// bounds; helpers that are gone are dropped.
func TestCallersAreCountedWithinBounds(t *testing.T) {
	var c Callers
	at := time.Unix(100, 0)
	c.NoteUnattributed("sh", 10, at)
	c.NoteUnattributed("sh", 11, at.Add(time.Second))
	for i := 0; i < maxUnattributedNames+5; i++ {
		c.NoteUnattributed("n"+strconv.Itoa(i), i, at)
	}
	u := c.Unattributed()
	if len(u) != maxUnattributedNames || u[len(u)-1] != (UnattributedCaller{"sh", 11, 2, at.Add(time.Second)}) {
		t.Errorf("unattributed: %d names, last %+v", len(u), u[len(u)-1])
	}
	c.NoteHelper(7, "codex", "p1", "fix", at)
	c.NoteHelper(7, "codex", "other", "fix", at)
	c.NoteHelper(8, "codex", "", "fix", at)
	if !c.KnowsHelper(7) || c.KnowsHelper(9) {
		t.Error("KnowsHelper")
	}
	h := c.Helpers(func(pid int) bool { return pid == 7 })
	if len(h) != 1 || h[0].Pane != "p1" || h[0].Connections != 2 || c.KnowsHelper(8) {
		t.Errorf("helpers: %+v", h)
	}
}

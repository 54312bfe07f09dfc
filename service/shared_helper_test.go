package service

import (
	"strings"
	"testing"
)

// A caller whose ancestry passes through an agent's shared helper (Codex's
// app-server --managed-daemon) is attributed to that helper, however far
// up its pane's processes are; the walk stops at the daemon, and a tree
// without a helper has none.
func TestCallerUnderASharedAgentHelperIsAttributedToTheHelper(t *testing.T) {
	const daemon = 10
	// 10 daemon → 20 pane A's codex → 30 app-server → 40 sh → 50 signaltty mcp;
	// 10 → 60 pane B's codex → 70 its own (unshared) app-server → 80 signaltty mcp
	argv := map[int][]string{
		20: {"/usr/bin/codex"},
		30: {"/usr/lib/codex/codex", "app-server", "--listen", "unix://", "--managed-daemon"},
		40: {"sh", "-c", "signaltty mcp"},
		50: {"signaltty", "mcp"},
		60: {"node", "/usr/lib/node_modules/@openai/codex/bin/codex.js"},
		70: {"node", "/usr/lib/node_modules/@openai/codex/bin/codex.js", "app-server"},
		80: {"signaltty", "mcp"},
	}
	parent := map[int]int{20: daemon, 30: 20, 40: 30, 50: 40, 60: daemon, 70: 60, 80: 70, daemon: 1}
	of := func(pid int) (int, string) {
		return sharedHelperIn(pid, daemon, func(p int) []string { return argv[p] }, func(p int) int { return parent[p] })
	}
	for _, pid := range []int{30, 40, 50} {
		if h, kind := of(pid); h != 30 || kind != "codex" {
			t.Errorf("pid %d: helper %d %q, want 30 codex", pid, h, kind)
		}
	}
	for _, pid := range []int{20, 60, 70, 80, daemon} {
		if h, _ := of(pid); h != 0 {
			t.Errorf("pid %d: helper %d, want none", pid, h)
		}
	}
	// Reparented to init after its pane's codex exited: still the helper's.
	parent[30] = 1
	if h, _ := of(50); h != 30 {
		t.Errorf("after reparenting to init: helper %d, want 30", h)
	}
}

// Every call of a principal under a shared helper is denied with
// denied.shared_helper, naming the helper's pid and the fix; it is never
// the owner.
func TestSharedHelperPrincipalIsDeniedSharedHelper(t *testing.T) {
	s := newTestService(t)
	p := Principal{ID: Unknown, Unattributed: true, HelperPid: 4242, Helper: "codex"}
	if p.IsOwner() {
		t.Fatal("a shared helper's principal is the owner")
	}
	err := s.Access().Authorize(p, "dev.signaltty.Run.Start", RightSpawn, "workspace:w1")
	e, ok := err.(*Error)
	if !ok || e.Code != "denied.shared_helper" {
		t.Fatalf("got %v, want denied.shared_helper", err)
	}
	if e.Data["helper_pid"] != 4242 || e.Data["right"] != RightSpawn || !strings.Contains(e.Message, "4242") || !strings.Contains(e.Message, "daemon_auto_start = false") {
		t.Errorf("error %+v does not name the helper's pid, the right and the fix", e)
	}
}

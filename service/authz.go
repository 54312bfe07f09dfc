package service

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/signaltty/signaltty/service/agents"
	"github.com/signaltty/signaltty/service/authz"
	"github.com/signaltty/signaltty/service/procs"
)

// Principals and their rights (docs/security.md). Every connection resolves
// once to a Principal: the owner, a pane's principal, or an unknown caller.
// A right on a resource is held through a grant whose scope covers it;
// containment is workspace ⊃ tab ⊃ pane ⊃ run (ancestors).

// The rules live in service/authz; these names keep the service's API.
const (
	RightRead  = authz.RightRead
	RightWrite = authz.RightWrite
	RightSpawn = authz.RightSpawn
	RightAdmin = authz.RightAdmin
	// Unknown is the principal of an outside caller when the daemon is set
	// to treat outside callers as unknown (Config.OutsideCallers).
	Unknown = authz.Unknown
)

type (
	Grant     = authz.Grant
	Principal = authz.Principal
	Denials   = authz.Denials
	// SharedHelperSeen and UnattributedCaller are what doctor shows of
	// callers no pane claims (authz.Callers).
	SharedHelperSeen   = authz.SharedHelperSeen
	UnattributedCaller = authz.UnattributedCaller
)

// OwnerPrincipal is the owner.
var OwnerPrincipal = authz.OwnerPrincipal

// DefaultPaneGrants are a new pane principal's grants unless its spawn
// names others (authz.DefaultPaneGrants).
var DefaultPaneGrants = authz.DefaultPaneGrants

// Access decides who may do what (docs/security.md): it resolves callers to
// principals, checks rights against the live model, audits and counts
// denials, and keeps what doctor shows of callers no pane claims. Its data
// is the model's: the service's lock guards it. Service.Access returns it.
type Access struct {
	s       *Service
	rules   authz.Table   // creators, pane principals' grants, frozen containment, denials
	callers authz.Callers // connections of callers no pane claims, and shared helpers
}

// Access returns the authorization of the service.
func (s *Service) Access() *Access { return s.access }

// adoptLocked records a new pane's creator and its principal's grants; s.mu is held.
func (a *Access) adoptLocked(p *pane, creator string, grants []Grant) {
	a.rules.Adopt(p.id, p.tab, p.workspace, creator, grants)
}

// ownRunLocked records a new run's owner and containment, kept while its record
// is retained; s.mu is held.
func (a *Access) ownRunLocked(r RunStart) {
	a.rules.OwnRun(r.Run, r.Principal, r.Pane, r.Tab, r.Workspace)
}

// SetCreator records who created resource ("workspace:<id>", "tab:<id>").
func (a *Access) SetCreator(resource, principal string) {
	s := a.s
	s.mu.Lock()
	defer s.mu.Unlock()
	a.rules.SetCreator(resource, principal)
}

// PaneOfProcess is the pane a process belongs to ("" for none): the pane
// whose cgroup holds it (with delegated cgroups), else the first pane whose
// live leader is the process, its session or process group leader, or one
// of its ancestors' — so a process that calls setsid, or changes its
// environment, still belongs to its pane — or whose exited leader's session
// it is still in.
//
// A process that descends from an agent's shared helper belongs to no
// pane: the helper serves several (sharedHelperOf).
func (a *Access) PaneOfProcess(pid int) string {
	if h, _ := sharedHelperOf(pid); h > 0 {
		return ""
	}
	id, _ := a.findPane(pid)
	return id
}

// sharedHelperOf is the pid and agent of the nearest process among pid
// and its ancestors whose argv an agent adapter declares a shared helper
// (agents.SharedHelper), 0 if none; the walk stops at the daemon.
func sharedHelperOf(pid int) (int, string) {
	return sharedHelperIn(pid, os.Getpid(), procs.Argv, func(pid int) int { ppid, _, _ := procs.Stat(pid); return ppid })
}

// sharedHelperIn is sharedHelperOf over a process tree given by argv and
// parent (so it can be checked with a made-up one); stop is the daemon.
func sharedHelperIn(pid, stop int, argv func(int) []string, parent func(int) int) (int, string) {
	for i := 0; i < 64 && pid > 1 && pid != stop; i++ {
		if kind, ok := agents.SharedHelper(argv(pid)); ok {
			return pid, kind
		}
		pid = parent(pid)
	}
	return 0, ""
}

// findPane is PaneOfProcess, and whether pid descends from the daemon.
func (a *Access) findPane(pid int) (string, bool) {
	s := a.s
	s.mu.Lock()
	leaders := map[int]string{}  // live panes' leaders
	sessions := map[int]string{} // exited panes' leaders, as session ids of what they left running
	groups := map[string]string{}
	for id, p := range s.panes {
		if !p.announced() || p.inst == nil || p.inst.proc == nil {
			continue
		}
		if p.state.hasProcess() {
			leaders[p.inst.proc.Pid()] = id
		} else if pid := p.inst.proc.Pid(); pid > 1 {
			sessions[pid] = id
		}
		if g := p.inst.proc.Cgroup(); g != nil {
			groups[g.Path] = id
		}
	}
	s.mu.Unlock()
	if t := s.cfg.Cgroups; t != nil {
		id, inTree := paneOfCgroup(pid, t.Path, groups)
		if id != "" || inTree {
			// In a pane's cgroup; or in one of the daemon's tree that no
			// pane of this daemon owns (a previous daemon's pane): inside.
			return id, true
		}
	}
	self := os.Getpid()
	for i := 0; i < 64 && pid > 1; i++ {
		ppid, pgrp, sid := procs.Stat(pid)
		for _, q := range []int{pid, pgrp, sid} {
			if id, ok := leaders[q]; ok && q > 1 {
				return id, true
			}
		}
		// A process left in the session of a pane whose leader exited.
		// (Should the pid come back as another session's id, that session
		// gets the pane's grants, never more than the owner's.)
		if id, ok := sessions[sid]; ok && sid > 1 && sid != pid {
			return id, true
		}
		if ppid == self {
			return "", true
		}
		pid = ppid
	}
	return "", false
}

// resolveWait bounds how long a connection from a daemon's descendant that
// no pane claims yet (its pane's start has not committed) waits for one.
const resolveWait = 2 * time.Second

// paneOfCgroup matches /proc/PID/cgroup (cgroup v2) against the panes'
// cgroups (absolute paths under the cgroup mount), and reports whether the
// process is in a pane's cgroup of tree (the daemon's delegated cgroup,
// absolute) at all, known or not.
func paneOfCgroup(pid int, tree string, groups map[string]string) (string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		return "", false
	}
	for _, line := range strings.Split(string(b), "\n") {
		rel, ok := strings.CutPrefix(line, "0::")
		if !ok || rel == "" {
			continue
		}
		for path, id := range groups {
			// cgroup names are unique for the daemon's lifetime (cgroupName)
			if strings.Contains(rel+"/", "/"+filepath.Base(path)+"/") {
				return id, true
			}
		}
		// tree is /sys/fs/cgroup/<rel of the daemon>: compare the tails.
		if i := strings.Index(rel, "/"+filepath.Base(tree)+"/pane-"); i >= 0 && strings.HasSuffix(tree, rel[:i]+"/"+filepath.Base(tree)) {
			return "", true
		}
	}
	return "", false
}

// ResolvePeer resolves a connected process to its principal
// (docs/security.md, "Who is calling"). environ reads the pinned process's
// environment; it is consulted only for an outside caller when outside
// callers are unknown, and only for SIGNALTTY_TOKEN=@owner.
//
// A caller that descends from an agent's shared helper (Codex's
// app-server --managed-daemon) is unattributed whatever pane its
// ancestry reaches: the helper serves several panes, so it acts for none
// (docs/security.md, "Shared agent helpers").
func (a *Access) ResolvePeer(pid int, environ func() []byte) Principal {
	s := a.s
	if h, kind := sharedHelperOf(pid); h > 0 {
		a.noteCaller(pid, h, kind)
		return Principal{ID: Unknown, Unattributed: true, HelperPid: h, Helper: kind}
	}
	id, inside := a.findPane(pid)
	// A descendant of the daemon is inside some pane: a process that
	// connects right after its exec may come before its pane's start
	// commits. It is never the owner.
	for deadline := time.Now().Add(resolveWait); id == "" && inside && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
		id, inside = a.findPane(pid)
	}
	if id != "" {
		return a.panePrincipal(id)
	}
	// Identity fails closed: a process started inside a pane or by the
	// daemon that no live pane claims is never the owner (nor, by its
	// environment, anyone else).
	if inside || s.cfg.Mark.Marked(pid) {
		a.noteCaller(pid, 0, "")
		return Principal{ID: Unknown, Unattributed: true}
	}
	if s.cfg.OutsideCallers != Unknown {
		return OwnerPrincipal
	}
	if environ != nil {
		for _, kv := range bytes.Split(environ(), []byte{0}) {
			if string(kv) == "SIGNALTTY_TOKEN=@owner" {
				return OwnerPrincipal
			}
		}
	}
	g := s.cfg.UnknownGrants
	if g == nil {
		g = []Grant{{Right: RightRead, Scope: "*"}}
	}
	return Principal{ID: Unknown, Grants: append([]Grant{}, g...)}
}

// noteCaller counts a connection of the unattributed process pid and,
// with helper > 0, a denied connection through shared helper helper of
// agent kind, finding the pane it was started from the first time.
func (a *Access) noteCaller(pid, helper int, kind string) {
	s := a.s
	name := procs.Name(pid)
	s.mu.Lock()
	a.callers.NoteUnattributed(name, pid, time.Now())
	known := helper <= 0 || a.callers.KnowsHelper(helper)
	s.mu.Unlock()
	if helper <= 0 {
		return
	}
	pane := ""
	if !known {
		pane, _ = a.findPane(helper)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a.callers.NoteHelper(helper, kind, pane, sharedHelperFix(kind), time.Now())
}

// sharedHelperFix is how to run agent kind's helper once per pane.
func sharedHelperFix(kind string) string {
	if a, ok := agents.Lookup(kind); ok && a.SharedHelperFix != "" {
		return a.SharedHelperFix
	}
	return "run one helper per pane (docs/agents.md)"
}

// SharedHelpers returns the live shared agent helpers callers descended
// from (noteCaller), by pid; helpers that exited are dropped.
func (a *Access) SharedHelpers() []SharedHelperSeen {
	s := a.s
	s.mu.Lock()
	defer s.mu.Unlock()
	return a.callers.Helpers(func(pid int) bool {
		_, ok := agents.SharedHelper(procs.Argv(pid)) // exited, or its pid now another program's
		return ok
	})
}

// UnattributedCallers returns the counts of noteCaller, by name.
func (a *Access) UnattributedCallers() []UnattributedCaller {
	s := a.s
	s.mu.Lock()
	defer s.mu.Unlock()
	return a.callers.Unattributed()
}

func (a *Access) panePrincipal(id string) Principal {
	s := a.s
	s.mu.Lock()
	defer s.mu.Unlock()
	return a.rules.PanePrincipal(id)
}

// authzModel is the live model as the authorization rules read it
// (authz.Model); s.mu is held while they do.
type authzModel Service

func (m *authzModel) WorkspaceID(ref string) (string, bool) {
	w, err := (*Service)(m).lookupWorkspace(ref)
	if err != nil {
		return "", false
	}
	return w.id, true
}

func (m *authzModel) Container(resource string) string {
	kind, id, _ := strings.Cut(resource, ":")
	switch kind {
	case "run":
		if p := m.runs.PaneOf(id); p != "" {
			return "pane:" + p
		}
	case "pane":
		if p, ok := m.panes[id]; ok && p.tab != "" {
			return "tab:" + p.tab
		} else if ok {
			return "workspace:" + p.workspace
		}
	case "tab":
		if t, ok := m.tabs[id]; ok {
			return "workspace:" + t.workspace
		}
	}
	return ""
}

func (m *authzModel) PaneWorkspace(pane string) (string, bool) {
	if p, ok := m.panes[pane]; ok {
		return p.workspace, true
	}
	return "", false
}

// Allowed reports whether p holds right on resource ("<kind>:<id>").
func (a *Access) Allowed(p Principal, right, resource string) bool {
	s := a.s
	if p.IsOwner() {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return a.allowedLocked(p, right, resource)
}

func (a *Access) allowedLocked(p Principal, right, resource string) bool {
	s := a.s
	return a.rules.Allowed((*authzModel)(s), p, right, resource)
}

// Authorize returns nil if p holds right on resource, else a denied.<right>
// error; the denial is logged at notice level (principal, verb, resource,
// never arguments) and counted by verb.
func (a *Access) Authorize(p Principal, verb, right, resource string) error {
	if a.Allowed(p, right, resource) {
		return nil
	}
	return a.Deny(p, verb, right, resource)
}

// Deny records and returns a denial (see Authorize; authz.Principal.Denied).
func (a *Access) Deny(p Principal, verb, right, resource string) *Error {
	s := a.s
	s.mu.Lock()
	a.rules.CountDenial(verb)
	s.mu.Unlock()
	fix := ""
	if p.HelperPid > 0 {
		fix = sharedHelperFix(p.Helper)
	}
	e, attrs := p.Denied(right, fix)
	s.log.Log(context.Background(), LevelNotice, "denied", append([]any{"principal", p.ID, "verb", verb, "right", right, "resource", resource}, attrs...)...)
	return e
}

// CheckDelegation reports whether caller may give grants to a pane it
// creates (docs/security.md, "Grants"). Errors: invalid_params.grants,
// denied.delegation (nothing is created; the denial is audited under verb).
func (a *Access) CheckDelegation(caller Principal, verb string, grants []Grant) error {
	s := a.s
	if err := authz.CheckGrants(grants); err != nil {
		return err
	}
	if caller.IsOwner() {
		return nil
	}
	s.mu.Lock()
	g, over := a.rules.Exceeding((*authzModel)(s), caller, grants)
	s.mu.Unlock()
	if over {
		e := a.Deny(caller, verb, "delegation", g.Right+" on "+g.Scope)
		e.Message = "a grant exceeds the caller's own: " + g.Right + " on " + g.Scope
		return e
	}
	return nil
}

// LevelNotice is slog's level for audit lines: between info and warning.
const LevelNotice = slog.Level(2)

// DenialCounts returns the denials by verb, sorted by verb.
func (a *Access) DenialCounts() []Denials {
	s := a.s
	s.mu.Lock()
	defer s.mu.Unlock()
	return a.rules.DenialCounts()
}

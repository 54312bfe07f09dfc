package service

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/signaltty/signaltty/service/agents"
	"github.com/signaltty/signaltty/service/errcode"
)

// Principals and their rights (docs/security.md). Every connection resolves
// once to a Principal: the owner, a pane's principal, or an unknown caller.
// A right on a resource is held through a grant whose scope covers it;
// containment is workspace ⊃ tab ⊃ pane ⊃ run (ancestors).

// Rights.
const (
	RightRead  = "read"
	RightWrite = "write"
	RightSpawn = "spawn"
	RightAdmin = "admin"
)

// Unknown is the principal of an outside caller when the daemon is set to
// treat outside callers as unknown (Config.OutsideCallers).
const Unknown = "unknown"

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

// IsOwner reports whether p holds every right: only a principal whose ID
// is Owner (the zero Principal is not the owner).
func (p Principal) IsOwner() bool { return p.ID == Owner }

// OwnerPrincipal is the owner.
var OwnerPrincipal = Principal{ID: Owner}

// DefaultPaneGrants are a new pane principal's grants unless its spawn
// names others (docs/security.md, "Default grants"): read, write and spawn
// on itself and what it creates (transitively), and spawn of new tabs,
// panes and runs in its own workspace.
var DefaultPaneGrants = []Grant{{RightRead, "self"}, {RightWrite, "self"}, {RightSpawn, "self"}, {RightSpawn, "home"}}

// authzState is the authorization data of the model; s.mu guards it.
// Entries outlive their resources, so retained runs and events of removed
// panes keep being judged as they were (frozen data).
type authzState struct {
	creator map[string]string  // resource -> principal id that created it
	grants  map[string][]Grant // pane id -> its principal's grants
	parent  map[string]string  // resource -> its container, kept after removal
	denials map[string]int64   // verb -> denials since start
	// unattributed: connections of unattributed callers, by name
	unattributed map[string]*UnattributedCaller
	// helpers: the shared agent helpers callers descended from, by pid
	helpers map[int]*SharedHelperSeen
}

// SharedHelperSeen is an agent's shared helper that callers descended
// from (doctor): the agent, its pid, the pane it was started from ("" if
// unknown: first seen after that pane ended), the connections denied, and
// how to run one helper per pane instead (Adapter.SharedHelperFix).
type SharedHelperSeen struct {
	Agent       string
	Fix         string
	Pid         int
	Pane        string
	Connections int64
	LastAt      time.Time
}

// UnattributedCaller counts connections of unattributed processes of one
// name (/proc/PID/comm) since the daemon started (doctor).
type UnattributedCaller struct {
	Name        string
	Pid         int // the last one's
	Connections int64
	LastAt      time.Time
}

func (a *authzState) init() {
	if a.creator == nil {
		a.creator, a.grants, a.parent, a.denials = map[string]string{}, map[string][]Grant{}, map[string]string{}, map[string]int64{}
	}
}

// adopt records a new pane's creator and its principal's grants; s.mu is held.
func (a *authzState) adopt(p *pane, creator string, grants []Grant) {
	a.init()
	if creator == "" {
		creator = Owner
	}
	if grants == nil {
		grants = DefaultPaneGrants
	}
	a.creator["pane:"+p.id] = creator
	if p.tab != "" { // frozen containment, for after removal
		a.parent["pane:"+p.id], a.parent["tab:"+p.tab] = "tab:"+p.tab, "workspace:"+p.workspace
	} else {
		a.parent["pane:"+p.id] = "workspace:" + p.workspace
	}
	a.grants[p.id] = append([]Grant{}, grants...)
}

// ownRun records a new run's owner and containment, kept while its record
// is retained; s.mu is held.
func (a *authzState) ownRun(r *run) {
	a.init()
	a.creator["run:"+r.id] = r.principal
	a.parent["run:"+r.id] = "pane:" + r.paneID
	if r.tab != "" {
		a.parent["pane:"+r.paneID], a.parent["tab:"+r.tab] = "tab:"+r.tab, "workspace:"+r.ws
	}
}

// SetCreator records who created resource ("workspace:<id>", "tab:<id>").
func (s *Service) SetCreator(resource, principal string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.authz.init()
	s.authz.creator[resource] = principal
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
func (s *Service) PaneOfProcess(pid int) string {
	if h, _ := sharedHelperOf(pid); h > 0 {
		return ""
	}
	id, _ := s.findPane(pid)
	return id
}

// sharedHelperOf is the pid and agent of the nearest process among pid
// and its ancestors whose argv an agent adapter declares a shared helper
// (agents.SharedHelper), 0 if none; the walk stops at the daemon.
func sharedHelperOf(pid int) (int, string) {
	return sharedHelperIn(pid, os.Getpid(), procArgv, func(pid int) int { ppid, _, _ := procStat(pid); return ppid })
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

// procArgv reads a process's argv (nil if gone).
func procArgv(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// findPane is PaneOfProcess, and whether pid descends from the daemon.
func (s *Service) findPane(pid int) (string, bool) {
	s.mu.Lock()
	leaders := map[int]string{}  // live panes' leaders
	sessions := map[int]string{} // exited panes' leaders, as session ids of what they left running
	groups := map[string]string{}
	for id, p := range s.panes {
		if !p.announced || p.inst == nil || p.inst.proc == nil {
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
		ppid, pgrp, sid := procStat(pid)
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

// procStat reads a process's parent, process group and session (0s if gone).
func procStat(pid int) (ppid, pgrp, sid int) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 4 {
		return 0, 0, 0
	}
	ppid, _ = strconv.Atoi(f[1])
	pgrp, _ = strconv.Atoi(f[2])
	sid, _ = strconv.Atoi(f[3])
	return ppid, pgrp, sid
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
func (s *Service) ResolvePeer(pid int, environ func() []byte) Principal {
	if h, kind := sharedHelperOf(pid); h > 0 {
		s.noteUnattributed(pid)
		s.noteSharedHelper(h, kind)
		return Principal{ID: Unknown, Unattributed: true, HelperPid: h, Helper: kind}
	}
	id, inside := s.findPane(pid)
	// A descendant of the daemon is inside some pane: a process that
	// connects right after its exec may come before its pane's start
	// commits. It is never the owner.
	for deadline := time.Now().Add(resolveWait); id == "" && inside && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
		id, inside = s.findPane(pid)
	}
	if id != "" {
		return s.panePrincipal(id)
	}
	// Identity fails closed: a process started inside a pane or by the
	// daemon that no live pane claims is never the owner (nor, by its
	// environment, anyone else).
	if inside || s.cfg.Mark.marked(pid) {
		s.noteUnattributed(pid)
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
		g = []Grant{{RightRead, "*"}}
	}
	return Principal{ID: Unknown, Grants: append([]Grant{}, g...)}
}

// maxUnattributedNames bounds the names UnattributedCallers keeps.
const maxUnattributedNames = 64

// noteUnattributed counts a connection of an unattributed process.
func (s *Service) noteUnattributed(pid int) {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	name := strings.TrimSpace(string(b))
	if name == "" {
		name = "?"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.authz.init()
	if s.authz.unattributed == nil {
		s.authz.unattributed = map[string]*UnattributedCaller{}
	}
	u := s.authz.unattributed[name]
	if u == nil {
		if len(s.authz.unattributed) >= maxUnattributedNames {
			return
		}
		u = &UnattributedCaller{Name: name}
		s.authz.unattributed[name] = u
	}
	u.Pid, u.LastAt = pid, time.Now()
	u.Connections++
}

// maxSharedHelpers bounds the helpers SharedHelpers keeps.
const maxSharedHelpers = 16

// noteSharedHelper counts a denied connection through shared helper pid
// of agent kind, and finds the pane it was started from the first time.
func (s *Service) noteSharedHelper(pid int, kind string) {
	s.mu.Lock()
	h := s.authz.helpers[pid]
	s.mu.Unlock()
	pane := ""
	if h == nil {
		pane, _ = s.findPane(pid)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.authz.helpers == nil {
		s.authz.helpers = map[int]*SharedHelperSeen{}
	}
	if h = s.authz.helpers[pid]; h == nil {
		if len(s.authz.helpers) >= maxSharedHelpers {
			return
		}
		h = &SharedHelperSeen{Agent: kind, Pid: pid, Pane: pane, Fix: sharedHelperFix(kind)}
		s.authz.helpers[pid] = h
	}
	h.Connections++
	h.LastAt = time.Now()
}

// sharedHelperFix is how to run agent kind's helper once per pane.
func sharedHelperFix(kind string) string {
	if a, ok := agents.Lookup(kind); ok && a.SharedHelperFix != "" {
		return a.SharedHelperFix
	}
	return "run one helper per pane (docs/agents.md)"
}

// SharedHelpers returns the live shared agent helpers callers descended
// from (noteSharedHelper), by pid; helpers that exited are dropped.
func (s *Service) SharedHelpers() []SharedHelperSeen {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]SharedHelperSeen, 0, len(s.authz.helpers))
	for pid, h := range s.authz.helpers {
		if _, ok := agents.SharedHelper(procArgv(pid)); !ok {
			delete(s.authz.helpers, pid) // exited (or its pid now another program's)
			continue
		}
		out = append(out, *h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pid < out[j].Pid })
	return out
}

// UnattributedCallers returns the counts of noteUnattributed, by name.
func (s *Service) UnattributedCallers() []UnattributedCaller {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]UnattributedCaller, 0, len(s.authz.unattributed))
	for _, u := range s.authz.unattributed {
		out = append(out, *u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (s *Service) panePrincipal(id string) Principal {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.authz.grants[id]
	if !ok {
		g = DefaultPaneGrants
	}
	return Principal{ID: "pane:" + id, Pane: id, Grants: append([]Grant{}, g...)}
}

// chain is resource followed by its containers, outermost last, as far as
// the model (or the frozen data of removed resources) knows them; an
// unknown resource is alone. Workspace refs (handles, names) become ids.
// s.mu is held.
func (s *Service) chain(resource string) []string {
	kind, id, _ := strings.Cut(resource, ":")
	if kind == "workspace" {
		if w, err := s.lookupWorkspace(id); err == nil {
			resource = "workspace:" + w.id
		}
	}
	out := []string{resource}
	for i := 0; i < 4; i++ {
		kind, id, _ := strings.Cut(out[len(out)-1], ":")
		next := ""
		switch kind {
		case "run":
			if r, ok := s.runs.runs[id]; ok {
				next = "pane:" + r.paneID
			}
		case "pane":
			if p, ok := s.panes[id]; ok && p.tab != "" {
				next = "tab:" + p.tab
			} else if ok {
				next = "workspace:" + p.workspace
			}
		case "tab":
			if t, ok := s.tabs[id]; ok {
				next = "workspace:" + t.workspace
			}
		}
		if next == "" && kind != "run" { // an absent run has no containers
			next = s.authz.parent[out[len(out)-1]]
		} else if next != "" {
			s.authz.init()
			s.authz.parent[out[len(out)-1]] = next
		}
		if next == "" {
			break
		}
		out = append(out, next)
	}
	return out
}

// covers reports whether grant g gives right on the resources of chain
// (the target first) to principal p; s.mu is held.
func (s *Service) covers(p Principal, g Grant, right string, chain []string) bool {
	if g.Right != right || len(chain) == 0 {
		return false
	}
	switch kind, id, _ := strings.Cut(g.Scope, ":"); {
	case g.Scope == "*":
		return true
	case g.Scope == "self":
		for _, r := range chain {
			if (p.Pane != "" && r == "pane:"+p.Pane) || s.createdBy(r, p.ID) {
				return true
			}
		}
	case g.Scope == "home":
		return p.Pane != "" && chain[0] == s.homeOf(p.Pane)
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
// transitive); s.mu is held.
func (s *Service) createdBy(resource, principal string) bool {
	for i := 0; i < maxCreators; i++ {
		c, ok := s.authz.creator[resource]
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

// homeOf is "workspace:<id>" of pane's workspace (kept after its removal);
// s.mu is held.
func (s *Service) homeOf(pane string) string {
	if p, ok := s.panes[pane]; ok {
		return "workspace:" + p.workspace
	}
	c := s.chain("pane:" + pane)
	if last := c[len(c)-1]; strings.HasPrefix(last, "workspace:") {
		return last
	}
	return ""
}

// Allowed reports whether p holds right on resource ("<kind>:<id>").
func (s *Service) Allowed(p Principal, right, resource string) bool {
	if p.IsOwner() {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.allowedLocked(p, right, resource)
}

func (s *Service) allowedLocked(p Principal, right, resource string) bool {
	if p.IsOwner() {
		return true
	}
	s.authz.init()
	c := s.chain(resource)
	for _, g := range p.Grants {
		if s.covers(p, g, right, c) {
			return true
		}
	}
	return false
}

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

// Authorize returns nil if p holds right on resource, else a denied.<right>
// error; the denial is logged at notice level (principal, verb, resource,
// never arguments) and counted by verb.
func (s *Service) Authorize(p Principal, verb, right, resource string) error {
	if s.Allowed(p, right, resource) {
		return nil
	}
	return s.Deny(p, verb, right, resource)
}

// Deny records and returns a denial (see Authorize).
func (s *Service) Deny(p Principal, verb, right, resource string) *Error {
	s.mu.Lock()
	s.authz.init()
	s.authz.denials[verb]++
	s.mu.Unlock()
	// The reply names neither the resource nor whether it exists, so a
	// missing target and a forbidden one are denied identically.
	if p.HelperPid > 0 {
		s.log.Log(context.Background(), LevelNotice, "denied", "principal", p.ID, "verb", verb, "right", right, "resource", resource, "reason", "shared_helper", "helper_pid", p.HelperPid)
		fix := sharedHelperFix(p.Helper)
		return newError(errcode.DeniedSharedHelper, map[string]any{"right": right, "reason": "shared_helper", "agent": p.Helper, "helper_pid": p.HelperPid},
			"the caller runs under %s's shared helper (pid %d), which serves the agents of several panes, so it acts for none and is denied: %s",
			p.Helper, p.HelperPid, fix)
	}
	if p.Unattributed {
		s.log.Log(context.Background(), LevelNotice, "denied", "principal", p.ID, "verb", verb, "right", right, "resource", resource, "reason", "unattributed")
		return newError(errcode.Code("denied."+right), map[string]any{"right": right, "reason": "unattributed"},
			"the caller was started inside a pane (or by the daemon) but no live pane claims it: it is denied, never the owner")
	}
	s.log.Log(context.Background(), LevelNotice, "denied", "principal", p.ID, "verb", verb, "right", right, "resource", resource)
	return newError(errcode.Code("denied."+right), map[string]any{"right": right}, "%s needs %s on its target", p.ID, right)
}

// LevelNotice is slog's level for audit lines: between info and warning.
const LevelNotice = slog.Level(2)

// Denials counts the denials since the daemon started, by verb.
type Denials struct {
	Verb  string
	Count int64
}

// DenialCounts returns the denials by verb, sorted by verb.
func (s *Service) DenialCounts() []Denials {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Denials, 0, len(s.authz.denials))
	for v, n := range s.authz.denials {
		out = append(out, Denials{v, n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Verb < out[j].Verb })
	return out
}

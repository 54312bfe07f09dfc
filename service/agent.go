package service

import (
	"path/filepath"
	"slices"

	"github.com/signaltty/signaltty/service/agents"
	"github.com/signaltty/signaltty/service/events"
)

// A pane's agent (docs/agents.md): which agent runs in it, the session it
// holds and the command that resumes that session, its lifecycle and its
// attention. The agent belongs to the pane and is guarded by s.mu like the
// rest of it; it follows the pane's process through agentObserver.

// Agent is a snapshot of a pane's agent.
type Agent struct {
	Kind       string
	SessionID  string
	ResumeArgv []string
	// ResumeReported: ResumeArgv was reported by the agent itself, not
	// built by its adapter; it runs only on an explicit resume.
	ResumeReported bool
	Model          string
	ConfigEnv      map[string]string
}

// agentState is a pane's agent; s.mu guards it.
type agentState struct {
	kind           string // "" or agents.KindNone: no agent
	sessionID      string
	resumeArgv     []string
	resumeReported bool
	model          string
	configEnv      map[string]string
	lifecycle      string // "" = unknown
	attention      string // "" = none
	lastMessage    string
	// scanned and scannedAt: the instance the last /proc scan looked at and
	// its output offset then (agent_scan.go).
	scanned   *instance
	scannedAt int64
}

// configEnvNames are the variables that may be kept as an agent's
// config_env: the configuration directories of the agents with adapters.
var configEnvNames = func() []string {
	var out []string
	for _, k := range agents.Kinds() {
		if a, ok := agents.Lookup(k); ok {
			out = append(out, a.ConfigEnv...)
		}
	}
	return out
}()

// hasAgent reports whether the pane holds an agent.
func (a *agentState) hasAgent() bool { return a.kind != "" && a.kind != agents.KindNone }

func (a *agentState) lifecycleName() string {
	if a.lifecycle == "" {
		return agents.LifecycleUnknown
	}
	return a.lifecycle
}

func (a *agentState) attentionName() string {
	if a.attention == "" {
		return agents.AttentionNone
	}
	return a.attention
}

// fill copies the agent into a pane snapshot.
func (a *agentState) fill(s *Pane) {
	s.Lifecycle, s.Attention, s.LastMessage = a.lifecycleName(), a.attentionName(), a.lastMessage
	if !a.hasAgent() && a.sessionID == "" && len(a.configEnv) == 0 {
		return
	}
	ag := &Agent{Kind: a.kind, SessionID: a.sessionID, ResumeArgv: slices.Clone(a.resumeArgv),
		ResumeReported: a.resumeReported, Model: a.model}
	if ag.Kind == "" {
		ag.Kind = agents.KindNone
	}
	if len(a.configEnv) > 0 {
		ag.ConfigEnv = map[string]string{}
		for k, v := range a.configEnv {
			ag.ConfigEnv[k] = v
		}
	}
	s.Agent = ag
}

// officialResume reports whether the pane's resume argv is the one its
// adapter builds for its session (what auto-resume may run).
func (p *pane) officialResume() bool {
	a := &p.agent
	if a.resumeReported || a.sessionID == "" || len(a.resumeArgv) == 0 {
		return false
	}
	ad, ok := agents.Lookup(a.kind)
	if !ok {
		return false
	}
	launch := ""
	if len(p.argv) > 0 {
		launch = p.argv[0]
	}
	want := ad.Resume(launch, a.sessionID)
	return want != nil && (slices.Equal(want, a.resumeArgv) || slices.Equal(ad.Resume("", a.sessionID), a.resumeArgv) ||
		(filepath.IsAbs(a.resumeArgv[0]) && filepath.Base(a.resumeArgv[0]) == ad.Program && slices.Equal(ad.Resume(a.resumeArgv[0], a.sessionID), a.resumeArgv)))
}

// resumable reports whether the pane has a session and a command to resume it.
func (a *agentState) resumable() bool { return a.sessionID != "" && len(a.resumeArgv) > 0 }

// initAgent sets a new pane's agent from its spawn: the kind from hint
// (checked) or argv[0]'s basename, config_env from the spawn's env made
// absolute against cwd.
func initAgent(p *pane, hint string, env map[string]string) {
	kind := hint
	if kind == "" && len(p.argv) > 0 {
		kind = agents.Detect(p.argv[0])
	}
	p.agent = agentState{kind: kind}
	for _, name := range configEnvNames {
		v, ok := env[name]
		if !ok || v == "" {
			continue
		}
		if !filepath.IsAbs(v) {
			v = filepath.Join(p.cwd, v)
		}
		if p.agent.configEnv == nil {
			p.agent.configEnv = map[string]string{}
		}
		p.agent.configEnv[name] = filepath.Clean(v)
	}
}

// setSession records that the pane's agent of kind holds session id;
// s.mu is held. reported is a self-reported resume argv (nil: the
// adapter's). Rules (docs/agents.md, "Session identity"): the same agent
// and session keep what they have unless a new argv is reported; a new
// agent or session takes the adapter's command (or the reported one).
func (s *Service) setSession(p *pane, kind, id string, reported []string) {
	a := &p.agent
	if kind == "" || kind == agents.KindNone {
		kind = a.kind
		if kind == "" || kind == agents.KindNone {
			kind = agents.KindGeneric
		}
	}
	same := a.kind == kind && a.sessionID == id
	if same && reported == nil {
		if len(a.resumeArgv) == 0 { // learned before an adapter could build it
			a.resumeArgv = s.officialArgv(p, kind, id)
			s.touch(p) // no event (records.go)
		}
		return
	}
	prevID := a.sessionID
	a.kind, a.sessionID = kind, id
	if reported != nil {
		a.resumeArgv, a.resumeReported = slices.Clone(reported), true
	} else {
		a.resumeArgv, a.resumeReported = s.officialArgv(p, kind, id), false
	}
	ev := events.AgentSession{Pane: p.id, Kind: kind, Session: id, Reported: a.resumeReported}
	if prevID != id {
		ev.Previous = prevID
	}
	s.emit(ev)
}

// officialArgv is the adapter's resume command for the pane's session.
func (s *Service) officialArgv(p *pane, kind, id string) []string {
	ad, ok := agents.Lookup(kind)
	if !ok {
		return nil
	}
	launch := ""
	if len(p.argv) > 0 && agents.Detect(p.argv[0]) == kind {
		launch = p.argv[0]
	}
	return ad.Resume(launch, id)
}

// setLifecycle moves the pane's agent to lc and publishes agent.<lc>; a
// set to the same value publishes nothing. s.mu is held.
func (s *Service) setLifecycle(p *pane, lc string) {
	prev := p.agent.lifecycleName()
	if lc == "" || lc == prev {
		return
	}
	p.agent.lifecycle = lc
	s.emit(events.AgentLifecycle{Pane: p.id, Lifecycle: lc, Prev: prev})
}

// raiseAttention raises the pane's attention to at least a (never lowers
// it) and publishes attention.created (from none) or attention.updated.
func (s *Service) raiseAttention(p *pane, a string) {
	prev := p.agent.attentionName()
	if agents.AttentionRank(a) <= agents.AttentionRank(prev) {
		return
	}
	p.agent.attention = a
	if prev == agents.AttentionNone {
		s.emit(events.AttentionCreated{Pane: p.id, Attention: a, Prev: prev})
	} else {
		s.emit(events.AttentionUpdated{Pane: p.id, Attention: a, Prev: prev})
	}
}

// HighestAttention is the most urgent attention of any pane ("none" when
// no pane needs the user), and the pane that has it ("" for none).
func (s *Service) HighestAttention() (attention, pane string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	attention = agents.AttentionNone
	for _, p := range s.panes {
		if a := p.agent.attentionName(); p.announced && agents.AttentionRank(a) > agents.AttentionRank(attention) {
			attention, pane = a, p.id
		}
	}
	return attention, pane
}

// clearAttention sets the pane's attention back to none (reason:
// mark_seen, attach, hook) and publishes attention.cleared.
func (s *Service) clearAttention(p *pane, reason string) {
	if p.agent.attentionName() == agents.AttentionNone {
		return
	}
	p.agent.attention = ""
	s.emit(events.AttentionCleared{Pane: p.id, Reason: reason})
}

// agentObserver makes a pane's agent follow its process: when the leader
// exits, the agent's lifecycle becomes exited, a question it asked drops to
// unread (nobody can answer it any more) and the exit itself is unread.
type agentObserver struct{}

func (agentObserver) paneChanged(s *Service, p *pane, from paneState, c change) {
	if c.to != stateExited || c.exit == nil {
		return
	}
	if !p.agent.hasAgent() && p.agent.lifecycle == "" {
		return
	}
	s.setLifecycle(p, agents.LifecycleExited)
	s.dropQuestion(p, agents.AttentionUnread)
	s.raiseAttention(p, agents.AttentionUnread)
}

// dropQuestion lowers a pending input_required or permission_required to
// to (none for ""): the question was answered, its turn ended, or nobody
// can answer it any more. It publishes attention.updated, or
// attention.cleared (reason "answered") when to is none; s.mu is held.
func (s *Service) dropQuestion(p *pane, to string) {
	prev := p.agent.attention
	if prev != agents.AttentionInputRequired && prev != agents.AttentionPermissionRequired {
		return
	}
	if to == "" || to == agents.AttentionNone {
		s.clearAttention(p, "answered")
		return
	}
	if agents.AttentionRank(to) >= agents.AttentionRank(prev) {
		return // raiseAttention will take it up
	}
	p.agent.attention = to
	s.emit(events.AttentionUpdated{Pane: p.id, Attention: to, Prev: prev})
}

// watchAgent subscribes the pane's agent to the pane's transitions (once
// per process: observers are dropped when a pane exits); s.mu is held.
func (s *Service) watchAgent(p *pane) {
	for _, o := range p.observers {
		if _, ok := o.(agentObserver); ok {
			return
		}
	}
	p.observers = append(p.observers, agentObserver{})
}

// MarkSeen clears a pane's attention (Mux.MarkSeen). Errors: not_found.pane.
func (s *Service) MarkSeen(id string) (Pane, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.lookupPane(id)
	if err != nil {
		return Pane{}, err
	}
	s.clearAttention(p, "mark_seen")
	return p.snapshot(), nil
}

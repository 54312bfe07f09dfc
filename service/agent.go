package service

import (
	"slices"

	"github.com/signaltty/signaltty/service/agents"
)

// A pane's agent (docs/agents.md): which agent runs in it, the session it
// holds and the command that resumes that session, its lifecycle and its
// attention. Its rules are agents.State's; the agent belongs to the pane
// and is guarded by s.mu like the rest of it, and what its changes mean is
// published by agentChangedLocked. It follows the pane's process through
// agentObserver.

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

// agentState is a pane's agent; s.mu guards it. scanned and scannedAt: the
// instance the last /proc scan looked at and its output offset then
// (agent_scan.go).
type agentState struct {
	agents.State
	scanned   *instance
	scannedAt int64
}

// fill copies the agent into a pane snapshot.
func (a *agentState) fill(s *Pane) {
	s.Lifecycle, s.Attention, s.LastMessage = a.LifecycleName(), a.AttentionName(), a.LastMessage
	if !a.HasAgent() && a.SessionID == "" && len(a.ConfigEnv) == 0 {
		return
	}
	ag := &Agent{Kind: a.Kind, SessionID: a.SessionID, ResumeArgv: slices.Clone(a.ResumeArgv),
		ResumeReported: a.ResumeReported, Model: a.Model}
	if ag.Kind == "" {
		ag.Kind = agents.KindNone
	}
	if len(a.ConfigEnv) > 0 {
		ag.ConfigEnv = map[string]string{}
		for k, v := range a.ConfigEnv {
			ag.ConfigEnv[k] = v
		}
	}
	s.Agent = ag
}

// launch is argv[0] of the pane's command, "" for none: the path an
// official resume command may keep.
func (p *pane) launch() string {
	if len(p.argv) > 0 {
		return p.argv[0]
	}
	return ""
}

// initAgent sets a new pane's agent from its spawn (agents.NewState).
func initAgent(p *pane, hint string, env map[string]string) {
	p.agent = agentState{State: agents.NewState(hint, p.argv, p.cwd, env)}
}

// agentChangedLocked publishes what a change of p's agent means: its events,
// a new record revision, a save; s.mu is held.
func (s *Service) agentChangedLocked(p *pane, c agents.Change) {
	for _, e := range c.Events {
		s.emitLocked(e)
	}
	if c.Touched {
		s.records.touch(p) // no event (records.go)
	}
	if c.Save {
		s.persist.MarkDirtyLocked()
	}
}

// HighestAttention is the most urgent attention of any pane ("none" when
// no pane needs the user), and the pane that has it ("" for none).
func (s *Service) HighestAttention() (attention, pane string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var h agents.Highest
	for _, p := range s.panes {
		if p.announced() {
			h.Add(p.id, p.agent.AttentionName())
		}
	}
	return h.Attention(), h.Pane()
}

// agentObserver makes a pane's agent follow its process: when the leader
// exits, the agent's lifecycle becomes exited (agents.State.Exited).
type agentObserver struct{}

func (agentObserver) paneChanged(s *Service, p *pane, from paneState, c change) {
	if c.to != stateExited || c.exit == nil {
		return
	}
	s.agentChangedLocked(p, p.agent.Exited(p.id))
}

// watchAgentLocked subscribes the pane's agent to the pane's transitions
// (once per process: observers are dropped when a pane exits); s.mu is
// held.
func (p *pane) watchAgentLocked() {
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
	s.agentChangedLocked(p, p.agent.ClearAttention(p.id, "mark_seen"))
	return p.snapshot(), nil
}

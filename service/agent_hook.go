package service

import (
	"strings"
	"time"

	"github.com/signaltty/signaltty/service/agents"
	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/request"
)

// How a pane's agent tells the daemon who it is and what it does
// (docs/agents.md, "Session identity", "Hook events"): the agents' own
// hooks call `signaltty hook <agent> <event>` (Mux.HookEvent) with the
// hook's JSON; agents without hooks call `signaltty report-session`
// (Mux.ReportSession). Nothing is ever scraped from a pane's screen.

// HookRequest is the input of HookEvent.
type HookRequest struct {
	Agent     string         // the agent whose hook this is (a kind)
	Event     string         // the hook's event name, as the agent names it
	Pane      string         // the pane ($SIGNALTTY_PANE), or "" to find it from ClientPid
	ClientPid int            // the hook process: its ancestry finds the pane when Pane is ""
	Payload   map[string]any // the hook's JSON input (nil: none)
}

// HookResult says what a hook event did. Accepted is false, with Reason,
// when no pane could be found ("no_pane") or the adapter does not know the
// event ("unrecognized_hook"); neither is an error, so hooks never fail the
// agent.
type HookResult struct {
	Accepted  bool
	Reason    string
	Pane      string
	Lifecycle string
	Attention string
}

const maxEventName = 128

// HookEvent applies an agent's hook event to its pane (Mux.HookEvent).
// An explicit pane that does not exist is looked for through ClientPid's
// ancestry instead (a stale $SIGNALTTY_PANE). Errors: invalid_params.agent
// (unknown or none), invalid_params.event, not_found.pane (an explicit
// pane that does not exist, without a ClientPid).
func (s *Service) HookEvent(r HookRequest) (HookResult, error) {
	r.Agent = agents.Normalize(r.Agent)
	if err := checkKind("agent", r.Agent); err != nil {
		return HookResult{}, err
	}
	ad, ok := agents.Lookup(r.Agent)
	if !ok {
		return HookResult{}, invalid("agent", "missing", "agent is required (one of %s)", strings.Join(agents.Kinds()[:len(agents.Kinds())-1], ", "))
	}
	if r.Event == "" || len(r.Event) > maxEventName || strings.ContainsFunc(r.Event, func(c rune) bool { return c < 0x21 || c == 0x7f }) {
		return HookResult{}, invalid("event", "invalid", "event must be 1..%d printable characters without spaces", maxEventName)
	}
	if r.Pane != "" && r.ClientPid > 1 {
		s.mu.Lock()
		_, err := s.lookupPane(r.Pane)
		s.mu.Unlock()
		if err != nil { // a stale $SIGNALTTY_PANE: the caller's ancestry still finds its pane
			r.Pane = ""
		}
	}
	id := r.Pane
	if id == "" {
		id = s.access.PaneOfProcess(r.ClientPid) // as the caller's principal is found (authz.go)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.settledPaneLocked(id)
	if err != nil {
		return HookResult{}, err
	}
	if p == nil {
		return HookResult{Reason: "no_pane"}, nil
	}
	d, known := ad.Classify(r.Event, r.Payload)
	if !known { // a hook that is not applied changes nothing, its session id included
		return HookResult{Reason: "unrecognized_hook", Pane: p.id, Lifecycle: p.agent.LifecycleName(), Attention: p.agent.AttentionName()}, nil
	}
	h := agents.Hook{Kind: ad.Kind, Decision: d, Session: ad.SessionID(r.Payload), Model: ad.Model(r.Payload),
		Live: p.state.hasProcess(), Launch: p.launch()}
	if request.CheckSessionID(h.Session) != nil {
		h.Session = ""
	}
	if len(h.Model) > request.MaxModel {
		h.Model = ""
	}
	c, notify := p.agent.ApplyHook(p.id, h)
	s.agentChangedLocked(p, c)
	if notify {
		body, _ := r.Payload[d.NotifyBodyKey].(string)
		n := s.Notifications().addLocked(p, "", d.NotifyTitle, body, d.NotifySeverity, "hook:"+ad.Kind+":"+r.Event)
		if m := n.LastMessage(); m != "" {
			s.agentChangedLocked(p, p.agent.SetLastMessage(m))
		}
	}
	return HookResult{Accepted: true, Pane: p.id, Lifecycle: p.agent.LifecycleName(), Attention: p.agent.AttentionName()}, nil
}

// settledPaneLocked finds the pane of a hook or report (nil for id ""),
// waiting up to startWait while it is starting (an agent resumed or
// relaunched reports itself before its start committed), like a stop
// request waits (docs/pane-lifecycle.md); s.mu is held, and released while
// waiting.
func (s *Service) settledPaneLocked(id string) (*pane, *Error) {
	if id == "" {
		return nil, nil
	}
	deadline := time.Now().Add(startWait)
	for {
		p, err := s.lookupPane(id)
		if err != nil || p.state != stateStarting {
			return p, err
		}
		settled := p.start.settled
		s.mu.Unlock()
		select {
		case <-settled:
		case <-time.After(time.Until(deadline)):
		}
		s.mu.Lock()
		if time.Now().After(deadline) {
			return s.lookupPane(id)
		}
	}
}

// startWait bounds how long a hook waits for its pane's start.
const startWait = 5 * time.Second

// ReportRequest is the input of ReportSession.
type ReportRequest struct {
	Pane       string // "" = found from ClientPid's ancestry
	ClientPid  int
	Session    string   // the agent's session id (1..256 bytes)
	Agent      string   // the agent kind ("" = the pane's, else generic)
	ResumeArgv []string // a self-reported resume command (nil: the adapter's)
	Model      string
}

// ReportSession records the session an agent holds, for agents without
// hooks and resumed sessions that fire none (Mux.ReportSession). A
// self-reported ResumeArgv (checked: at most 64 arguments and 8 KiB, no
// control characters, a plain command name first) replaces the adapter's
// command and runs only on an explicit resume. Later reports of the same
// agent and session keep it; a new agent or session takes the adapter's
// command again. Errors: invalid_params.session, .agent, .resume_argv,
// .model; not_found.pane (no pane given and none found from the caller's
// ancestry, or an unknown one).
func (s *Service) ReportSession(r ReportRequest) (Pane, error) {
	if err := request.CheckSessionID(r.Session); err != nil {
		return Pane{}, err
	}
	r.Agent = agents.Normalize(r.Agent)
	if err := checkKind("agent", r.Agent); err != nil {
		return Pane{}, err
	}
	if r.ResumeArgv != nil {
		if err := checkResumeArgv(r.ResumeArgv); err != nil {
			return Pane{}, err
		}
	}
	if len(r.Model) > request.MaxModel || strings.ContainsFunc(r.Model, func(c rune) bool { return c < 0x20 || c == 0x7f }) {
		return Pane{}, invalid("model", "invalid", "model must be at most %d printable bytes", request.MaxModel)
	}
	id := r.Pane
	if id == "" {
		id = s.access.PaneOfProcess(r.ClientPid) // as the caller's principal is found (authz.go)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.settledPaneLocked(id)
	if err != nil {
		return Pane{}, err
	}
	if p == nil {
		return Pane{}, newError(errcode.NotFoundPane, map[string]any{"reason": "no_pane_for_caller"},
			"no pane given ($SIGNALTTY_PANE is unset) and the caller runs in no live pane")
	}
	s.agentChangedLocked(p, p.agent.SetSession(p.id, r.Agent, r.Session, r.ResumeArgv, p.launch()))
	if r.Model != "" {
		p.agent.Model = r.Model
		s.records.touch(p) // no event (records.go)
	}
	return p.snapshot(), nil
}

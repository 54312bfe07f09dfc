package service

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/signaltty/signaltty/service/agents"
	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/events"
	"github.com/signaltty/signaltty/service/request"
)

// Waiting on a pane's agent (Mux.Wait; docs/agents.md, "Waiting"). A wait
// never acts on the pane. It follows the pane's events: with a baseline,
// from the baseline's seq through the event journal, so a state the agent
// passed through after the baseline counts even if it has moved on since.

// WaitBaseline names where a wait starts from: a pane's process instance
// as of an event seq of one daemon instance (source). GetPane returns the
// current one; baselines are never saved, and a restart, a relaunch, a
// resume or a new agent session invalidates them.
type WaitBaseline struct {
	Pane     string
	Source   string
	Seq      int64
	Instance string // the pane's process instance ("" for a pane that never had one here)
	Session  string // the agent's session id then ("" for none)
}

// WaitResult is what a wait returns.
type WaitResult struct {
	Outcome       string // the `until` value reached
	TransitionSeq int64  // the seq of the event that reached it (0: it held when the wait began)
	Lifecycle     string // the pane's agent lifecycle now
	Attention     string // the pane's attention now
	Baseline      WaitBaseline
}

// Wait bounds (request.DefaultWaitMs, request.MaxWaitMs).
const (
	DefaultPaneWait = request.DefaultWaitMs * time.Millisecond
	MaxPaneWait     = request.MaxWaitMs * time.Millisecond
)

// waitTargets are the values `until` accepts besides lifecycles and attentions.
var waitTargets = []string{"seen", "attention_cleared", "exited"}

// checkUntil validates a wait's targets (invalid_params.until).
func checkUntil(until []string) *Error {
	if len(until) == 0 {
		return invalid("until", "missing", "until needs at least one state")
	}
	for _, u := range until {
		if !slices.Contains(agents.Lifecycles, u) && agents.AttentionRank(u) < 0 && !slices.Contains(waitTargets, u) {
			return invalid("until", "unknown", "%q is not a lifecycle (%s), an attention (none … error) or one of %s",
				u, strings.Join(agents.Lifecycles, ", "), strings.Join(waitTargets, ", "))
		}
	}
	return nil
}

// baselineLocked is p's current baseline; s.mu is held.
func (s *Service) baselineLocked(p *pane) WaitBaseline {
	b := WaitBaseline{Pane: p.id, Source: s.source, Seq: s.pub.seq, Session: p.agent.SessionID}
	if p.inst != nil {
		b.Instance = p.inst.id
	}
	return b
}

// reached reports whether until holds for the pane's current state.
func (p *pane) reached(until []string) (string, bool) {
	lc, at := p.agent.LifecycleName(), p.agent.AttentionName()
	for _, u := range until {
		switch {
		case u == "seen" || u == "attention_cleared":
			if at == agents.AttentionNone {
				return u, true
			}
		case u == "exited":
			if lc == agents.LifecycleExited || p.shown() == stateExited {
				return u, true
			}
		case u == lc || u == at:
			return u, true
		}
	}
	return "", false
}

// WaitPane waits until the pane's agent reaches one of until (lifecycle or
// attention values, "seen"/"attention_cleared": attention back to none,
// "exited"): without after, at once when it holds now, else by a later
// transition; with after, by a transition after the baseline. timeout < 0
// means DefaultPaneWait. Errors: invalid_params.until, invalid_params.after
// (another pane, or a seq not issued), not_found.pane,
// conflict.identity_changed (the baseline's daemon, process instance or
// agent session is gone), timeout.wait, unavailable.journal and the other
// errors of a replay (SubscribeAfter), cancelled.
func (s *Service) WaitPane(ctx context.Context, id string, until []string, after *WaitBaseline, timeout time.Duration) (WaitResult, error) {
	if err := checkUntil(until); err != nil {
		return WaitResult{}, err
	}
	if timeout < 0 {
		timeout = DefaultPaneWait
	}
	if timeout > MaxPaneWait {
		return WaitResult{}, invalid("timeout_ms", "range", "timeout_ms must be 0..%d", MaxPaneWait.Milliseconds())
	}
	s.mu.Lock()
	p, err := s.lookupPane(id)
	if err != nil {
		s.mu.Unlock()
		return WaitResult{}, err
	}
	result := func(outcome string, seq int64) WaitResult { // s.mu is held
		return WaitResult{Outcome: outcome, TransitionSeq: seq, Lifecycle: p.agent.LifecycleName(),
			Attention: p.agent.AttentionName(), Baseline: s.baselineLocked(p)}
	}
	cursor := s.pub.seq
	if after == nil {
		if u, ok := p.reached(until); ok {
			defer s.mu.Unlock()
			return result(u, 0), nil
		}
	} else {
		cur := s.baselineLocked(p)
		switch {
		case after.Pane != id:
			err = invalid("after", "pane", "the baseline is of pane %s, not %s", after.Pane, id)
		case after.Seq > s.pub.seq || after.Seq < 0:
			err = invalid("after", "seq", "the baseline's seq %d was never issued", after.Seq)
		case after.Source != cur.Source || after.Instance != cur.Instance || after.Session != "" && after.Session != cur.Session:
			err = newError(errcode.ConflictIdentityChanged, map[string]any{"pane": id, "baseline": baselineData(*after), "current": baselineData(cur)},
				"pane %s is no longer the process (or agent session) the baseline names: take a new baseline", id)
		}
		cursor = after.Seq
	}
	s.mu.Unlock()
	if err != nil {
		return WaitResult{}, err
	}

	sub, serr := s.pub.SubscribeAfter(Filter{Resources: []string{id}}, cursor)
	if serr != nil {
		return WaitResult{}, serr
	}
	defer sub.Close()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	check := func(e Event) (WaitResult, error, bool) {
		u, ierr := waitStep(e, until, after)
		if ierr != nil {
			return WaitResult{}, ierr, true
		}
		if u == "" {
			return WaitResult{}, nil, false
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		return result(u, e.Seq), nil, true
	}
	for _, e := range sub.Replay {
		if r, err, done := check(e); done {
			return r, err
		}
	}
	for {
		select {
		case e, ok := <-sub.Events:
			if !ok {
				if err := sub.Ended(); err != nil {
					return WaitResult{}, err
				}
				return WaitResult{}, errcode.Shutdown()
			}
			if r, err, done := check(e); done {
				return r, err
			}
		case <-timer.C:
			s.mu.Lock()
			defer s.mu.Unlock()
			return WaitResult{}, newError(errcode.TimeoutWait, map[string]any{"pane": id, "lifecycle": p.agent.LifecycleName(),
				"attention": p.agent.AttentionName()}, "pane %s reached none of %s within %v", id, strings.Join(until, ", "), timeout)
		case <-ctx.Done():
			return WaitResult{}, newError(errcode.CodeCancelled, map[string]any{"pane": id}, "wait cancelled; the pane is untouched")
		}
	}
}

// waitStep judges one of the pane's events: the until value it reaches
// (""), or conflict.identity_changed when it replaces what the baseline
// named (a relaunch or resume, a new agent session).
func waitStep(e Event, until []string, after *WaitBaseline) (string, *Error) {
	var d struct {
		Lifecycle string `json:"lifecycle"`
		Attention string `json:"attention"`
		Session   string `json:"session_id"`
	}
	b, _ := json.Marshal(e.Data) // typed data, or the journal's JSON
	_ = json.Unmarshal(b, &d)
	changed := func() *Error {
		return newError(errcode.ConflictIdentityChanged, map[string]any{"pane": e.Resource, "seq": e.Seq},
			"pane %s changed its process or agent session at seq %d (%s): take a new baseline", e.Resource, e.Seq, e.Type)
	}
	has := func(v string) bool { return slices.Contains(until, v) }
	switch {
	case after != nil && e.Type == events.TypePaneRelaunched:
		return "", changed()
	case after != nil && e.Type == events.TypeAgentSession && after.Session != "" && d.Session != after.Session:
		return "", changed()
	case strings.HasPrefix(string(e.Type), "agent.") && e.Type != events.TypeAgentSession:
		lc := strings.TrimPrefix(string(e.Type), "agent.")
		if has(lc) {
			return lc, nil
		}
		if lc == agents.LifecycleExited && has("exited") {
			return "exited", nil
		}
	case e.Type == events.TypeAttentionCreated || e.Type == events.TypeAttentionUpdated:
		if has(d.Attention) {
			return d.Attention, nil
		}
	case e.Type == events.TypeAttentionCleared:
		for _, u := range []string{"seen", "attention_cleared", agents.AttentionNone} {
			if has(u) {
				return u, nil
			}
		}
	case e.Type == events.TypePaneExited && has("exited"):
		return "exited", nil
	}
	return "", nil
}

func baselineData(b WaitBaseline) map[string]any {
	return map[string]any{"source": b.Source, "seq": b.Seq, "instance": b.Instance, "session": b.Session}
}

package service

import (
	"slices"

	"github.com/signaltty/signaltty/service/agents"
	"github.com/signaltty/signaltty/snapshot"
)

// What of a pane's agent and of the notifications a snapshot keeps
// (docs/agents.md, "What is saved"): the agent block (kind, session id,
// resume command and where it came from, model, config_env), lifecycle,
// attention and last message, and the newest notifications with read_at.
// Every save writes them back as loaded, so they survive any number of
// save and load cycles.

// exportAgentLocked fills a snapshot pane from p's agent; s.mu is held.
func exportAgentLocked(p *pane, sp *snapshot.Pane) {
	a := &p.agent
	sp.Lifecycle, sp.Attention, sp.LastMessage = a.LifecycleName(), a.AttentionName(), a.LastMessage
	if !a.HasAgent() && a.SessionID == "" && len(a.ConfigEnv) == 0 {
		return
	}
	sa := &snapshot.Agent{Kind: a.Kind, SessionID: a.SessionID, ResumeArgv: slices.Clone(a.ResumeArgv), Model: a.Model}
	if a.ResumeReported {
		sa.ResumeSource = snapshot.ResumeReported
	} else if len(a.ResumeArgv) > 0 {
		sa.ResumeSource = snapshot.ResumeOfficial
	}
	if len(a.ConfigEnv) > 0 {
		sa.ConfigEnv = map[string]string{}
		for k, v := range a.ConfigEnv {
			sa.ConfigEnv[k] = v
		}
	}
	sp.Agent = sa
}

// importAgent sets p's agent from a snapshot pane. Unknown kinds become
// generic, unknown lifecycle or attention values unknown and none; only
// allowlisted config_env names are taken; a resume argv whose source is
// not "official" counts as self-reported unless it is exactly the command
// the adapter builds for the session.
func importAgent(p *pane, sp *snapshot.Pane) {
	a := agentState{State: agents.State{LastMessage: sp.LastMessage}}
	if slices.Contains(agents.Lifecycles, sp.Lifecycle) && sp.Lifecycle != agents.LifecycleUnknown {
		a.Lifecycle = sp.Lifecycle
	}
	if agents.AttentionRank(sp.Attention) > 0 {
		a.Attention = sp.Attention
	}
	if sa := sp.Agent; sa != nil {
		a.Kind, a.SessionID, a.Model = sa.Kind, sa.SessionID, sa.Model
		if !agents.Known(a.Kind) {
			a.Kind = agents.KindGeneric
		}
		a.ResumeArgv = slices.Clone(sa.ResumeArgv)
		for k, v := range sa.ConfigEnv {
			if agents.IsConfigEnv(k) {
				if a.ConfigEnv == nil {
					a.ConfigEnv = map[string]string{}
				}
				a.ConfigEnv[k] = v
			}
		}
		p.agent = a
		if len(a.ResumeArgv) > 0 && (sa.ResumeSource == snapshot.ResumeReported || (sa.ResumeSource != snapshot.ResumeOfficial && !p.agent.OfficialResume(p.launch()))) {
			p.agent.ResumeReported = true
		}
		return
	}
	p.agent = a
}

// exportNotificationsLocked is notes as a snapshot keeps them; s.mu is held.
func exportNotificationsLocked(notes []*Notification) []snapshot.Notification {
	out := make([]snapshot.Notification, 0, len(notes))
	for _, n := range notes {
		sn := snapshot.Notification{ID: n.ID, Pane: n.Pane, Workspace: n.Workspace, Title: n.Title, Body: n.Body,
			Severity: n.Severity, Source: n.Source, CreatedAt: n.CreatedAt}
		if !n.ReadAt.IsZero() {
			at := n.ReadAt
			sn.ReadAt = &at
		}
		out = append(out, sn)
	}
	return out
}

// importNotifications is the notifications of a snapshot as the service
// keeps them: titles and bodies cleaned, unknown severities info, an id
// for each, the newest MaxNotifications.
func importNotifications(ns []snapshot.Notification) []*Notification {
	var notes []*Notification
	for _, sn := range ns {
		n := &Notification{ID: sn.ID, Pane: sn.Pane, Workspace: sn.Workspace, Title: agents.CleanText(sn.Title, agents.MaxNotifyTitle),
			Body: agents.CleanText(sn.Body, agents.MaxNotifyBody), Severity: sn.Severity, Source: sn.Source, CreatedAt: sn.CreatedAt}
		if _, ok := agents.SeverityAttention(n.Severity); !ok {
			n.Severity = "info"
		}
		if sn.ReadAt != nil {
			n.ReadAt = *sn.ReadAt
		}
		if n.ID == "" {
			n.ID = newID("notif")
		}
		notes = append(notes, n)
	}
	if len(notes) > MaxNotifications {
		notes = notes[len(notes)-MaxNotifications:]
	}
	return notes
}

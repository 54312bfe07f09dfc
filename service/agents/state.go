package agents

import (
	"path/filepath"
	"slices"
	"sync"

	"github.com/signaltty/signaltty/service/events"
)

// State is a pane's agent (docs/agents.md, "The agent of a pane"): which
// agent runs in it, the session it holds and the command that resumes that
// session, its lifecycle, its attention and its last message. The caller's
// lock guards it. Its methods change it and return what the change means
// (Change) without publishing anything; pane is the id of the State's pane,
// named in the events. launch is argv[0] of the pane's command ("" for
// none), the path an official resume command may keep.
type State struct {
	Kind       string // "" or KindNone: no agent
	SessionID  string // "" = none
	ResumeArgv []string
	// ResumeReported: ResumeArgv was reported by the agent itself, not
	// built by its adapter; it runs only on an explicit resume.
	ResumeReported bool
	Model          string
	ConfigEnv      map[string]string // absolute configuration directories, by variable
	Lifecycle      string            // "" = unknown
	Attention      string            // "" = none
	LastMessage    string            // cleaned, at most MaxLastMessage characters
}

// Change is what a State method changed, for its caller to publish under
// its lock: Events in order; Touched when the pane's snapshot changed with
// no event; Save when the pane's saved form changed with no event.
type Change struct {
	Events  []events.EventData
	Touched bool
	Save    bool
}

// And is c followed by d.
func (c Change) And(d Change) Change {
	c.Events = append(c.Events, d.Events...)
	c.Touched, c.Save = c.Touched || d.Touched, c.Save || d.Save
	return c
}

func event(e events.EventData) Change { return Change{Events: []events.EventData{e}} }

// MaxLastMessage bounds a last message, in characters.
const MaxLastMessage = 400

// configEnvNames are the variables that may be kept as an agent's
// config_env: the configuration directories of the agents with adapters
// (known once every adapter's init has registered it).
var configEnvNames = sync.OnceValue(func() []string {
	var out []string
	for _, k := range Kinds() {
		if a, ok := Lookup(k); ok {
			out = append(out, a.ConfigEnv...)
		}
	}
	return out
})

// IsConfigEnv reports whether name is a variable an agent's config_env may
// keep.
func IsConfigEnv(name string) bool { return slices.Contains(configEnvNames(), name) }

// NewState is the agent of a pane being spawned with argv: its kind from
// hint (a checked kind) or, for "", argv[0]'s basename; config_env from the
// spawn's env, made absolute against cwd and cleaned.
func NewState(hint string, argv []string, cwd string, env map[string]string) State {
	kind := hint
	if kind == "" && len(argv) > 0 {
		kind = Detect(argv[0])
	}
	a := State{Kind: kind}
	for _, name := range configEnvNames() {
		v, ok := env[name]
		if !ok || v == "" {
			continue
		}
		if !filepath.IsAbs(v) {
			v = filepath.Join(cwd, v)
		}
		if a.ConfigEnv == nil {
			a.ConfigEnv = map[string]string{}
		}
		a.ConfigEnv[name] = filepath.Clean(v)
	}
	return a
}

// HasAgent reports whether the pane holds an agent.
func (a *State) HasAgent() bool { return a.Kind != "" && a.Kind != KindNone }

// Promotable reports whether a scan may give the pane another kind: it has
// none, or generic (docs/agents.md, "The agent of a pane").
func (a *State) Promotable() bool { return !a.HasAgent() || a.Kind == KindGeneric }

// LifecycleName is the lifecycle, LifecycleUnknown for "".
func (a *State) LifecycleName() string {
	if a.Lifecycle == "" {
		return LifecycleUnknown
	}
	return a.Lifecycle
}

// AttentionName is the attention, AttentionNone for "".
func (a *State) AttentionName() string {
	if a.Attention == "" {
		return AttentionNone
	}
	return a.Attention
}

// Resumable reports whether the pane has a session and a command to resume it.
func (a *State) Resumable() bool { return a.SessionID != "" && len(a.ResumeArgv) > 0 }

// OfficialArgv is the adapter of kind's command that resumes session id,
// nil when kind has none; launch is kept only when it names that agent.
func OfficialArgv(kind, id, launch string) []string {
	ad, ok := Lookup(kind)
	if !ok {
		return nil
	}
	if launch != "" && Detect(launch) != kind {
		launch = ""
	}
	return ad.Resume(launch, id)
}

// OfficialResume reports whether the resume argv is the one the adapter
// builds for the session (what auto-resume may run): from launch, from the
// bare program name, or from an absolute path to the program.
func (a *State) OfficialResume(launch string) bool {
	if a.ResumeReported || a.SessionID == "" || len(a.ResumeArgv) == 0 {
		return false
	}
	ad, ok := Lookup(a.Kind)
	if !ok {
		return false
	}
	want := ad.Resume(launch, a.SessionID)
	return want != nil && (slices.Equal(want, a.ResumeArgv) || slices.Equal(ad.Resume("", a.SessionID), a.ResumeArgv) ||
		(filepath.IsAbs(a.ResumeArgv[0]) && filepath.Base(a.ResumeArgv[0]) == ad.Program && slices.Equal(ad.Resume(a.ResumeArgv[0], a.SessionID), a.ResumeArgv)))
}

// AssignSession gives a pane being spawned the session id it was started
// with, and its adapter's resume command.
func (a *State) AssignSession(id, launch string) {
	a.SessionID, a.ResumeArgv = id, OfficialArgv(a.Kind, id, launch)
}

// SetSession records that the agent of kind holds session id. reported is
// a self-reported resume argv (nil: the adapter's). Rules (docs/agents.md,
// "Session identity"): the same agent and session keep what they have
// unless a new argv is reported; a new agent or session takes the
// adapter's command (or the reported one) and publishes agent.session.
func (a *State) SetSession(pane, kind, id string, reported []string, launch string) Change {
	if kind == "" || kind == KindNone {
		kind = a.Kind
		if kind == "" || kind == KindNone {
			kind = KindGeneric
		}
	}
	same := a.Kind == kind && a.SessionID == id
	if same && reported == nil {
		if len(a.ResumeArgv) == 0 { // learned before an adapter could build it
			a.ResumeArgv = OfficialArgv(kind, id, launch)
			return Change{Touched: true}
		}
		return Change{}
	}
	prevID := a.SessionID
	a.Kind, a.SessionID = kind, id
	if reported != nil {
		a.ResumeArgv, a.ResumeReported = slices.Clone(reported), true
	} else {
		a.ResumeArgv, a.ResumeReported = OfficialArgv(kind, id, launch), false
	}
	ev := events.AgentSession{Pane: pane, Kind: kind, Session: id, Reported: a.ResumeReported}
	if prevID != id {
		ev.Previous = prevID
	}
	return event(ev)
}

// Promote gives the pane the kind a scan found running in it, with the
// adapter's resume command for a session it already holds unless that
// command was self-reported. The caller publishes pane.updated.
func (a *State) Promote(kind, launch string) {
	a.Kind = kind
	if a.SessionID != "" && !a.ResumeReported {
		a.ResumeArgv = OfficialArgv(kind, a.SessionID, launch)
	}
}

// SetLifecycle moves the agent to lc ("" changes nothing) and publishes
// agent.<lc>; a set to the same value publishes nothing.
func (a *State) SetLifecycle(pane, lc string) Change {
	prev := a.LifecycleName()
	if lc == "" || lc == prev {
		return Change{}
	}
	a.Lifecycle = lc
	return event(events.AgentLifecycle{Pane: pane, Lifecycle: lc, Prev: prev})
}

// RaiseAttention raises the attention to at least at (never lowers it) and
// publishes attention.created (from none) or attention.updated.
func (a *State) RaiseAttention(pane, at string) Change {
	prev := a.AttentionName()
	if AttentionRank(at) <= AttentionRank(prev) {
		return Change{}
	}
	a.Attention = at
	if prev == AttentionNone {
		return event(events.AttentionCreated{Pane: pane, Attention: at, Prev: prev})
	}
	return event(events.AttentionUpdated{Pane: pane, Attention: at, Prev: prev})
}

// ClearAttention sets the attention back to none and publishes
// attention.cleared with reason (mark_seen, attach, hook, restart,
// answered).
func (a *State) ClearAttention(pane, reason string) Change {
	if a.AttentionName() == AttentionNone {
		return Change{}
	}
	a.Attention = ""
	return event(events.AttentionCleared{Pane: pane, Reason: reason})
}

// DropQuestion lowers a pending input_required or permission_required to
// to (none for ""): the question was answered, its turn ended, or nobody
// can answer it any more. It publishes attention.updated, or
// attention.cleared (reason "answered") when to is none; a to not below
// the question changes nothing (RaiseAttention takes it up).
func (a *State) DropQuestion(pane, to string) Change {
	prev := a.Attention
	if prev != AttentionInputRequired && prev != AttentionPermissionRequired {
		return Change{}
	}
	if to == "" || to == AttentionNone {
		return a.ClearAttention(pane, "answered")
	}
	if AttentionRank(to) >= AttentionRank(prev) {
		return Change{}
	}
	a.Attention = to
	return event(events.AttentionUpdated{Pane: pane, Attention: to, Prev: prev})
}

// Exited follows the exit of the pane's process: the lifecycle becomes
// exited, a question asked drops to unread (nobody can answer it any more)
// and the exit itself is unread. A pane that never held an agent or a
// lifecycle is left alone.
func (a *State) Exited(pane string) Change {
	if !a.HasAgent() && a.Lifecycle == "" {
		return Change{}
	}
	return a.SetLifecycle(pane, LifecycleExited).
		And(a.DropQuestion(pane, AttentionUnread)).
		And(a.RaiseAttention(pane, AttentionUnread))
}

// SetLastMessage sets the last message, m cleaned (CleanText) to
// MaxLastMessage characters: explicit text only (adapters' messages and
// notifications, never the screen).
func (a *State) SetLastMessage(m string) Change {
	m = CleanText(m, MaxLastMessage)
	if a.LastMessage == m {
		return Change{}
	}
	a.LastMessage = m
	return Change{Touched: true, Save: true}
}

// Highest finds the most urgent attention of several panes; its zero value
// has none.
type Highest struct {
	attention, pane string
}

// Add counts pane's attention (a State's AttentionName); of equally urgent
// ones the first added stays.
func (h *Highest) Add(pane, attention string) {
	if AttentionRank(attention) > AttentionRank(h.Attention()) {
		h.attention, h.pane = attention, pane
	}
}

// Attention is the most urgent attention added, AttentionNone for none.
func (h *Highest) Attention() string {
	if h.attention == "" {
		return AttentionNone
	}
	return h.attention
}

// Pane is the pane of Attention ("" for none).
func (h *Highest) Pane() string { return h.pane }

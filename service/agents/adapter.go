package agents

import (
	"path/filepath"
	"strings"
)

// Kinds of agent a pane can hold.
const (
	KindNone    = "none"    // no agent (a plain program)
	KindGeneric = "generic" // an agent signaltty has no adapter for: no official resume
)

// Lifecycle values (docs/agents.md, "Lifecycle").
const (
	LifecycleUnknown = "unknown"
	LifecycleWorking = "working"
	LifecycleBlocked = "blocked"
	LifecycleDone    = "done"
	LifecycleIdle    = "idle"
	LifecycleFailed  = "failed"
	LifecycleExited  = "exited"
)

// Lifecycles lists every lifecycle value.
var Lifecycles = []string{LifecycleUnknown, LifecycleWorking, LifecycleBlocked, LifecycleDone, LifecycleIdle, LifecycleFailed, LifecycleExited}

// Attention values, in rising order of urgency (docs/agents.md, "Attention").
const (
	AttentionNone               = "none"
	AttentionUnread             = "unread"
	AttentionWarning            = "warning"
	AttentionInputRequired      = "input_required"
	AttentionPermissionRequired = "permission_required"
	AttentionError              = "error"
)

var attentionRank = map[string]int{AttentionNone: 0, AttentionUnread: 1, AttentionWarning: 2,
	AttentionInputRequired: 3, AttentionPermissionRequired: 4, AttentionError: 5}

// AttentionRank is the urgency of an attention value (0 for none), -1 for
// an unknown value.
func AttentionRank(a string) int {
	r, ok := attentionRank[a]
	if !ok {
		return -1
	}
	return r
}

// Decision is what one hook event means for a pane. Empty fields change
// nothing; ClearAttention sets attention back to none.
type Decision struct {
	Lifecycle      string
	Attention      string // raised to at least this
	ClearAttention bool
	Message        string // becomes the pane's last_message
	// Notification drafted for the event ("" title: none); Severity is
	// info, warning or error. BodyKey names the payload field whose text
	// becomes the body.
	NotifyTitle    string
	NotifySeverity string
	NotifyBodyKey  string
	// Tool marks tool-use hooks, which never take a pane out of blocked.
	Tool bool
	// Answered marks an event that shows a pending permission or question
	// was answered (the tool ran): it takes a blocked pane back to Lifecycle
	// and drops input_required and permission_required to none.
	Answered bool
	// EndsTurn marks the end of a turn (finished, failed or interrupted): a
	// pending input_required or permission_required drops before Attention
	// is raised, so it never outlives the turn.
	EndsTurn bool
	// KeepFinished: on a pane already done or failed, the event changes
	// nothing but the session identity.
	KeepFinished bool
}

// Adapter is one agent's table entry.
type Adapter struct {
	Kind string
	// Program is the command the official resume argv starts with.
	Program string
	// Binaries are the basenames of argv[0] that mean this agent.
	Binaries []string
	// SessionKeys are the hook payload fields holding the session id, in
	// order of preference.
	SessionKeys []string
	// ResumeArgs are the arguments after Program that resume session id
	// (nil: the agent has no official resume).
	ResumeArgs func(id string) []string
	// AssignArgs are the arguments that start a new session with a
	// caller-chosen id (nil: the agent cannot).
	AssignArgs func(id string) []string
	// ConfigEnv names the variables that select the agent's configuration
	// directory; they are kept (made absolute) and given back on resume.
	ConfigEnv []string
	// Hooks maps a hook event name to its meaning.
	Hooks map[string]Decision
	// Refine, when set, may change the meaning of an event by its payload
	// (for example a notification that asks for a permission).
	Refine func(event string, payload map[string]any, d Decision) Decision
	// ModelPath is where a hook payload names the model: the keys from
	// the payload's top level down (nil: the top-level "model").
	ModelPath []string
	// SharedHelper, when set, recognises by its argv a helper process of
	// the agent that serves the agents of several panes (it runs their
	// hooks and MCP servers), so its descendants cannot be attributed to
	// one pane (docs/security.md, "Shared agent helpers").
	SharedHelper func(argv []string) bool
	// SharedHelperFix says how to run one helper per pane instead.
	SharedHelperFix string
}

var registry = map[string]*Adapter{}

// register adds an adapter; called from the per-agent files' init.
func register(a *Adapter) { registry[a.Kind] = a }

// Lookup returns the adapter of kind (none for KindNone or an unknown kind).
func Lookup(kind string) (*Adapter, bool) {
	a, ok := registry[kind]
	return a, ok
}

// SharedHelper reports which agent's shared helper argv is ("" and false
// for none): a process that serves several panes' agents
// (Adapter.SharedHelper).
func SharedHelper(argv []string) (kind string, ok bool) {
	for _, a := range registry {
		if a.SharedHelper != nil && a.SharedHelper(argv) {
			return a.Kind, true
		}
	}
	return "", false
}

// Known reports whether kind is a kind a pane may have.
func Known(kind string) bool {
	_, ok := registry[kind]
	return ok || kind == KindNone
}

// Normalize returns the kind an agent name means: a kind as it is, or the
// kind whose program has that name ("cursor-agent" is cursor); other names
// unchanged.
func Normalize(name string) string {
	if Known(name) {
		return name
	}
	for _, a := range registry {
		for _, b := range a.Binaries {
			if b == name {
				return a.Kind
			}
		}
	}
	return name
}

// Kinds lists every kind, KindNone last.
func Kinds() []string {
	return []string{"claude", "codex", "opencode", "cursor", "gemini", "pi", KindGeneric, KindNone}
}

// Detect returns the kind of agent argv[0] names by its basename, or
// KindNone.
func Detect(argv0 string) string {
	base := filepath.Base(argv0)
	for _, a := range registry {
		for _, b := range a.Binaries {
			if b == base {
				return a.Kind
			}
		}
	}
	return KindNone
}

// SessionID extracts the session id from a hook payload ("" if none).
func (a *Adapter) SessionID(payload map[string]any) string {
	for _, k := range a.SessionKeys {
		if s, ok := payload[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// Model extracts the model a hook payload names, at ModelPath ("" if
// none).
func (a *Adapter) Model(payload map[string]any) string {
	path := a.ModelPath
	if path == nil {
		path = []string{"model"}
	}
	var v any = payload
	for _, k := range path {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	s, _ := v.(string)
	return s
}

// Resume returns the official argv that resumes session id, nil when the
// agent has none. When the pane was launched by an absolute path whose
// basename is the adapter's program, that path is used; launch flags are
// never carried over.
func (a *Adapter) Resume(launchArgv0, id string) []string {
	if a.ResumeArgs == nil || id == "" {
		return nil
	}
	prog := a.Program
	if filepath.IsAbs(launchArgv0) && filepath.Base(launchArgv0) == prog {
		prog = launchArgv0
	}
	return append([]string{prog}, a.ResumeArgs(id)...)
}

// Classify returns what event (with its payload) means, and false for an
// event the adapter does not know.
func (a *Adapter) Classify(event string, payload map[string]any) (Decision, bool) {
	d, ok := a.Hooks[event]
	if ok && a.Refine != nil {
		d = a.Refine(event, payload, d)
	}
	return d, ok
}

// Limits of a self-reported resume argv.
const (
	MaxResumeArgs  = 64
	MaxResumeBytes = 8192
)

// CheckResumeArgv validates a self-reported resume argv: 1..64 arguments,
// at most 8 KiB in all, no control characters, and a plain command name
// first (letters, digits, "_", ".", "-", not starting with "-"). It returns
// the reason it is refused, "" when it is accepted.
func CheckResumeArgv(argv []string) string {
	if len(argv) == 0 {
		return "empty"
	}
	if len(argv) > MaxResumeArgs {
		return "too_many"
	}
	n := 0
	for _, s := range argv {
		n += len(s)
		for _, r := range s {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
				return "control_character"
			}
		}
	}
	if n > MaxResumeBytes {
		return "too_large"
	}
	p := argv[0]
	if p == "" || strings.HasPrefix(p, "-") {
		return "not_a_command_name"
	}
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-') {
			return "not_a_command_name"
		}
	}
	return ""
}

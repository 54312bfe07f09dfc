package events

// Every event type the service publishes, with its data (docs/events.md).
// A type is declared once in declared: whether it is structural (changes
// what a snapshot holds, so it schedules a save) is a property of the type.
// Data structs marshal to the event's JSON data; fields tagged "-" name the
// event's resource and are not repeated in the data.

// EventType is an event's dotted type.
type EventType string

// Event types.
const (
	TypeWorkspaceCreated     EventType = "workspace.created"
	TypeWorkspaceUpdated     EventType = "workspace.updated"
	TypeWorkspaceRemoved     EventType = "workspace.removed"
	TypeWorkspaceGitChanged  EventType = "workspace.git_changed"
	TypeTabCreated           EventType = "tab.created"
	TypeTabLayoutChanged     EventType = "tab.layout_changed"
	TypeTabRemoved           EventType = "tab.removed"
	TypePaneCreated          EventType = "pane.created"
	TypePaneRelaunched       EventType = "pane.relaunched"
	TypePaneResized          EventType = "pane.resized"
	TypePaneTitle            EventType = "pane.title"
	TypePaneCwd              EventType = "pane.cwd"
	TypePaneBell             EventType = "pane.bell"
	TypePaneUpdated          EventType = "pane.updated"
	TypePaneTerminating      EventType = "pane.terminating"
	TypePaneExited           EventType = "pane.exited"
	TypePaneRemoved          EventType = "pane.removed"
	TypeCommandStarted       EventType = "command.started"
	TypeCommandFinished      EventType = "command.finished"
	TypeProgramStatusChanged EventType = "program.status_changed"
	TypeRunStarted           EventType = "run.started"
	TypeRunTerminating       EventType = "run.terminating"
	TypeRunCompleted         EventType = "run.completed"
	TypeRunExpired           EventType = "run.expired"
	TypeAgentSession         EventType = "agent.session"
	TypeAttentionCreated     EventType = "attention.created"
	TypeAttentionUpdated     EventType = "attention.updated"
	TypeAttentionCleared     EventType = "attention.cleared"
	TypeNotificationCreated  EventType = "notification.created"
	TypeNotificationRead     EventType = "notification.read"
)

// agentLifecycleTypes are agent.<lifecycle>, one type per lifecycle value
// (agents.Lifecycles).
var agentLifecycleTypes = []EventType{"agent.unknown", "agent.working", "agent.blocked", "agent.done",
	"agent.idle", "agent.failed", "agent.exited"}

func init() {
	for _, t := range agentLifecycleTypes {
		declared[t] = Spec{true, true}
	}
}

// Spec is what the declaration of an event type says of it: whether it is
// structural (changes what a snapshot holds, so it schedules a save) and
// whether it is journaled (state events are; observations of a pane's
// output, which a program can produce at any rate, are not).
type Spec struct{ Structural, Journaled bool }

// Declared is the declaration of an event type; ok is false for a type
// never declared.
func Declared(t EventType) (spec Spec, ok bool) {
	spec, ok = declared[t]
	return spec, ok
}

// declared declares every event type.
var declared = map[EventType]Spec{
	TypeWorkspaceCreated:     {true, true},
	TypeWorkspaceUpdated:     {true, true},
	TypeWorkspaceRemoved:     {true, true},
	TypeWorkspaceGitChanged:  {true, true},
	TypeTabCreated:           {true, true},
	TypeTabLayoutChanged:     {true, true},
	TypeTabRemoved:           {true, true},
	TypePaneCreated:          {true, true},
	TypePaneRelaunched:       {true, true},
	TypePaneResized:          {true, true},
	TypePaneTitle:            {true, false},
	TypePaneCwd:              {true, false},
	TypePaneBell:             {false, false},
	TypePaneUpdated:          {false, false},
	TypePaneTerminating:      {false, true},
	TypePaneExited:           {true, true},
	TypePaneRemoved:          {true, true},
	TypeCommandStarted:       {false, false},
	TypeCommandFinished:      {false, false},
	TypeProgramStatusChanged: {false, false},
	TypeRunStarted:           {false, true},
	TypeRunTerminating:       {false, true},
	TypeRunCompleted:         {false, true},
	TypeRunExpired:           {false, true},
	TypeAgentSession:         {true, true},
	TypeAttentionCreated:     {true, true},
	TypeAttentionUpdated:     {true, true},
	TypeAttentionCleared:     {true, true},
	TypeNotificationCreated:  {true, true},
	TypeNotificationRead:     {true, true},
}

// EventData is the typed data of an event: its type and resource.
type EventData interface {
	EventType() EventType
	EventResource() string
}

// WorkspaceCreated: a workspace was made, or brought back by a snapshot restore.
type WorkspaceCreated struct {
	Workspace string `json:"-"`
	Name      string `json:"name"`
	Handle    string `json:"handle"`
	Restored  bool   `json:"restored,omitempty"`
}

// WorkspaceUpdated: a workspace was renamed, or its cwd changed (Cwd set).
type WorkspaceUpdated struct {
	Workspace string `json:"-"`
	Name      string `json:"name"`
	Cwd       string `json:"cwd,omitempty"`
}

// WorkspaceGitChanged: a workspace's git state changed (docs/workspaces.md).
// Present is false when it no longer has one.
type WorkspaceGitChanged struct {
	Workspace string `json:"-"`
	Present   bool   `json:"present"`
	Branch    string `json:"branch,omitempty"`
	Detached  bool   `json:"detached,omitempty"`
	Dirty     *bool  `json:"dirty,omitempty"`
	Worktree  bool   `json:"worktree,omitempty"`
	Missing   bool   `json:"missing,omitempty"`
}

// WorkspaceRemoved: a workspace and everything in it is gone.
type WorkspaceRemoved struct {
	Workspace string `json:"-"`
}

// TabCreated: a tab was added to a workspace.
type TabCreated struct {
	Tab       string `json:"-"`
	Workspace string `json:"workspace"`
	Title     string `json:"title"`
}

// TabLayoutChanged: a tab's split tree changed.
type TabLayoutChanged struct {
	Tab       string `json:"-"`
	Workspace string `json:"workspace"`
}

// TabRemoved: a tab and its panes are gone.
type TabRemoved struct {
	Tab       string `json:"-"`
	Workspace string `json:"workspace"`
}

// PaneCreated: a pane's first process was started and the pane placed.
type PaneCreated struct {
	Pane      string `json:"-"`
	Workspace string `json:"workspace"`
	Tab       string `json:"tab"`
	Argv0     string `json:"argv0"`
	Cols      int    `json:"cols"`
	Rows      int    `json:"rows"`
}

// PaneRelaunched: a pane without a process got a new one, in the same slot.
type PaneRelaunched struct {
	Pane      string `json:"-"`
	Workspace string `json:"workspace"`
	Tab       string `json:"tab"`
	Argv0     string `json:"argv0"`
}

// PaneResized: a pane's size changed, in cells.
type PaneResized struct {
	Pane string `json:"-"`
	Cols int    `json:"cols"`
	Rows int    `json:"rows"`
}

// PaneTitle: the pane's program set its title (OSC 0/2; an observation).
type PaneTitle struct {
	Pane  string `json:"-"`
	Title string `json:"title"`
}

// PaneCwd: the pane's program reported its directory (OSC 7; an observation).
type PaneCwd struct {
	Pane string `json:"-"`
	Cwd  string `json:"cwd"`
}

// PaneBell: the pane's program rang the bell.
type PaneBell struct {
	Pane string `json:"-"`
}

// PaneUpdated: the pane switched between the primary and alternate screen.
type PaneUpdated struct {
	Pane   string `json:"-"`
	Screen string `json:"screen"`
}

// PaneTerminating: the stop sequence began; Signal is the first signal sent.
type PaneTerminating struct {
	Pane   string `json:"-"`
	Signal string `json:"signal"`
}

// ExitData is a wait status as events carry it.
type ExitData struct {
	CoreDumped bool   `json:"core_dumped"`
	Code       *int   `json:"code,omitempty"`
	Signal     string `json:"signal,omitempty"`
}

// PaneExited: the pane's leader was reaped.
type PaneExited struct {
	Pane   string   `json:"-"`
	Status ExitData `json:"status"`
}

// PaneRemoved: the pane is gone from its tab.
type PaneRemoved struct {
	Pane      string `json:"-"`
	Workspace string `json:"workspace"`
	Tab       string `json:"tab"`
}

// CommandStarted: OSC 133;C (an observation).
type CommandStarted struct {
	Pane string `json:"-"`
}

// CommandFinished: OSC 133;D with its code when given, or the pane's exit
// closing an open command (Reason "pane_exit").
type CommandFinished struct {
	Pane   string `json:"-"`
	Code   *int   `json:"code,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// ProgramStatusChanged: OSC 7501 (at most 1024 bytes kept), or the pane's
// exit clearing a reported status (Reason "pane_exit").
type ProgramStatusChanged struct {
	Pane   string `json:"-"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// RunStarted: a run's command was started as its pane's leader.
type RunStarted struct {
	Run  string `json:"run"`
	Pane string `json:"pane"`
}

// RunTerminating: the run's pane is being stopped, for Cause.
type RunTerminating struct {
	Run   string `json:"run"`
	Cause string `json:"cause"`
}

// RunResult is what is known of a run's result, as run.completed and the
// Events snapshot carry it.
type RunResult struct {
	Outcome  string `json:"outcome,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Signal   string `json:"signal,omitempty"`
	Cause    string `json:"cause,omitempty"`
}

// RunCompleted: the run's result is final.
type RunCompleted struct {
	Run  string `json:"run"`
	Pane string `json:"pane"`
	RunResult
}

// RunExpired: a completed run's record was evicted.
type RunExpired struct {
	Run string `json:"run"`
}

func (WorkspaceCreated) EventType() EventType     { return TypeWorkspaceCreated }
func (WorkspaceUpdated) EventType() EventType     { return TypeWorkspaceUpdated }
func (WorkspaceRemoved) EventType() EventType     { return TypeWorkspaceRemoved }
func (WorkspaceGitChanged) EventType() EventType  { return TypeWorkspaceGitChanged }
func (TabCreated) EventType() EventType           { return TypeTabCreated }
func (TabLayoutChanged) EventType() EventType     { return TypeTabLayoutChanged }
func (TabRemoved) EventType() EventType           { return TypeTabRemoved }
func (PaneCreated) EventType() EventType          { return TypePaneCreated }
func (PaneRelaunched) EventType() EventType       { return TypePaneRelaunched }
func (PaneResized) EventType() EventType          { return TypePaneResized }
func (PaneTitle) EventType() EventType            { return TypePaneTitle }
func (PaneCwd) EventType() EventType              { return TypePaneCwd }
func (PaneBell) EventType() EventType             { return TypePaneBell }
func (PaneUpdated) EventType() EventType          { return TypePaneUpdated }
func (PaneTerminating) EventType() EventType      { return TypePaneTerminating }
func (PaneExited) EventType() EventType           { return TypePaneExited }
func (PaneRemoved) EventType() EventType          { return TypePaneRemoved }
func (CommandStarted) EventType() EventType       { return TypeCommandStarted }
func (CommandFinished) EventType() EventType      { return TypeCommandFinished }
func (ProgramStatusChanged) EventType() EventType { return TypeProgramStatusChanged }
func (RunStarted) EventType() EventType           { return TypeRunStarted }
func (RunTerminating) EventType() EventType       { return TypeRunTerminating }
func (RunCompleted) EventType() EventType         { return TypeRunCompleted }
func (RunExpired) EventType() EventType           { return TypeRunExpired }

func (e WorkspaceCreated) EventResource() string     { return e.Workspace }
func (e WorkspaceUpdated) EventResource() string     { return e.Workspace }
func (e WorkspaceRemoved) EventResource() string     { return e.Workspace }
func (e WorkspaceGitChanged) EventResource() string  { return e.Workspace }
func (e TabCreated) EventResource() string           { return e.Tab }
func (e TabLayoutChanged) EventResource() string     { return e.Tab }
func (e TabRemoved) EventResource() string           { return e.Tab }
func (e PaneCreated) EventResource() string          { return e.Pane }
func (e PaneRelaunched) EventResource() string       { return e.Pane }
func (e PaneResized) EventResource() string          { return e.Pane }
func (e PaneTitle) EventResource() string            { return e.Pane }
func (e PaneCwd) EventResource() string              { return e.Pane }
func (e PaneBell) EventResource() string             { return e.Pane }
func (e PaneUpdated) EventResource() string          { return e.Pane }
func (e PaneTerminating) EventResource() string      { return e.Pane }
func (e PaneExited) EventResource() string           { return e.Pane }
func (e PaneRemoved) EventResource() string          { return e.Pane }
func (e CommandStarted) EventResource() string       { return e.Pane }
func (e CommandFinished) EventResource() string      { return e.Pane }
func (e ProgramStatusChanged) EventResource() string { return e.Pane }
func (e RunStarted) EventResource() string           { return e.Run }
func (e RunTerminating) EventResource() string       { return e.Run }
func (e RunCompleted) EventResource() string         { return e.Run }
func (e RunExpired) EventResource() string           { return e.Run }

// AgentSession: a pane's agent reported (or changed) its session.
// Previous is the session it replaced ("" on first discovery); Reported is
// true when the resume command came from the agent, not its adapter.
type AgentSession struct {
	Pane     string `json:"-"`
	Kind     string `json:"kind"`
	Session  string `json:"session_id"`
	Previous string `json:"previous,omitempty"`
	Reported bool   `json:"reported,omitempty"`
}

// AgentLifecycle: a pane's agent moved to Lifecycle (type agent.<lifecycle>).
type AgentLifecycle struct {
	Pane      string `json:"-"`
	Lifecycle string `json:"lifecycle"`
	Prev      string `json:"prev"`
}

// AttentionCreated: a pane's attention rose from none.
type AttentionCreated struct {
	Pane      string `json:"-"`
	Attention string `json:"attention"`
	Prev      string `json:"prev"`
}

// AttentionUpdated: a pane's attention changed (raised, or lowered to
// unread when its process exited with a question open).
type AttentionUpdated struct {
	Pane      string `json:"-"`
	Attention string `json:"attention"`
	Prev      string `json:"prev"`
}

// AttentionCleared: a pane's attention went back to none; Reason is
// mark_seen, attach or hook.
type AttentionCleared struct {
	Pane   string `json:"-"`
	Reason string `json:"reason"`
}

// NotificationCreated: a notification was recorded (its text is not in
// the event: list notifications to read it).
type NotificationCreated struct {
	Notification string `json:"-"`
	Pane         string `json:"pane,omitempty"`
	Severity     string `json:"severity"`
	Source       string `json:"source"`
}

// NotificationRead: a notification was marked read.
type NotificationRead struct {
	Notification string `json:"-"`
}

func (AgentSession) EventType() EventType           { return TypeAgentSession }
func (e AgentLifecycle) EventType() EventType       { return EventType("agent." + e.Lifecycle) }
func (AttentionCreated) EventType() EventType       { return TypeAttentionCreated }
func (AttentionUpdated) EventType() EventType       { return TypeAttentionUpdated }
func (AttentionCleared) EventType() EventType       { return TypeAttentionCleared }
func (NotificationCreated) EventType() EventType    { return TypeNotificationCreated }
func (NotificationRead) EventType() EventType       { return TypeNotificationRead }
func (e AgentSession) EventResource() string        { return e.Pane }
func (e AgentLifecycle) EventResource() string      { return e.Pane }
func (e AttentionCreated) EventResource() string    { return e.Pane }
func (e AttentionUpdated) EventResource() string    { return e.Pane }
func (e AttentionCleared) EventResource() string    { return e.Pane }
func (e NotificationCreated) EventResource() string { return e.Notification }
func (e NotificationRead) EventResource() string    { return e.Notification }

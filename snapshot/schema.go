package snapshot

import "time"

// Version is the snapshot_version this build writes. Older versions are
// migrated on load; newer ones are refused.
const Version = 2

// Protocol names the interface generation that wrote a snapshot.
const Protocol = "dev.signaltty/1"

// Snapshot is the whole persisted state.
type Snapshot struct {
	SnapshotVersion int            `json:"snapshot_version"`
	Server          Server         `json:"server"`
	Workspaces      []Workspace    `json:"workspaces"`
	Tabs            []Tab          `json:"tabs"`
	Panes           []Pane         `json:"panes"`
	Notifications   []Notification `json:"notifications"`
}

// Server identifies the daemon that saved.
type Server struct {
	Version  string    `json:"version"`
	SavedAt  time.Time `json:"saved_at"`
	Protocol string    `json:"protocol"`
	// Reason is why the save happened: "debounce", "periodic", "request",
	// "shutdown", "logind", "restore".
	Reason string `json:"reason,omitempty"`
}

// Workspace is a persisted workspace.
type Workspace struct {
	ID         string    `json:"id"`
	Name       string    `json:"name"`
	Handle     string    `json:"handle"`
	Cwd        string    `json:"cwd"`
	Tabs       []string  `json:"tabs"`
	ActiveTab  string    `json:"active_tab,omitempty"`
	AutoResume bool      `json:"auto_resume"`
	Git        *Git      `json:"git,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
}

// Git is a workspace's cached git state (SCHEMA.md, "Git").
type Git struct {
	Root     string `json:"root,omitempty"`
	Branch   string `json:"branch,omitempty"`
	Detached bool   `json:"detached,omitempty"`
	Commit   string `json:"commit,omitempty"`
	Dirty    *bool  `json:"dirty,omitempty"`
	Worktree bool   `json:"worktree,omitempty"`
	Repo     string `json:"repo,omitempty"`
	Missing  bool   `json:"missing,omitempty"`
}

// Tab is a persisted tab.
type Tab struct {
	ID         string    `json:"id"`
	Workspace  string    `json:"workspace"`
	Title      string    `json:"title"`
	Layout     *Layout   `json:"layout"` // null for a tab without panes
	ActivePane string    `json:"active_pane,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
	// Run is the id of the run whose start made the tab; "" (absent) for
	// the user's tabs.
	Run string `json:"run,omitempty"`
}

// Layout is a node of a tab's split tree: Kind "pane" (Pane set) or "split"
// (Axis "cols"|"rows", Ratio of First, First and Second set).
type Layout struct {
	Kind   string  `json:"kind"`
	Pane   string  `json:"pane,omitempty"`
	Axis   string  `json:"axis,omitempty"`
	Ratio  float64 `json:"ratio,omitempty"`
	First  *Layout `json:"first,omitempty"`
	Second *Layout `json:"second,omitempty"`
}

// Restore states of a pane (docs/persistence.md, "Restore states").
const (
	RestoreLive      = "LIVE"      // running, PTY attached (only while the daemon runs)
	RestoreRestored  = "RESTORED"  // rebuilt after a restart, no process
	RestoreResumable = "RESUMABLE" // RESTORED, and its agent has an official resume argv and session id
	RestoreExited    = "EXITED"    // its process had ended before the save
)

// Pane is a persisted pane. Never: PTY descriptors, pids, secrets.
type Pane struct {
	ID        string `json:"id"`
	Workspace string `json:"workspace"`
	Tab       string `json:"tab"`
	Title     string `json:"title"`
	Cwd       string `json:"cwd"`
	// Argv is the launch command, kept to offer an explicit relaunch; never run by itself.
	Argv []string `json:"argv"`
	// Env holds only allowlisted variables (see EnvAllowed) the spawn added.
	Env  map[string]string `json:"env,omitempty"`
	Cols int               `json:"cols"`
	Rows int               `json:"rows"`
	// State is "live" (running when saved) or "exited".
	State string `json:"state"`
	// Status is the wait status when State is "exited" and it is known.
	Status *WaitStatus `json:"status,omitempty"`
	// RestoreState is what the pane was when saved (LIVE for a running pane).
	RestoreState string     `json:"restore_state"`
	Lifecycle    string     `json:"lifecycle,omitempty"`
	Attention    string     `json:"attention,omitempty"`
	LastMessage  string     `json:"last_message,omitempty"`
	Agent        *Agent     `json:"agent,omitempty"`
	CreatedAt    time.Time  `json:"created_at"`
	ExitedAt     *time.Time `json:"exited_at,omitempty"`
	// Epoch is the numbering epoch of the pane's rows when saved; after a
	// restart the restored rows are numbered from 0 in a later epoch.
	Epoch int64 `json:"epoch,omitempty"`
	// ShutdownSave is true when the pane was live and its state was frozen
	// for a host shutdown save: the hang-up that followed is not its exit.
	ShutdownSave bool `json:"shutdown_save,omitempty"`
	// EnvUnset names the inherited variables the spawn removed (names
	// only, sorted), so that a relaunch removes them again.
	EnvUnset []string `json:"env_unset,omitempty"`
	// HistoryRows is how many rows of history the pane's terminal keeps
	// once they scrolled off the screen (1..1000000); 0 (absent, in files
	// written before it existed) reads as the daemon's setting at start.
	HistoryRows int `json:"history_rows,omitempty"`
	// EnvLost names the variables the pane was started with whose values
	// were not saved (names only, sorted): what a resume or relaunch after
	// the restart will not have unless it is given them again.
	EnvLost []string `json:"env_lost,omitempty"`
}

// WaitStatus is how a pane's leader ended.
type WaitStatus struct {
	Code       *int   `json:"code,omitempty"`
	Signal     string `json:"signal,omitempty"`
	CoreDumped bool   `json:"core_dumped,omitempty"`
}

// Agent is a pane's agent metadata, filled by the agents feature.
type Agent struct {
	Kind       string            `json:"kind,omitempty"`
	SessionID  string            `json:"session_id,omitempty"`
	ResumeArgv []string          `json:"resume_argv,omitempty"`
	Model      string            `json:"model,omitempty"`
	ConfigEnv  map[string]string `json:"config_env,omitempty"`
	// ResumeSource is where ResumeArgv came from: ResumeOfficial (the
	// agent's adapter built it) or ResumeReported (the agent reported it;
	// never run by auto-resume). Absent in older files: see docs/agents.md.
	ResumeSource string `json:"resume_source,omitempty"`
}

// Sources of an agent's resume argv.
const (
	ResumeOfficial = "official"
	ResumeReported = "reported"
)

// Notification is a persisted notification (the last 200 are kept).
type Notification struct {
	ID        string     `json:"id"`
	Pane      string     `json:"pane,omitempty"`
	Workspace string     `json:"workspace,omitempty"`
	Title     string     `json:"title"`
	Body      string     `json:"body,omitempty"`
	Severity  string     `json:"severity"`
	Source    string     `json:"source"`
	CreatedAt time.Time  `json:"created_at"`
	ReadAt    *time.Time `json:"read_at,omitempty"`
}

// MaxNotifications is how many notifications a snapshot keeps.
const MaxNotifications = 200

// Empty reports whether s holds no workspace (an empty state).
func (s *Snapshot) Empty() bool { return s == nil || len(s.Workspaces) == 0 }

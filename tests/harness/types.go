package harness

import "encoding/json"

// The wire types of the varlink interfaces (varlink/dev*/dev.signaltty.*.varlink),
// written out independently of the product's generated code so the tests
// check the contract rather than the implementation's own view of it.

type Workspace struct {
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Handle    string   `json:"handle"`
	Cwd       string   `json:"cwd"`
	Tabs      []string `json:"tabs"`
	ActiveTab *string  `json:"active_tab"`
	CreatedAt string   `json:"created_at"`
}

type Layout struct {
	Kind   string   `json:"kind"`
	Pane   *string  `json:"pane"`
	Axis   *string  `json:"axis"`
	Ratio  *float64 `json:"ratio"`
	First  *Layout  `json:"first"`
	Second *Layout  `json:"second"`
}

// Leaves lists the pane ids of a layout, first to last.
func (l *Layout) Leaves() []string {
	switch {
	case l == nil:
		return nil
	case l.Kind == "pane" && l.Pane != nil:
		return []string{*l.Pane}
	}
	return append(l.First.Leaves(), l.Second.Leaves()...)
}

type Tab struct {
	ID         string  `json:"id"`
	Workspace  string  `json:"workspace"`
	Title      string  `json:"title"`
	Layout     *Layout `json:"layout"`
	ActivePane *string `json:"active_pane"`
	CreatedAt  string  `json:"created_at"`
	Run        *string `json:"run"` // the run whose start made the tab
}

type WaitStatus struct {
	Code       *int    `json:"code"`
	Signal     *string `json:"signal"`
	CoreDumped bool    `json:"core_dumped"`
}

type Pane struct {
	ID          string      `json:"id"`
	Workspace   string      `json:"workspace"`
	Tab         string      `json:"tab"`
	Title       string      `json:"title"`
	Argv0       string      `json:"argv0"`
	Argv        []string    `json:"argv"`
	Cwd         string      `json:"cwd"`
	ReportedCwd *string     `json:"reported_cwd"`
	Env         []string    `json:"env"`
	Cols        int         `json:"cols"`
	Rows        int         `json:"rows"`
	State       string      `json:"state"`
	Terminating bool        `json:"terminating"`
	Pid         *int        `json:"pid"`
	Status      *WaitStatus `json:"status"`
	Screen      string      `json:"screen"`
	CreatedAt   string      `json:"created_at"`
	ExitedAt    *string     `json:"exited_at"`
}

// PID returns the leader pid, 0 when absent.
func (p Pane) PID() int {
	if p.Pid == nil {
		return 0
	}
	return *p.Pid
}

// Signal returns status.signal, "" when absent.
func (p Pane) Signal() string {
	if p.Status == nil || p.Status.Signal == nil {
		return ""
	}
	return *p.Status.Signal
}

type Capture struct {
	Epoch  int64    `json:"epoch"`
	Oldest int64    `json:"oldest"`
	End    int64    `json:"end"`
	First  int64    `json:"first"`
	Cols   int      `json:"cols"`
	Rows   int      `json:"rows"`
	Screen string   `json:"screen"`
	Lines  []string `json:"lines"`
	// Next is first + len(lines); Clamped and Cut say how the range was
	// served (docs/rows.md, "Capture ranges").
	Next    int64 `json:"next"`
	Clamped bool  `json:"clamped"`
	Cut     bool  `json:"cut"`
}

type Status struct {
	Version         string     `json:"version"`
	Source          string     `json:"source"`
	Address         string     `json:"address"`
	Pid             int        `json:"pid"`
	SocketActivated bool       `json:"socket_activated"`
	StartedAt       string     `json:"started_at"`
	UptimeMs        int64      `json:"uptime_ms"`
	Workspaces      int        `json:"workspaces"`
	Tabs            int        `json:"tabs"`
	Panes           int        `json:"panes"`
	LivePanes       int        `json:"live_panes"`
	Seq             int64      `json:"seq"`
	Runs            StatusRuns `json:"runs"`
}

// Event is one dev.signaltty.Events event; Raw is its JSON as received.
type Event struct {
	Source   string          `json:"source"`
	Seq      int64           `json:"seq"`
	Type     string          `json:"type"`
	Resource string          `json:"resource"`
	Ts       string          `json:"ts"`
	Data     map[string]any  `json:"data"`
	Raw      json.RawMessage `json:"-"`
}

// SubscribeReply is one reply of Events.Subscribe.
type SubscribeReply struct {
	Ready  bool            `json:"ready"`
	Source string          `json:"source"`
	Seq    int64           `json:"seq"`
	Event  json.RawMessage `json:"event"`
}

// ErrorReply is the {code, message, data} of every signaltty error.
type ErrorReply struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data"`
}

// StatusRuns is status.runs of Server.GetStatus.
type StatusRuns struct {
	Active   int `json:"active"`
	Retained int `json:"retained"`
	Started  int `json:"started"`
	Escaped  int `json:"escaped"`
}

// RunConfig is config.run of Server.GetConfig and Server.SetConfig.
type RunConfig struct {
	MaxActive   int `json:"max_active"`
	RetainCount int `json:"retain_count"`
	RetainMs    int `json:"retain_ms"`
	RetainBytes int `json:"retain_bytes"`
}

// Config is the reply of Server.GetConfig and Server.SetConfig.
type Config struct {
	Run            RunConfig `json:"run"`
	SaveIntervalMs int       `json:"save_interval_ms"`
}

// The run types below keep, in Raw, the JSON they were decoded from, and
// marshal back to it: comparing two of them as JSON (SameJSON,
// SameRecords) compares every field the daemon sent, including any the
// struct does not name.

// RunStart is the reply of Run.Start.
type RunStart struct {
	Run       string          `json:"run"`
	Source    string          `json:"source"`
	Key       string          `json:"key"`
	Pane      string          `json:"pane"`
	Tab       string          `json:"tab"`
	Workspace string          `json:"workspace"`
	Principal string          `json:"principal"`
	Pid       int             `json:"pid"`
	Reused    bool            `json:"reused"`
	Raw       json.RawMessage `json:"-"`
}

// RunOutput is a record's output: the last rows of the run's pane when it
// completed, numbered as by Mux.CaptureRows.
type RunOutput struct {
	Screen   string   `json:"screen"`
	Epoch    int      `json:"epoch"`
	Offset   int      `json:"offset"`
	Cols     int      `json:"cols"`
	Rows     int      `json:"rows"`
	Oldest   int      `json:"oldest"`
	Start    int      `json:"start"`
	End      int      `json:"end"`
	Complete bool     `json:"complete"`
	Lines    []string `json:"lines"`
}

// RunRecord is a run's record (Run.Wait, Run.Get, Run.Cancel, Run.List).
// Optional fields are nil when absent.
type RunRecord struct {
	Run         string          `json:"run"`
	Source      string          `json:"source"`
	Key         string          `json:"key"`
	Pane        string          `json:"pane"`
	Tab         string          `json:"tab"`
	Workspace   string          `json:"workspace"`
	Principal   string          `json:"principal"`
	Pid         int             `json:"pid"`
	Shell       bool            `json:"shell"`
	State       string          `json:"state"`
	Outcome     *string         `json:"outcome,omitempty"`
	ExitCode    *int            `json:"exit_code,omitempty"`
	Signal      *string         `json:"signal,omitempty"`
	Cause       *string         `json:"cause,omitempty"`
	Status      *int            `json:"status,omitempty"`
	StartedAt   string          `json:"started_at"`
	CompletedAt *string         `json:"completed_at,omitempty"`
	DurationMs  *int            `json:"duration_ms,omitempty"`
	Output      *RunOutput      `json:"output,omitempty"`
	Raw         json.RawMessage `json:"-"`
}

// RunList is the reply of Run.List; Next is nil when no more runs follow.
type RunList struct {
	Source string      `json:"source"`
	Runs   []RunRecord `json:"runs"`
	Next   *string     `json:"next"`
}

// Events.Subscribe's snapshot: the state a stream continues from.
type EventsSnapshot struct {
	Workspaces []SnapshotWorkspace `json:"workspaces"`
	Tabs       []SnapshotTab       `json:"tabs"`
	Panes      []SnapshotPane      `json:"panes"`
	Runs       []SnapshotRun       `json:"runs"`
	Raw        json.RawMessage     `json:"-"`
}

type SnapshotWorkspace struct {
	Workspace string `json:"workspace"`
}

type SnapshotTab struct {
	Tab       string `json:"tab"`
	Workspace string `json:"workspace"`
}

type SnapshotPane struct {
	Pane         string `json:"pane"`
	Tab          string `json:"tab"`
	State        string `json:"state"`
	RestoreState string `json:"restore_state"`
}

// SnapshotRun is a run in the snapshot; the result fields once known.
type SnapshotRun struct {
	Run      string          `json:"run"`
	Pane     string          `json:"pane"`
	State    string          `json:"state"`
	Outcome  *string         `json:"outcome,omitempty"`
	ExitCode *int            `json:"exit_code,omitempty"`
	Signal   *string         `json:"signal,omitempty"`
	Cause    *string         `json:"cause,omitempty"`
	Raw      json.RawMessage `json:"-"`
}

func (s *RunStart) UnmarshalJSON(b []byte) error {
	type plain RunStart
	s.Raw = append(json.RawMessage(nil), b...)
	return json.Unmarshal(b, (*plain)(s))
}

func (s RunStart) MarshalJSON() ([]byte, error) {
	if s.Raw != nil {
		return s.Raw, nil
	}
	type plain RunStart
	return json.Marshal(plain(s))
}

func (r *RunRecord) UnmarshalJSON(b []byte) error {
	type plain RunRecord
	r.Raw = append(json.RawMessage(nil), b...)
	return json.Unmarshal(b, (*plain)(r))
}

func (r RunRecord) MarshalJSON() ([]byte, error) {
	if r.Raw != nil {
		return r.Raw, nil
	}
	type plain RunRecord
	return json.Marshal(plain(r))
}

func (s *EventsSnapshot) UnmarshalJSON(b []byte) error {
	type plain EventsSnapshot
	s.Raw = append(json.RawMessage(nil), b...)
	return json.Unmarshal(b, (*plain)(s))
}

func (s EventsSnapshot) MarshalJSON() ([]byte, error) {
	if s.Raw != nil {
		return s.Raw, nil
	}
	type plain EventsSnapshot
	return json.Marshal(plain(s))
}

func (r *SnapshotRun) UnmarshalJSON(b []byte) error {
	type plain SnapshotRun
	r.Raw = append(json.RawMessage(nil), b...)
	return json.Unmarshal(b, (*plain)(r))
}

func (r SnapshotRun) MarshalJSON() ([]byte, error) {
	if r.Raw != nil {
		return r.Raw, nil
	}
	type plain SnapshotRun
	return json.Marshal(plain(r))
}

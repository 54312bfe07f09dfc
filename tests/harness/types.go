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
}

type WaitStatus struct {
	Code       *int    `json:"code"`
	Signal     *string `json:"signal"`
	CoreDumped bool    `json:"core_dumped"`
}

type Pane struct {
	ID          string            `json:"id"`
	Workspace   string            `json:"workspace"`
	Tab         string            `json:"tab"`
	Title       string            `json:"title"`
	Argv0       string            `json:"argv0"`
	Argv        []string          `json:"argv"`
	Cwd         string            `json:"cwd"`
	ReportedCwd *string           `json:"reported_cwd"`
	Env         map[string]string `json:"env"`
	Cols        int               `json:"cols"`
	Rows        int               `json:"rows"`
	State       string            `json:"state"`
	Terminating bool              `json:"terminating"`
	Pid         *int              `json:"pid"`
	Status      *WaitStatus       `json:"status"`
	Screen      string            `json:"screen"`
	CreatedAt   string            `json:"created_at"`
	ExitedAt    *string           `json:"exited_at"`
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
}

type Status struct {
	Version         string `json:"version"`
	Source          string `json:"source"`
	Address         string `json:"address"`
	Pid             int    `json:"pid"`
	SocketActivated bool   `json:"socket_activated"`
	StartedAt       string `json:"started_at"`
	UptimeMs        int64  `json:"uptime_ms"`
	Workspaces      int    `json:"workspaces"`
	Tabs            int    `json:"tabs"`
	Panes           int    `json:"panes"`
	LivePanes       int    `json:"live_panes"`
	Seq             int64  `json:"seq"`
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

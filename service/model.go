package service

import (
	"crypto/rand"
	"encoding/hex"
	"path/filepath"
	"strings"
	"time"

	"github.com/signaltty/signaltty/cgroup"

	"github.com/signaltty/signaltty/term"
	"golang.org/x/time/rate"
)

// Pane states.
const (
	StateLive   = "live"
	StateExited = "exited"
)

// Workspace is a snapshot of a workspace.
type Workspace struct {
	ID        string
	Name      string
	Handle    string
	Cwd       string
	Tabs      []string
	ActiveTab string // "" when none
	CreatedAt time.Time
	Git       *GitState // nil: not in a git working tree (docs/workspaces.md)
	// AutoResume: at daemon start, this workspace's RESUMABLE panes with an
	// official resume command are resumed (docs/agents.md, "Auto-resume").
	AutoResume bool
}

// Layout is a snapshot of a tab's split tree: a leaf (Pane != "") or a split
// of the area along Axis ("cols": side by side, "rows": stacked), Ratio being
// First's share.
type Layout struct {
	Pane          string
	Axis          string
	Ratio         float64
	First, Second *Layout
}

// Tab is a snapshot of a tab.
type Tab struct {
	ID         string
	Workspace  string
	Title      string
	Layout     *Layout // nil for a tab without panes
	ActivePane string
	CreatedAt  time.Time
	// Run is the run whose start made the tab, "" for the user's tabs
	// (docs/workspaces.md, "Run tabs").
	Run string
}

// WaitStatus is how a pane's leader ended.
type WaitStatus struct {
	Code       *int
	Signal     string
	CoreDumped bool
}

// Pane is a snapshot of a pane.
type Pane struct {
	ID          string
	Workspace   string
	Tab         string
	Title       string
	Argv0       string
	Argv        []string
	Cwd         string
	ReportedCwd string
	// Env names the variables of the pane's own environment (sorted):
	// names only, their values never leave the daemon.
	Env         []string
	Cols, Rows  int
	State       string // StateLive or StateExited (a pane that is starting shows the state it started from)
	Terminating bool
	Pid         int // 0 once exited
	Status      *WaitStatus
	Screen      string // term.ScreenPrimary or term.ScreenAlternate
	CreatedAt   time.Time
	ExitedAt    time.Time // zero while live or unknown
	// RestoreState is LIVE, RESTORED, RESUMABLE or EXITED (the persistence
	// spec's restore states).
	RestoreState string
	// RestoredRows: rows [0, RestoredRows) are history from before a restart.
	RestoredRows int64
	// WaitBaseline is where a Mux.Wait on the pane can start from (set by
	// GetPane only; docs/agents.md, "Waiting").
	WaitBaseline *WaitBaseline
	// Agent is the pane's agent (nil for none); Lifecycle, Attention and
	// LastMessage follow it (docs/agents.md).
	Agent                             *Agent
	Lifecycle, Attention, LastMessage string
	// HistoryRows: rows of history kept once scrolled off the screen.
	HistoryRows int
	// Cgroup is the pane's own cgroup (cgroups.go); nil without one. Filled
	// by GetPane and ListPanes only.
	Cgroup *PaneCgroup
}

type workspace struct {
	id, name, handle, cwd string
	tabs                  []string
	activeTab             string
	createdAt             time.Time
	removing              bool // a removal is terminating its panes

	git                   *GitState // the last git state stored (git.go)
	cwdGen                uint64    // bumped when cwd changes
	gitTicket, gitApplied uint64    // refreshes begun, and the latest one stored
	autoResume            bool      // see Workspace.AutoResume
}

type tab struct {
	id, workspace, title string
	layout               *node
	activePane           string
	createdAt            time.Time
	removing             bool
	run                  string // see Tab.Run
}

// node is a mutable layout node.
type node struct {
	pane          string
	axis          string
	ratio         float64
	first, second *node
}

// pane is a pane of the model; s.mu guards every field (none may be read
// without it), except that a removed pane's proc and term are stable and are
// released by whoever removed it, outside s.mu.
type pane struct {
	id, workspace, tab string
	state              paneState // changed only by Service.transitionLocked (lifecycle.go)
	start              *start    // while starting: the reservation (start.go)
	observers          []paneObserver

	title            string
	titles           titleCoalescer // pane.title events (title.go)
	argv             []string
	cwd, reportedCwd string
	env              map[string]string
	envUnset         []string // inherited names removed from its children's environment (sorted)
	envTransient     []string // names a resume or relaunch set with --env: kept in memory, never saved (sorted)
	envLost          []string // names it was started with whose values a restart lost (sorted)
	cols, rows       int
	limits           cgroup.Limits // of the pane's cgroup, set at spawn (cgroups.go)
	input            *rate.Limiter // input bucket, made on first SendInput (limits.go)
	status           *WaitStatus   // nil unless exited (or restored as exited)
	altScreen        bool
	commandOpen      bool // OSC 133;C seen without its D
	programStatus    bool // an OSC 7501 status was reported
	createdAt        time.Time
	exitedAt         time.Time
	resumable        bool       // restored with an agent's official resume command
	restoredRows     int64      // rows [0, restoredRows) came from before a restart or relaunch
	shutdownSave     bool       // saved as live for a host shutdown (persist.go)
	agent            agentState // the pane's agent, lifecycle and attention (agent.go)
	historyRows      int        // rows of history its terminal keeps; 0: the daemon's setting (history.go)
	rev              uint64     // the revision of its record (records.go)

	inst *instance      // the current process, nil for a restored pane
	term *term.Terminal // the pane's rows: the instance's terminal, or restored ones
}

// newID returns prefix + "_" + 12 random hex digits.
func newID(prefix string) string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	return prefix + "_" + hex.EncodeToString(b[:])
}

func (w *workspace) snapshot() Workspace {
	return Workspace{ID: w.id, Name: w.name, Handle: w.handle, Cwd: w.cwd,
		Tabs: append([]string{}, w.tabs...), ActiveTab: w.activeTab, CreatedAt: w.createdAt, Git: copyGit(w.git),
		AutoResume: w.autoResume}
}

func copyGit(g *GitState) *GitState {
	if g == nil {
		return nil
	}
	c := *g
	if g.Dirty != nil {
		d := *g.Dirty
		c.Dirty = &d
	}
	return &c
}

func (t *tab) snapshot() Tab {
	return Tab{ID: t.id, Workspace: t.workspace, Title: t.title, Layout: t.layout.snapshot(),
		ActivePane: t.activePane, CreatedAt: t.createdAt, Run: t.run}
}

func (n *node) snapshot() *Layout {
	if n == nil {
		return nil
	}
	return &Layout{Pane: n.pane, Axis: n.axis, Ratio: n.ratio, First: n.first.snapshot(), Second: n.second.snapshot()}
}

// publicState is StateLive or StateExited (what Pane.State says).
func (p *pane) publicState() string {
	if p.shown().hasProcess() {
		return StateLive
	}
	return StateExited
}

func (p *pane) snapshot() Pane {
	s := Pane{ID: p.id, Workspace: p.workspace, Tab: p.tab, Title: p.title, Argv0: argv0(p.argv),
		Argv: append([]string{}, p.argv...), Cwd: p.cwd, ReportedCwd: p.reportedCwd,
		Env: envNames(p.env), Cols: p.cols, Rows: p.rows, State: p.publicState(),
		Terminating: p.shown() == stateTerminating, Status: p.status,
		Screen: term.ScreenPrimary, CreatedAt: p.createdAt, ExitedAt: p.exitedAt,
		RestoreState: p.restoreState(), RestoredRows: p.restoredRows, HistoryRows: p.historyRows}
	if p.shown().hasProcess() {
		s.Pid = p.inst.proc.Pid()
	}
	if p.altScreen {
		s.Screen = term.ScreenAlternate
	}
	p.agent.fill(&s)
	return s
}

// argv0 is the basename of argv[0], at most 255 bytes: all of a command that
// events and logs may show (docs/events.md).
func argv0(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	b := filepath.Base(argv[0])
	if len(b) > 255 {
		b = b[:255]
	}
	return b
}

// slug makes a workspace handle base from a name: lower case ASCII letters
// and digits, other runs as one "-", trimmed, at most 32 bytes, "ws" if empty.
func slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.TrimRight(b.String(), "-")
	if len(s) > 32 {
		s = strings.TrimRight(s[:32], "-")
	}
	if s == "" {
		s = "ws"
	}
	return s
}

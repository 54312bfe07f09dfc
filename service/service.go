package service

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/signaltty/signaltty/cgroup"
	"github.com/signaltty/signaltty/pty"
	"github.com/signaltty/signaltty/service/agents"
	"github.com/signaltty/signaltty/service/events"
	"github.com/signaltty/signaltty/service/persist"
	"github.com/signaltty/signaltty/service/procs"
	"github.com/signaltty/signaltty/service/runs"
	"github.com/signaltty/signaltty/term"
)

// Config configures a Service.
type Config struct {
	Version         string
	Address         string   // varlink address, given to panes as SIGNALTTY_ADDRESS
	SocketActivated bool     // reported by Status
	Environ         []string // the daemon's environment; children get it minus plumbing (see childEnv)
	HistoryRows     int      // rows of scrollback per pane; 0 = term.DefaultHistoryRows
	HistoryBytes    int      // byte budget of a pane's scrollback; 0 = term.DefaultHistoryBytes
	Logger          *slog.Logger
	// WorktreeRoot is where new worktrees go: <WorktreeRoot>/<repository
	// name>/<branch>; "" puts them next to the repository,
	// <repository>-worktrees/<branch> (docs/workspaces.md).
	WorktreeRoot string
	// Cgroups is the daemon's delegated cgroup: each pane's process gets a
	// cgroup of its own below it (cgroups.go). nil: panes share the
	// daemon's cgroup; CgroupsOff says why.
	Cgroups    *cgroup.Tree
	CgroupsOff string
	// OutsideCallers is how a caller outside every pane resolves
	// (docs/security.md): "" or "owner", or "unknown" (UnknownGrants, and
	// the owner only with SIGNALTTY_TOKEN=@owner in its environment).
	OutsideCallers string
	UnknownGrants  []Grant // nil: read on *
	// Mark is the pane mark the daemon set on itself (MarkProcesses; zero:
	// none): a marked caller no live pane claims is denied (mark.go).
	Mark   PaneMark
	Limits Limits // zero fields: defaults (limits.go)
	// TitleInterval is the least time between two pane.title events of a
	// pane (title.go); 0 is DefaultTitleInterval, negative publishes
	// every change.
	TitleInterval time.Duration
}

// Service owns every workspace, tab and pane of one daemon instance.
type Service struct {
	cfg     Config
	log     *slog.Logger
	source  string
	started time.Time

	mu        sync.Mutex
	subs      *events.Subscribers
	model                    // workspaces, tabs and panes (lookup.go)
	stopping  bool           // Shutdown began: no new panes
	stopped   bool           // Shutdown finished
	starts    sync.WaitGroup // starts between reserve and settle (start.go)
	instances int64          // process instances started (instance.id in lifecycle.go)
	records   recordRevs     // pane record revisions (records.go)
	// startProcess starts a pane's process: pty.Start, or a stand-in that
	// tests use to slow a start down.
	startProcess func(pty.Config, pty.Output) (*pty.Process, error)
	runs         *runs.Table
	settings     *Settings // settings.go
	persist      *persist.Saver
	pub          *Publisher       // numbering, journal and delivery of events (publish.go)
	escaped      int              // see Status.Escaped
	leftovers    *procs.Leftovers // previous daemons and their leftovers (leftover.go)
	sweeper      procs.Sweeper    // stops what exited instances left (escapees.go)
	sweeps       sweepCount       // sweeps under way (escapees.go)
	git          *Git             // git.go, worktree.go
	notes        agents.NoteList  // the newest MaxNotifications, oldest first (notify.go)
	access       *Access          // creators, pane principals' grants, denials (authz.go)
	limits       limitState       // limits.go
	parker       *term.Parker     // releases idle panes' emulators (emulator_release.go)
	memory       *term.Memory     // the panes' emulator pool and idle memory return
	// childBase is cfg.Environ as every pane child gets it (env.go).
	childBase []string
}

// New returns an empty service. Source is "signaltty/<uuid>", new each time.
func New(cfg Config) *Service {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	s := &Service{
		cfg: cfg, log: cfg.Logger, source: "signaltty/" + uuid.NewString(), started: time.Now(),
		model: model{workspaces: map[string]*workspace{}, tabs: map[string]*tab{}, panes: map[string]*pane{}}, startProcess: pty.Start,
		parker: term.NewParker(DefaultEmulatorReleaseAfter), memory: term.NewMemory(),
	}
	s.access = &Access{s: s}
	s.git = newGit(s, cfg)
	s.runs = runs.NewTable(s.source, s.log, s.Runs().expire)
	s.persist = newSaver(s)
	s.childBase = childBase(cfg.Environ)
	s.leftovers = procs.NewLeftovers(cfg.Mark, s.log)
	s.subs = events.NewSubscribers(&s.mu)
	s.limits = newLimitState(&s.mu, &s.cfg)
	s.settings = newSettings(&s.mu, s.runs, s, cfg, s.parker, &s.limits)
	s.pub = newPublisher(s)
	return s
}

// Source is this instance's event source, "signaltty/<uuid>".
func (s *Service) Source() string { return s.source }

// Status is the daemon's status.
type Status struct {
	Version         string
	Source          string
	Address         string
	Pid             int
	SocketActivated bool
	StartedAt       time.Time
	Uptime          time.Duration
	Workspaces      int
	Tabs            int
	Panes           int
	LivePanes       int
	Seq             int64
	RunsActive      int   // runs not yet completed
	RunsRetained    int   // run records kept (any state)
	RunsStarted     int64 // runs that started since start (failed starts not counted)
	// Escaped counts panes whose leader ended leaving descendants running
	// (docs/termination.md, "Descendants outside the process group"):
	// processes carrying the instance's mark that outlived the sweep's
	// SIGKILL; with a cgroup, processes left in it by a leader that exited
	// on its own; with neither, a PTY still held open after the drain.
	Escaped int
}

// Status returns counts and identity.
func (s *Service) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Version: s.cfg.Version, Source: s.source, Address: s.cfg.Address, Pid: os.Getpid(),
		SocketActivated: s.cfg.SocketActivated, StartedAt: s.started, Uptime: time.Since(s.started),
		Workspaces: len(s.workspaces), Tabs: len(s.tabs), Seq: s.pub.seq}
	for _, p := range s.panes {
		if p.announced() {
			st.Panes++
		}
		if p.announced() && p.shown().hasProcess() {
			st.LivePanes++
		}
	}
	st.RunsRetained, st.RunsActive, st.RunsStarted = s.runs.Counts()
	st.Escaped = s.escaped
	return st
}

// Shutdown refuses new panes, lets starts under way settle (a start that
// commits after Shutdown began fails with unavailable.shutdown and its
// process is killed), terminates every pane with a process (the default
// stop sequence, docs/termination.md) concurrently, releases every pane's
// resources and ends all subscriptions. It returns when all of that is done
// or ctx ends. The model is not used after it.
func (s *Service) Shutdown(ctx context.Context) {
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
	s.starts.Wait()
	s.mu.Lock()
	var all []*pane
	for _, p := range s.panes {
		all = append(all, p)
	}
	s.mu.Unlock()
	s.terminate(ctx, all, 0, -1, CauseShutdown) // those with a process
	release(all)
	s.sweeps.waitCtx(ctx) // what the panes left is stopped before the daemon goes
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
	s.pub.stop() // what was queued is journaled and delivered first
	s.mu.Lock()
	s.subs.EndAll(nil)
	s.mu.Unlock()
}

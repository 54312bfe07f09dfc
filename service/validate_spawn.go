package service

import (
	"github.com/signaltty/signaltty/cgroup"
	"github.com/signaltty/signaltty/service/request"
)

// Checks of a spawn request (Mux.SpawnPane, and the spawn a run makes):
// made once, here, before the model is looked at; nothing after them
// checks the request again (the pty layer trusts what it is given).

// Size limits of a pane, in cells (request.MinSize .. request.MaxSize).
const (
	MinSize     = request.MinSize
	MaxSize     = request.MaxSize
	DefaultCols = request.DefaultCols
	DefaultRows = request.DefaultRows
)

// SpawnRequest is the input of SpawnPane. Exactly one of Workspace (a new
// tab), Tab (an empty tab) and Split (a live pane, with Axis) is set.
type SpawnRequest struct {
	Workspace  string
	Tab        string
	Split      string
	Axis       string // AxisCols or AxisRows; only with Split
	Argv       []string
	Cwd        string            // "" = the workspace's; else an existing absolute directory
	Env        map[string]string // added to the child's environment
	EnvUnset   []string          // inherited variables removed from it
	Cols, Rows *int              // only with Workspace or Tab; default 80×24
	// Agent names the kind of agent argv starts ("" = from argv[0]'s
	// basename; docs/agents.md).
	Agent string
	// AssignSession: start the agent with a session id the daemon chooses
	// and records (only for agents that accept one, such as claude).
	AssignSession bool
	// HistoryRows bounds the rows kept once they scrolled off the screen
	// (1..MaxHistoryRows); nil: the daemon's setting (Service.HistoryRows).
	HistoryRows *int
	Limits      cgroup.Limits // of the pane's cgroup (cgroups.go); zero = none
	// Creator is the principal asking ("" = the owner); Grants are those
	// of the new pane's principal (nil: the default, DefaultPaneGrants).
	// Both are checked before the call (grants.go); docs/security.md.
	Creator string
	Grants  []Grant
}

// spawnSpec is a checked spawn: the request (Cwd made absolute and clean)
// and what a run adds to it.
type spawnSpec struct {
	SpawnRequest
	tabTitle string            // title of a new tab ("" = "tab")
	run      string            // the run id of a Run.Start ("" for other starts): its new tab is a run tab
	extraEnv map[string]string // variables the daemon adds for this process (SIGNALTTY_RUN)
	// assignedSession is the session id given to the agent (AssignSession).
	assignedSession string
}

// checkSpawn validates a spawn request. Errors: invalid_params.argv,
// .target, .size, .cwd, .env.
func checkSpawn(r SpawnRequest) (spawnSpec, *Error) {
	if err := request.CheckArgv(r.Argv); err != nil {
		return spawnSpec{}, err
	}
	n := 0
	for _, t := range []string{r.Workspace, r.Tab, r.Split} {
		if t != "" {
			n++
		}
	}
	switch {
	case n == 0:
		return spawnSpec{}, invalid("target", "missing", "one of workspace, tab and split is required")
	case n > 1:
		return spawnSpec{}, invalid("target", "exclusive", "only one of workspace, tab and split may be given")
	case r.Split != "" && r.Axis != AxisCols && r.Axis != AxisRows:
		return spawnSpec{}, invalid("target", "missing", "split needs axis \"cols\" or \"rows\"")
	case r.Split == "" && r.Axis != "":
		return spawnSpec{}, invalid("target", "misplaced", "axis goes only with split")
	case r.Split != "" && (r.Cols != nil || r.Rows != nil):
		return spawnSpec{}, invalid("size", "misplaced", "a split pane's size comes from the pane it splits")
	}
	if err := request.CheckSizeOpt(r.Cols, r.Rows); err != nil {
		return spawnSpec{}, err
	}
	if r.Cwd != "" {
		if err := request.CheckCwdSyntax(r.Cwd); err != nil {
			return spawnSpec{}, err
		}
		cwd, err := checkDir("cwd", r.Cwd)
		if err != nil {
			return spawnSpec{}, err
		}
		r.Cwd = cwd
	}
	if err := checkRequestEnv(r.Env, r.EnvUnset); err != nil {
		return spawnSpec{}, err
	}
	r.EnvUnset = request.Names(r.EnvUnset)
	if r.HistoryRows != nil {
		if err := CheckHistoryRows(*r.HistoryRows); err != nil {
			return spawnSpec{}, err
		}
	}
	spec := spawnSpec{SpawnRequest: r}
	if err := checkSpawnAgent(&spec); err != nil {
		return spawnSpec{}, err
	}
	return spec, nil
}

// Termination limits (request.MaxGrace).
const MaxGrace = request.MaxGrace

package service

import (
	"path/filepath"
	"strings"

	"github.com/signaltty/signaltty/cgroup"
)

// Checks of a spawn request (Mux.SpawnPane, and the spawn a run makes):
// made once, here, before the model is looked at; nothing after them
// checks the request again (the pty layer trusts what it is given).

// Size limits of a pane, in cells.
const (
	MinSize     = 1
	MaxSize     = 1000
	DefaultCols = 80
	DefaultRows = 24
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
	if err := checkArgv(r.Argv); err != nil {
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
	if err := checkSizeOpt(r.Cols, r.Rows); err != nil {
		return spawnSpec{}, err
	}
	if r.Cwd != "" {
		if err := checkCwdSyntax(r.Cwd); err != nil {
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
	r.EnvUnset = unsetNames(r.EnvUnset)
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

func checkSize(cols, rows int) *Error {
	if cols < MinSize || cols > MaxSize || rows < MinSize || rows > MaxSize {
		return newError("invalid_params.size", map[string]any{"param": "size", "reason": "range", "min": MinSize, "max": MaxSize},
			"size %dx%d is outside %d..%d", cols, rows, MinSize, MaxSize)
	}
	return nil
}

// checkSizeOpt checks a requested size; absent parts are the defaults.
func checkSizeOpt(cols, rows *int) *Error {
	c, r := DefaultCols, DefaultRows
	if cols != nil {
		c = *cols
	}
	if rows != nil {
		r = *rows
	}
	return checkSize(c, r)
}

// checkCwdSyntax checks a requested working directory without looking at
// the disk: absolute, no NUL byte (invalid_params.cwd). Whether it is an
// existing directory is checked when the process is started (a spawn also
// checks it first).
func checkCwdSyntax(cwd string) *Error {
	if strings.IndexByte(cwd, 0) >= 0 {
		return invalid("cwd", "nul", "cwd contains a NUL byte")
	}
	if !filepath.IsAbs(cwd) {
		return invalid("cwd", "relative", "cwd is not an absolute path")
	}
	return nil
}

// checkArgv checks a command: a program named, no NUL byte.
func checkArgv(argv []string) *Error {
	if len(argv) == 0 || argv[0] == "" {
		return invalid("argv", "missing", "argv must name a program")
	}
	for _, a := range argv {
		if strings.IndexByte(a, 0) >= 0 {
			return invalid("argv", "nul", "argv contains a NUL byte")
		}
	}
	return nil
}

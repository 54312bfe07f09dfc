package service

import (
	"path/filepath"

	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/request"
)

// Checks of a run's start request (Run.Start), made once, before any effect.

// Output bounds of a run without its own (request.DefaultOutputRows and
// request.DefaultOutputBytes).
const (
	defOutputRows  = request.DefaultOutputRows
	defOutputBytes = request.DefaultOutputBytes
)

// checkRun checks a start request in the order docs/run-wait.md, "Order of
// checks" gives, and returns the spawn it makes: argv, or /bin/sh -c for
// shell text, with the run's id added to the environment at reservation.
func (s *Service) checkRun(r *RunRequest) (spawnSpec, *Error) {
	if err := s.checkRunFields(r); err != nil {
		return spawnSpec{}, err
	}
	var spec spawnSpec
	argv := r.Argv
	if r.Shell != nil {
		argv = []string{"/bin/sh", "-c", *r.Shell}
	}
	spec.SpawnRequest = SpawnRequest{Workspace: r.Workspace, Split: r.Pane, Axis: r.Axis, Argv: argv, Cols: r.Cols, Rows: r.Rows,
		Env: r.Env, EnvUnset: request.Names(r.EnvUnset), Creator: r.Principal, Grants: r.Grants}
	if r.Cwd != "" {
		// Whether it is a directory is found when the program is started,
		// after the key (docs/run-wait.md, "Order of checks").
		spec.Cwd = filepath.Clean(r.Cwd)
	}
	spec.tabTitle = runTabTitle(argv)
	if r.Name != nil {
		spec.tabTitle = *r.Name
	}
	return spec, nil
}

// runTabTitle is the title of a run's new tab without a name: "run".
// Never a part of the command, which tab events would show
// (docs/workspaces.md, "Run tabs"); the tab's run member marks it.
func runTabTitle([]string) string { return "run" }

func (s *Service) checkRunFields(r *RunRequest) *Error {
	if (r.Workspace == "") == (r.Pane == "") {
		reason := "missing"
		if r.Workspace != "" {
			reason = "exclusive"
		}
		return newError(errcode.InvalidParams("target"), map[string]any{"param": "target", "reason": reason},
			"give exactly one of workspace and pane")
	}
	if err := s.Runs().CheckSource(r.Source); err != nil {
		return err
	}
	s.mu.Lock()
	stopping := s.stopping
	s.mu.Unlock()
	if stopping {
		return errcode.Shutdown()
	}
	switch {
	case r.Pane != "" && r.Axis == "":
		return newError(errcode.InvalidParams("target"), map[string]any{"param": "axis", "reason": "missing"}, "pane needs axis \"cols\" or \"rows\"")
	case r.Workspace != "" && r.Axis != "":
		return newError(errcode.InvalidParams("target"), map[string]any{"param": "axis", "reason": "misplaced"}, "axis goes only with pane")
	case r.Pane != "" && r.Name != nil:
		return newError(errcode.InvalidParams("target"), map[string]any{"param": "name", "reason": "misplaced"}, "name goes only with workspace")
	case r.Axis != "" && r.Axis != AxisCols && r.Axis != AxisRows:
		return newError(errcode.InvalidParams("target"), map[string]any{"param": "axis", "reason": "choice"}, "axis must be \"cols\" or \"rows\"")
	}
	switch {
	case (r.Argv == nil) == (r.Shell == nil):
		reason := "missing"
		if r.Argv != nil {
			reason = "exclusive"
		}
		return newError(errcode.InvalidParams("command"), map[string]any{"param": "command", "reason": reason}, "give exactly one of argv and shell")
	}
	if r.Shell != nil {
		if err := request.CheckShell(*r.Shell); err != nil {
			return err
		}
	}
	if err := request.CheckRunKey(r.Key); err != nil {
		return err
	}
	if r.Argv != nil {
		if err := request.CheckArgv(r.Argv); err != nil {
			return err
		}
	}
	if r.Name != nil {
		if err := checkName("name", r.Name); err != nil {
			return err
		}
	}
	if r.Pane != "" && (r.Cols != nil || r.Rows != nil) {
		return invalid("size", "misplaced", "a split pane's size comes from the pane it splits")
	}
	if err := request.CheckSizeOpt(r.Cols, r.Rows); err != nil {
		return err
	}
	if err := request.CheckRunBounds(r.DeadlineMs, r.OutputRows, r.OutputBytes); err != nil {
		return err
	}
	if r.Cwd != "" {
		if err := request.CheckCwdSyntax(r.Cwd); err != nil {
			return err
		}
	}
	return checkRequestEnv(r.Env, r.EnvUnset)
}

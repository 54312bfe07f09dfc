package service

import (
	"path/filepath"
	"regexp"
	"strings"

	"github.com/signaltty/signaltty/service/errcode"
)

// Checks of a run's start request (Run.Start), made once, before any effect.

var runKey = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// Bounds of a run request (docs/run-wait.md, "Start").
const (
	maxShell       = 65536
	maxDeadlineMs  = 86400000
	maxOutputRows  = 1000
	maxOutputBytes = 262144
	defOutputRows  = 100
	defOutputBytes = 65536
	runWaitMax     = 86400000
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
		Env: r.Env, EnvUnset: unsetNames(r.EnvUnset), Creator: r.Principal, Grants: r.Grants}
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
		return newError("invalid_params.target", map[string]any{"param": "target", "reason": reason},
			"give exactly one of workspace and pane")
	}
	if err := s.CheckSource(r.Source); err != nil {
		return err
	}
	s.mu.Lock()
	stopping := s.stopping
	s.mu.Unlock()
	if stopping {
		return newError(errcode.UnavailableShutdown, nil, "the daemon is shutting down")
	}
	switch {
	case r.Pane != "" && r.Axis == "":
		return newError("invalid_params.target", map[string]any{"param": "axis", "reason": "missing"}, "pane needs axis \"cols\" or \"rows\"")
	case r.Workspace != "" && r.Axis != "":
		return newError("invalid_params.target", map[string]any{"param": "axis", "reason": "misplaced"}, "axis goes only with pane")
	case r.Pane != "" && r.Name != nil:
		return newError("invalid_params.target", map[string]any{"param": "name", "reason": "misplaced"}, "name goes only with workspace")
	case r.Axis != "" && r.Axis != AxisCols && r.Axis != AxisRows:
		return newError("invalid_params.target", map[string]any{"param": "axis", "reason": "choice"}, "axis must be \"cols\" or \"rows\"")
	}
	switch {
	case (r.Argv == nil) == (r.Shell == nil):
		reason := "missing"
		if r.Argv != nil {
			reason = "exclusive"
		}
		return newError("invalid_params.command", map[string]any{"param": "command", "reason": reason}, "give exactly one of argv and shell")
	case r.Shell != nil && (len(*r.Shell) == 0 || len(*r.Shell) > maxShell):
		return newError("invalid_params.command", map[string]any{"param": "shell", "reason": "size"}, "shell must be 1..%d bytes", maxShell)
	case r.Shell != nil && strings.IndexByte(*r.Shell, 0) >= 0:
		return newError("invalid_params.command", map[string]any{"param": "shell", "reason": "nul"}, "shell contains a NUL byte")
	}
	if !runKey.MatchString(r.Key) {
		return newError("invalid_params.key", map[string]any{"param": "key", "reason": "syntax"},
			"key must be 1..128 bytes of [A-Za-z0-9._:-]")
	}
	if r.Argv != nil {
		if err := checkArgv(r.Argv); err != nil {
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
	if err := checkSizeOpt(r.Cols, r.Rows); err != nil {
		return err
	}
	if r.DeadlineMs != nil && (*r.DeadlineMs < 1 || *r.DeadlineMs > maxDeadlineMs) {
		return invalid("deadline_ms", "range", "deadline_ms must be 1..%d", maxDeadlineMs)
	}
	if r.OutputRows != nil && (*r.OutputRows < 0 || *r.OutputRows > maxOutputRows) {
		return invalid("output_rows", "range", "output_rows must be 0..%d", maxOutputRows)
	}
	if r.OutputBytes != nil && (*r.OutputBytes < 0 || *r.OutputBytes > maxOutputBytes) {
		return invalid("output_bytes", "range", "output_bytes must be 0..%d", maxOutputBytes)
	}
	if r.Cwd != "" {
		if err := checkCwdSyntax(r.Cwd); err != nil {
			return err
		}
	}
	return checkRequestEnv(r.Env, r.EnvUnset)
}

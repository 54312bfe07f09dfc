package service

import (
	"slices"

	"github.com/google/uuid"
	"github.com/signaltty/signaltty/service/agents"
	"github.com/signaltty/signaltty/service/errcode"
)

// Checks of the agent parts of requests (docs/agents.md): made once, here.

// checkKind accepts "" or a known agent kind. Errors: invalid_params.<param>.
func checkKind(param, kind string) *Error {
	if kind != "" && !agents.Known(kind) {
		return newError(errcode.InvalidParams(param), map[string]any{"param": param, "reason": "unknown_agent", "kinds": agents.Kinds()},
			"unknown agent %q", kind)
	}
	return nil
}

// checkSpawnAgent checks a spawn's agent and, with AssignSession, picks the
// session id and puts it on the command line the agent documents for it.
// Errors: invalid_params.agent, invalid_params.assign_session.
func checkSpawnAgent(spec *spawnSpec) *Error {
	spec.Agent = agents.Normalize(spec.Agent)
	if err := checkKind("agent", spec.Agent); err != nil {
		return err
	}
	if !spec.AssignSession {
		return nil
	}
	kind := spec.Agent
	if kind == "" {
		kind = agents.Detect(spec.Argv[0])
	}
	ad, ok := agents.Lookup(kind)
	if !ok || ad.AssignArgs == nil {
		return invalid("assign_session", "unsupported", "agent %q does not accept a chosen session id", kind)
	}
	id := uuid.NewString()
	spec.assignedSession = id
	spec.Argv = append(slices.Clone(spec.Argv), ad.AssignArgs(id)...)
	return nil
}

// Limits of reported identity.
const (
	maxSessionID = 256
	maxModel     = 256
)

// checkSessionID accepts 1..256 bytes without control characters.
func checkSessionID(id string) *Error {
	if id == "" {
		return invalid("session", "missing", "session is required")
	}
	if len(id) > maxSessionID {
		return invalid("session", "size", "session is longer than %d bytes", maxSessionID)
	}
	for _, r := range id {
		if r < 0x20 || r == 0x7f {
			return invalid("session", "control", "session must not contain control characters")
		}
	}
	return nil
}

// checkResumeArgv validates a self-reported resume argv (agents.CheckResumeArgv).
func checkResumeArgv(argv []string) *Error {
	if why := agents.CheckResumeArgv(argv); why != "" {
		return invalid("resume_argv", why, "resume_argv refused: %s (at most %d arguments, %d bytes, no control characters, a plain command name first)",
			why, agents.MaxResumeArgs, agents.MaxResumeBytes)
	}
	return nil
}

package service

import (
	"slices"

	"github.com/google/uuid"
	"github.com/signaltty/signaltty/service/agents"
	"github.com/signaltty/signaltty/service/errcode"
)

// Checks of the agent parts of requests (docs/agents.md): made once, here.

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

// checkKind accepts "" or a known agent kind (docs/agents.md).
// Errors: invalid_params.<param> (data.kinds).
func checkKind(param, kind string) *errcode.Error {
	if kind != "" && !agents.Known(kind) {
		return errcode.New(errcode.InvalidParams(param), map[string]any{"param": param, "reason": "unknown_agent", "kinds": agents.Kinds()},
			"unknown agent %q", kind)
	}
	return nil
}

// checkResumeArgv validates a self-reported resume argv (agents.CheckResumeArgv).
// Errors: invalid_params.resume_argv.
func checkResumeArgv(argv []string) *errcode.Error {
	if why := agents.CheckResumeArgv(argv); why != "" {
		return errcode.Invalid("resume_argv", why, "resume_argv refused: %s (at most %d arguments, %d bytes, no control characters, a plain command name first)",
			why, agents.MaxResumeArgs, agents.MaxResumeBytes)
	}
	return nil
}

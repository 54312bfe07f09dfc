package service

import (
	"sort"

	"github.com/signaltty/signaltty/service/persist"
)

// The environment of a restarted pane (docs/agents.md, "Credentials after
// a restart") is persist.Env's; a resume or relaunch may add variables
// (RestartEnv.Env) and remove some (RestartEnv.Unset) for the new process.

// RestartEnv is what a resume or relaunch changes in the pane's
// environment for the process it starts.
type RestartEnv struct {
	Env   map[string]string // added or replaced; kept in memory only
	Unset []string          // removed (from the pane's own and the inherited environment)
}

// check validates the names as a spawn's env and env_unset are checked.
// Errors: invalid_params.env, invalid_params.env_unset.
func (r RestartEnv) check() *Error {
	if len(r.Env) == 0 && len(r.Unset) == 0 {
		return nil
	}
	return checkRequestEnv(r.Env, r.Unset)
}

// envNames are env's names, sorted ([] for none).
func envNames(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k := range env {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// persistEnvLocked is the pane's environment as it persists; s.mu is held.
func persistEnvLocked(p *pane) persist.Env {
	return persist.Env{Vars: p.env, Unset: p.envUnset, Transient: p.envTransient, Lost: p.envLost}
}

// savedEnv is what of the pane's environment a snapshot keeps
// (persist.Env.Saved).
func savedEnv(p *pane) map[string]string { return persistEnvLocked(p).Saved() }

// lostEnv names the pane's variables a snapshot does not keep the values
// of (persist.Env.LostNames).
func lostEnv(p *pane) []string { return persistEnvLocked(p).LostNames() }

// restartEnvOfLocked is the pane's own environment for a restart: its
// environment now (base: nil for p.env), with r applied; the names it
// removes; and what the pane records afterwards (persist.Env.Restart).
// s.mu is held.
func restartEnvOfLocked(p *pane, base map[string]string, r RestartEnv) (env map[string]string, unset, transient, lost []string) {
	return persistEnvLocked(p).Restart(base, r.Env, r.Unset)
}

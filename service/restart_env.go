package service

import (
	"maps"
	"slices"
	"sort"

	"github.com/signaltty/signaltty/snapshot"
)

// The environment of a restarted pane (docs/agents.md, "Credentials after
// a restart"): while the daemon runs, a pane keeps in memory the variables
// it was started with, values included, and a relaunch or resume gives
// them to the new process; only the allowlisted ones are saved, so after a
// daemon restart the others are lost and only their names are kept. A
// resume or relaunch may add variables (RestartEnv.Env) and remove some
// (RestartEnv.Unset) for the new process; those it adds are never saved.

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

// savedEnv is what of the pane's environment a snapshot keeps: the
// allowlisted variables, never one a resume or relaunch added.
func savedEnv(p *pane) map[string]string {
	env := snapshot.FilterEnv(p.env)
	for _, k := range p.envTransient {
		delete(env, k)
	}
	if len(env) == 0 {
		return nil
	}
	return env
}

// lostEnv names the pane's variables a snapshot does not keep the values
// of: the ones savedEnv leaves out and those lost by an earlier restart.
func lostEnv(p *pane) []string {
	saved := savedEnv(p)
	out := slices.Clone(p.envLost)
	for k := range p.env {
		if _, ok := saved[k]; !ok {
			out = append(out, k)
		}
	}
	return unsetNames(out)
}

// restartEnvOf is the pane's own environment for a restart: its
// environment now (base: nil for p.env), with r applied; the names it
// removes; and what the pane records afterwards. s.mu is held.
func restartEnvOf(p *pane, base map[string]string, r RestartEnv) (env map[string]string, unset, transient, lost []string) {
	if base == nil {
		base = p.env
	}
	env = maps.Clone(base)
	if env == nil {
		env = map[string]string{}
	}
	transient = slices.Clone(p.envTransient)
	for k, v := range r.Env {
		env[k] = v
		transient = append(transient, k)
	}
	for _, k := range r.Unset {
		delete(env, k)
	}
	transient = slices.DeleteFunc(unsetNames(transient), func(k string) bool { _, ok := env[k]; return !ok })
	unset = unsetNames(append(slices.Clone(p.envUnset), r.Unset...))
	for _, k := range p.envLost {
		if _, given := env[k]; !given && !slices.Contains(r.Unset, k) {
			lost = append(lost, k)
		}
	}
	sort.Strings(lost)
	return env, unset, transient, lost
}

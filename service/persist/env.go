package persist

import (
	"maps"
	"slices"
	"sort"

	"github.com/signaltty/signaltty/service/request"
	"github.com/signaltty/signaltty/snapshot"
)

// Env is a pane's environment as it persists (docs/agents.md, "Credentials
// after a restart"): while the daemon runs a pane keeps in memory the
// variables it was started with, values included, and a relaunch or resume
// gives them to the new process; only the allowlisted ones are saved, so
// after a daemon restart the others are lost and only their names are
// kept. A resume or relaunch may add variables and remove some for the new
// process; those it adds are never saved.
type Env struct {
	Vars      map[string]string // the values it was started with
	Unset     []string          // names removed from what it inherits, a set
	Transient []string          // names a resume or relaunch added: never saved
	Lost      []string          // names whose values an earlier restart lost
}

// Saved is what of the environment a snapshot keeps: the allowlisted
// variables (snapshot.FilterEnv), never one a resume or relaunch added;
// nil for none.
func (e Env) Saved() map[string]string {
	env := snapshot.FilterEnv(e.Vars)
	for _, k := range e.Transient {
		delete(env, k)
	}
	if len(env) == 0 {
		return nil
	}
	return env
}

// LostNames names the variables a snapshot does not keep the values of:
// the ones Saved leaves out and those lost by an earlier restart, as a set
// (sorted, without repeats, nil for none).
func (e Env) LostNames() []string {
	saved := e.Saved()
	out := slices.Clone(e.Lost)
	for k := range e.Vars {
		if _, ok := saved[k]; !ok {
			out = append(out, k)
		}
	}
	return request.Names(out)
}

// Restart is the environment for a restart: base (nil: e.Vars) with add
// set and remove removed; the names the new process has removed; and what
// the pane records afterwards, its transient and lost names (sets).
func (e Env) Restart(base, add map[string]string, remove []string) (env map[string]string, unset, transient, lost []string) {
	if base == nil {
		base = e.Vars
	}
	env = maps.Clone(base)
	if env == nil {
		env = map[string]string{}
	}
	transient = slices.Clone(e.Transient)
	for k, v := range add {
		env[k] = v
		transient = append(transient, k)
	}
	for _, k := range remove {
		delete(env, k)
	}
	transient = slices.DeleteFunc(request.Names(transient), func(k string) bool { _, ok := env[k]; return !ok })
	unset = request.Names(append(slices.Clone(e.Unset), remove...))
	for _, k := range e.Lost {
		if _, given := env[k]; !given && !slices.Contains(remove, k) {
			lost = append(lost, k)
		}
	}
	sort.Strings(lost)
	return env, unset, transient, lost
}

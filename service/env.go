package service

import (
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/request"
)

// plumbing lists variables that belong to the daemon's own service manager or
// session and must not reach pane children (sd_listen_fds(3), sd_notify(3),
// systemd.exec(5) "Environment Variables in Spawned Processes").
var plumbing = map[string]bool{
	"NOTIFY_SOCKET": true, "INVOCATION_ID": true, "JOURNAL_STREAM": true, "SYSTEMD_EXEC_PID": true,
	"MANAGERPID": true, "MAINPID": true, "TRIGGER_UNIT": true, "TRIGGER_PATH": true,
	"TRIGGER_TIMER_REALTIME_USEC": true, "TRIGGER_TIMER_MONOTONIC_USEC": true,
	"MEMORY_PRESSURE_WATCH": true, "MEMORY_PRESSURE_WRITE": true, "CREDENTIALS_DIRECTORY": true,
	"RUNTIME_DIRECTORY": true, "STATE_DIRECTORY": true, "CACHE_DIRECTORY": true, "LOGS_DIRECTORY": true,
	"CONFIGURATION_DIRECTORY": true, "FDSTORE": true, "SIGNALTTY_RUN": true, "SIGNALTTY_TOKEN": true,
}

// reserved names are set by the daemon (for every pane, or for a run's) and
// can be neither set nor unset by a request (docs/run-wait.md, "Start").
var reserved = map[string]bool{"SIGNALTTY_PANE": true, "SIGNALTTY_ADDRESS": true, "SIGNALTTY_RUN": true}

// keptSet names variables a request may set but not unset: the daemon
// always gives the child one (TERM=xterm-256color unless env sets it).
var keptSet = map[string]bool{"TERM": true}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Limits of a spawn request's env.
const (
	maxEnvVars  = 256
	maxEnvBytes = 128 << 10
)

// isPlumbing reports whether a variable is service-manager plumbing.
func isPlumbing(name string) bool {
	return plumbing[name] || strings.HasPrefix(name, "LISTEN_") || strings.HasPrefix(name, "WATCHDOG_")
}

// checkEnvName checks one variable name of a request's env or env_unset
// (param): a portable name (so never empty, never with "=" or NUL) that
// the daemon does not set itself. The name is not put in the message: a
// request's environment stays out of logs.
func checkEnvName(param, name string) *Error {
	switch {
	case !envName.MatchString(name):
		return invalid(param, "name", "a name in %s is not a valid variable name ([A-Za-z_][A-Za-z0-9_]*)", param)
	case reserved[name]:
		return newError(errcode.InvalidParams(param), map[string]any{"param": param, "reason": "reserved", "name": name},
			"%s is set by the daemon", name)
	}
	return nil
}

// checkRequestEnv validates a spawn's or a run's environment parameters:
// env (variables added) and unset (inherited names removed). Errors:
// invalid_params.env (name, reserved, nul, size), invalid_params.env_unset
// (name, reserved, exclusive: also in env, size).
func checkRequestEnv(env map[string]string, unset []string) *Error {
	if len(env) > maxEnvVars {
		return invalid("env", "size", "env has more than %d variables", maxEnvVars)
	}
	n := 0
	for k, v := range env {
		n += len(k) + len(v) + 2
		if err := checkEnvName("env", k); err != nil {
			return err
		}
		if strings.IndexByte(v, 0) >= 0 {
			return invalid("env", "nul", "an env value contains a NUL byte")
		}
	}
	if n > maxEnvBytes {
		return invalid("env", "size", "env is larger than %d bytes", maxEnvBytes)
	}
	if len(unset) > maxEnvVars {
		return invalid("env_unset", "size", "env_unset has more than %d names", maxEnvVars)
	}
	for _, k := range unset {
		if err := checkEnvName("env_unset", k); err != nil {
			return err
		}
		if keptSet[k] {
			return newError(errcode.InvalidParams("env_unset"), map[string]any{"param": "env_unset", "reason": "reserved", "name": k},
				"%s is always set by the daemon (env may change it)", k)
		}
		if _, ok := env[k]; ok {
			return invalid("env_unset", "exclusive", "a name is both in env and in env_unset")
		}
	}
	return nil
}

// childEnv is the environment of a pane child: the daemon's minus plumbing
// and minus the names in unset, TERM=xterm-256color unless extra sets it,
// extra, then SIGNALTTY_PANE and SIGNALTTY_ADDRESS; one entry per name,
// sorted.
func childEnv(daemon []string, extra map[string]string, unset []string, paneID, address string) []string {
	return childEnvFrom(childBase(daemon), extra, unset, paneID, address)
}

// childBase is the daemon's environment daemon as every child gets it:
// without plumbing, the reserved names and TERM, one entry per name (the
// last wins), sorted. The Service computes it once (Service.childBase).
func childBase(daemon []string) []string {
	vars := make(map[string]string, len(daemon))
	for _, kv := range daemon {
		k, v, ok := strings.Cut(kv, "=")
		if ok && !isPlumbing(k) && !reserved[k] && k != "TERM" {
			vars[k] = v
		}
	}
	out := make([]string, 0, len(vars))
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// childEnvFrom is childEnv from a childBase: the base without the names in
// unset, and the few variables of this child, sorted, merged into it,
// replacing its entries of the same names. Entries of distinct names sort
// as their names followed by "=" do, so the merge gives what sorting all
// of them would.
func childEnvFrom(base []string, extra map[string]string, unset []string, paneID, address string) []string {
	own := make([]string, 0, len(extra)+3)
	if _, ok := extra["TERM"]; !ok {
		own = append(own, "TERM=xterm-256color")
	}
	for k, v := range extra {
		if k != "SIGNALTTY_PANE" && k != "SIGNALTTY_ADDRESS" { // the daemon's own values replace them
			own = append(own, k+"="+v)
		}
	}
	own = append(own, "SIGNALTTY_PANE="+paneID, "SIGNALTTY_ADDRESS="+address)
	sort.Strings(own)
	out := make([]string, 0, len(base)+len(own))
	for _, kv := range base {
		name := kv[:strings.IndexByte(kv, '=')]
		if _, ok := extra[name]; ok || slices.Contains(unset, name) {
			continue // extra sets it or unset removes it (base has no TERM and no reserved name)
		}
		for len(own) > 0 && own[0] < kv {
			out = append(out, own[0])
			own = own[1:]
		}
		out = append(out, kv)
	}
	return append(out, own...)
}

// lookEnv returns the value of name in env ("" if absent).
func lookEnv(env []string, name string) string {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}

// restoredUnset is a snapshot's env_unset of a pane: the names a request
// could have given (others are dropped), as a set.
func restoredUnset(names []string) []string {
	var ok []string
	for _, n := range names {
		if checkRequestEnv(nil, []string{n}) == nil {
			ok = append(ok, n)
		}
	}
	return request.Names(ok)
}

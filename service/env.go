package service

import (
	"regexp"
	"sort"
	"strings"
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

// reserved names are set by the daemon for every pane and cannot be overridden.
var reserved = map[string]bool{"SIGNALTTY_PANE": true, "SIGNALTTY_ADDRESS": true}

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

// checkEnv validates a spawn request's additional variables.
func checkEnv(env map[string]string) *Error {
	if len(env) > maxEnvVars {
		return invalid("env", "size", "env has more than %d variables", maxEnvVars)
	}
	n := 0
	for k, v := range env {
		n += len(k) + len(v) + 2
		switch {
		case !envName.MatchString(k):
			return invalid("env", "name", "env name %q is not a valid variable name", k)
		case reserved[k]:
			return invalid("env", "reserved", "env name %q is set by the daemon", k)
		case strings.IndexByte(v, 0) >= 0:
			return invalid("env", "nul", "env value of %q contains a NUL byte", k)
		}
	}
	if n > maxEnvBytes {
		return invalid("env", "size", "env is larger than %d bytes", maxEnvBytes)
	}
	return nil
}

// childEnv is the environment of a pane child: the daemon's minus plumbing,
// TERM=xterm-256color unless extra sets it, extra, then SIGNALTTY_PANE and
// SIGNALTTY_ADDRESS; one entry per name, sorted.
func childEnv(daemon []string, extra map[string]string, paneID, address string) []string {
	return childEnvFrom(childBase(daemon), extra, paneID, address)
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

// childEnvFrom is childEnv from a childBase: the few variables of this
// child, sorted, merged into the sorted base, whose entries they replace.
// Entries of distinct names sort as their names followed by "=" do, so the
// merge gives what sorting all of them would.
func childEnvFrom(base []string, extra map[string]string, paneID, address string) []string {
	own := make([]string, 0, len(extra)+3)
	if _, ok := extra["TERM"]; !ok {
		own = append(own, "TERM=xterm-256color")
	}
	for k, v := range extra {
		if !reserved[k] { // the daemon's own values replace them
			own = append(own, k+"="+v)
		}
	}
	own = append(own, "SIGNALTTY_PANE="+paneID, "SIGNALTTY_ADDRESS="+address)
	sort.Strings(own)
	out := make([]string, 0, len(base)+len(own))
	for _, kv := range base {
		if _, ok := extra[kv[:strings.IndexByte(kv, '=')]]; ok {
			continue // extra sets it (base has no TERM and no reserved name)
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

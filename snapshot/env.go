package snapshot

import "strings"

// secretWords mark a variable name as possibly holding a credential. A name
// containing any of them (in any case) is never persisted, whatever its
// prefix.
var secretWords = []string{
	"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL", "AUTH", "COOKIE", "PRIVATE",
}

// perProcess are SIGNALTTY_ variables that are not persisted: the daemon
// sets them afresh for every child it spawns (SIGNALTTY_PANE,
// SIGNALTTY_ADDRESS), they name a run that does not outlive the daemon
// (SIGNALTTY_RUN), or they are a credential (SIGNALTTY_TOKEN).
var perProcess = map[string]bool{
	"SIGNALTTY_TOKEN":   true,
	"SIGNALTTY_PANE":    true,
	"SIGNALTTY_ADDRESS": true,
	"SIGNALTTY_RUN":     true,
}

// EnvAllowed reports whether a pane environment variable may be written to a
// snapshot: TERM, LANG, LC_* and SIGNALTTY_*, except the per-process
// SIGNALTTY_ variables, SIGNALTTY_TOKEN, and any name that looks like it
// holds a credential (contains TOKEN, SECRET, PASSWORD, KEY, …).
func EnvAllowed(name string) bool {
	if !validEnvName(name) || perProcess[name] || secretName(name) {
		return false
	}
	switch {
	case name == "TERM", name == "LANG":
		return true
	case strings.HasPrefix(name, "LC_"):
		return len(name) > len("LC_")
	case strings.HasPrefix(name, "SIGNALTTY_"):
		return len(name) > len("SIGNALTTY_")
	}
	return false
}

// FilterEnv returns the variables of env that EnvAllowed accepts, in a new
// map (nil when none is left).
func FilterEnv(env map[string]string) map[string]string {
	var out map[string]string
	for k, v := range env {
		if !EnvAllowed(k) {
			continue
		}
		if out == nil {
			out = make(map[string]string)
		}
		out[k] = v
	}
	return out
}

// secretName reports whether name contains one of secretWords.
func secretName(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}

// validEnvName reports whether name is a portable variable name.
func validEnvName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_', 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// configEnvAllowed reports whether an agent config_env name may be written:
// the agent feature owns the allowlist, a snapshot only refuses names that
// look like credentials.
func configEnvAllowed(name string) bool {
	return validEnvName(name) && !secretName(name)
}

// filterConfigEnv is FilterEnv for Agent.ConfigEnv.
func filterConfigEnv(env map[string]string) map[string]string {
	var out map[string]string
	for k, v := range env {
		if !configEnvAllowed(k) {
			continue
		}
		if out == nil {
			out = make(map[string]string)
		}
		out[k] = v
	}
	return out
}

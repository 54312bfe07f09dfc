package main

import (
	"log/slog"
	"os"
	"strings"

	"github.com/signaltty/signaltty/service"
)

// unknownGrants reads SIGNALTTY_UNKNOWN_GRANTS, the grants of unknown
// callers when SIGNALTTY_OUTSIDE_CALLERS=unknown (docs/security.md): a
// comma-separated list of RIGHT:SCOPE; unset means read on *, empty none.
// An entry that is not RIGHT:SCOPE is logged and skipped.
func unknownGrants(log *slog.Logger) []service.Grant {
	v, ok := os.LookupEnv("SIGNALTTY_UNKNOWN_GRANTS")
	if !ok {
		return nil
	}
	out := []service.Grant{}
	for _, e := range strings.Split(v, ",") {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		right, scope, ok := strings.Cut(e, ":")
		if !ok || right == "" || scope == "" {
			log.Warn("SIGNALTTY_UNKNOWN_GRANTS: skipping an entry that is not RIGHT:SCOPE", "entry", e)
			continue
		}
		out = append(out, service.Grant{Right: right, Scope: scope})
	}
	return out
}

package main

import (
	"fmt"
	"io"

	srv "github.com/signaltty/signaltty/varlink/devsignalttyserver"
)

// writeDenials is doctor's section on authorization: requests denied
// since the daemon started, by verb (docs/security.md, "Audit").
func writeDenials(w io.Writer, s srv.Status) {
	if s.Denials == nil || len(*s.Denials) == 0 {
		fmt.Fprintf(w, "denied requests: none\n")
		return
	}
	total := int64(0)
	for _, d := range *s.Denials {
		total += d.Count
	}
	fmt.Fprintf(w, "denied requests: %d (each logged at notice level with principal, verb and resource)\n", total)
	for _, d := range *s.Denials {
		fmt.Fprintf(w, "    %s: %d\n", d.Verb, d.Count)
	}
}

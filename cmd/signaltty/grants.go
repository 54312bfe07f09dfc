package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// grantFlag adds --grant RIGHT:SCOPE (repeatable): the grants of the new
// pane's principal (docs/security.md).
func grantFlag(f *pflag.FlagSet) {
	f.StringArray("grant", nil, "RIGHT:SCOPE for the new pane's principal, e.g. read:* or write:pane:P (repeatable; default read, write and spawn on self, spawn on home)")
}

// addGrants puts --grant values into p as "grants".
func addGrants(cmd *cobra.Command, p map[string]any) error {
	gs := arrayFlag(cmd.Flags(), "grant")
	if !cmd.Flags().Changed("grant") {
		return nil
	}
	out := []map[string]string{}
	for _, g := range gs {
		right, scope, ok := strings.Cut(g, ":")
		if !ok || right == "" || scope == "" {
			return &callError{Code: "invalid_params.grants", Message: fmt.Sprintf("--grant %q is not RIGHT:SCOPE", g),
				Data: map[string]any{"param": "grants", "reason": "syntax"}}
		}
		out = append(out, map[string]string{"right": right, "scope": scope})
	}
	p["grants"] = out
	return nil
}

package main

import (
	"io"

	"github.com/signaltty/signaltty/varlink/mcpschema"
	"github.com/spf13/cobra"
)

func skillCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "skill",
		Short: "Print the agent skill guide (SKILL.md) for using signaltty",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := io.WriteString(a.out, mcpschema.Skill())
			return err
		},
	}
}

// version is the signaltty version, set by the build (meson: -X main.version).
var version = "0.1.0"

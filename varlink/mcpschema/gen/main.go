package main

import (
	"fmt"
	"os"

	"github.com/signaltty/signaltty/varlink/mcpschema"
)

func main() {
	tools, skill, err := mcpschema.Generate(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpschema/gen:", err)
		os.Exit(1)
	}
	for name, b := range map[string][]byte{mcpschema.ToolsFile: tools, mcpschema.SkillFile: skill} {
		if err := os.WriteFile(name, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "mcpschema/gen:", err)
			os.Exit(1)
		}
	}
}

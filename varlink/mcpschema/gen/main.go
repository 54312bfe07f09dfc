// Command gen writes tools.json and SKILL.md of package mcpschema from the
// varlink IDL. Run it with `go generate ./varlink/...` (from the package
// directory).
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

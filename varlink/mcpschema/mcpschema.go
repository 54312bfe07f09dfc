package mcpschema

import (
	_ "embed"
	"encoding/json"
)

//go:generate go run ./gen

// Tool is one MCP tool as generated into tools.json.
type Tool struct {
	// Name is the MCP tool name, e.g. "run_wait".
	Name string `json:"name"`
	// Method is the varlink method it calls, e.g. "dev.signaltty.Run.Wait".
	Method string `json:"method"`
	// CLI is the signaltty command that makes the same call.
	CLI string `json:"cli"`
	// Description is the hint for agents, a blank line, then MethodDoc
	// with the parts MCP changes replaced (tools.go, tool.doc).
	Description string `json:"description"`
	// MethodDoc is the method's comment in the IDL.
	MethodDoc string `json:"method_doc"`
	// Annotations are MCP's tool annotations (readOnlyHint,
	// destructiveHint, idempotentHint).
	Annotations map[string]bool `json:"annotations"`
	// InputSchema and OutputSchema are JSON Schema (2020-12) objects: the
	// method's parameters and its reply.
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	// Omit are the reply's fields the MCP server leaves out, as dotted
	// paths ("record.output.offset"); OmitDefault those it leaves out when
	// they have the given value (docs/mcp.md, "Small results"). The output
	// schema has neither as required.
	Omit        []string       `json:"omit,omitempty"`
	OmitDefault map[string]any `json:"omit_default,omitempty"`
}

//go:embed tools.json
var toolsJSON []byte

//go:embed SKILL.md
var skill string

// Tools returns the generated tools in the order of the table in tools.go
// (tools/list sorts them by name).
func Tools() []Tool {
	var ts []Tool
	if err := json.Unmarshal(toolsJSON, &ts); err != nil {
		panic("mcpschema: tools.json: " + err.Error())
	}
	return ts
}

// Skill returns the generated agent skill guide (SKILL.md).
func Skill() string { return skill }

package mcpschema

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// TestGeneratedFilesMatchTheIDL regenerates tools.json and SKILL.md from
// the varlink IDL and fails when the committed files differ (run
// `go generate ./varlink/...`).
func TestGeneratedFilesMatchTheIDL(t *testing.T) {
	tools, skill, err := Generate(".")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]byte{ToolsFile: tools, SkillFile: skill} {
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what the IDL generates; run go generate ./varlink/...", name)
		}
	}
}

// TestEveryToolHasSchemasOfObjects checks what MCP requires of tools.
func TestEveryToolHasSchemasOfObjects(t *testing.T) {
	ts := Tools()
	if len(ts) != len(tools) {
		t.Fatalf("tools.json has %d tools, the table %d", len(ts), len(tools))
	}
	for _, tl := range ts {
		for what, raw := range map[string]json.RawMessage{"input": tl.InputSchema, "output": tl.OutputSchema} {
			var s struct{ Type string }
			if err := json.Unmarshal(raw, &s); err != nil || s.Type != "object" {
				t.Errorf("%s: %s schema is not an object: %s", tl.Name, what, raw)
			}
		}
		if tl.Description == "" || tl.MethodDoc == "" {
			t.Errorf("%s: no description", tl.Name)
		}
	}
}

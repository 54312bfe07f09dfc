package mcpschema

import (
	"bytes"
	"fmt"
	"strings"
)

// skillGuide is the hand-written preface followed by one section per tool:
// its CLI command, MCP tool, varlink method and the method's IDL comment.
func skillGuide(preface []byte, ts []Tool) []byte {
	var b bytes.Buffer
	b.Write(bytes.TrimRight(preface, "\n"))
	b.WriteString("\n\n## Commands\n\n")
	b.WriteString("Generated from the daemon's varlink interface descriptions. Parameters\n" +
		"are flags of the same name with \"-\" for \"_\" (`deadline_ms` is `--deadline-ms`).\n")
	for _, t := range ts {
		fmt.Fprintf(&b, "\n### %s\n\n`%s`\n\nMCP tool `%s`, varlink `%s`.\n\n", strings.TrimPrefix(commandName(t.CLI), "signaltty "), t.CLI, t.Name, t.Method)
		hint, _, _ := strings.Cut(t.Description, "\n\n")
		b.WriteString(hint + "\n\n")
		for _, l := range strings.Split(t.MethodDoc, "\n") {
			b.WriteString(strings.TrimRight("    "+l, " ") + "\n")
		}
	}
	return b.Bytes()
}

// commandName is the command words of a usage line: "signaltty run wait".
func commandName(usage string) string {
	var words []string
	for _, w := range strings.Fields(usage) {
		if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "(") || strings.HasPrefix(w, "[") {
			break
		}
		words = append(words, w)
	}
	return strings.Join(words, " ")
}

package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/signaltty/signaltty/varlink/mcpschema"
)

// connectMCP serves a's tools in memory and returns a client session.
func connectMCP(t *testing.T, a *app) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	go func() { _ = a.serveMCP(t.Context(), mcpWaitCap, st) }()
	s, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestMCPListsEveryGeneratedTool(t *testing.T) {
	s := connectMCP(t, &app{address: "unix:/nonexistent/signaltty.sock"})
	res, err := s.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := mcpschema.Tools()
	if len(res.Tools) != len(want) {
		t.Fatalf("%d tools, want %d", len(res.Tools), len(want))
	}
	names := map[string]bool{}
	for _, tl := range want {
		names[tl.Name] = true
	}
	for _, tl := range res.Tools {
		if !names[tl.Name] || tl.OutputSchema == nil || tl.Annotations == nil {
			t.Errorf("tool %s: generated %v, output schema %v, annotations %v", tl.Name, names[tl.Name], tl.OutputSchema != nil, tl.Annotations != nil)
		}
	}
}

// A failed call is a tool error whose text is the line --json prints.
func TestMCPToolErrorIsTheJSONErrorLine(t *testing.T) {
	t.Setenv("SIGNALTTY_NO_AUTOSTART", "1")
	addr := "unix:/nonexistent/signaltty.sock"
	s := connectMCP(t, &app{address: addr})
	res, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "status"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	code := executeWith(t, &out, "--address", addr, "--json", "status")
	if !res.IsError || code != 6 {
		t.Fatalf("isError %v, CLI exit %d", res.IsError, code)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if text != strings.TrimSuffix(out.String(), "\n") {
		t.Fatalf("MCP %s\nCLI %s", text, out.String())
	}
	var e struct{ Error callError }
	if err := json.Unmarshal([]byte(text), &e); err != nil || e.Error.Code != "unavailable.daemon" {
		t.Fatalf("%s: %v", text, err)
	}
}

func executeWith(t *testing.T, out *bytes.Buffer, args ...string) int {
	t.Helper()
	var errw bytes.Buffer
	return executeTo(args, out, &errw)
}

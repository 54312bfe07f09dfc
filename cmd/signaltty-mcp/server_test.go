package main

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/signaltty/signaltty/cmd/internal/daemon"
	"github.com/signaltty/signaltty/service/request"
	"github.com/signaltty/signaltty/varlink/mcpschema"
)

// connectMCP serves a's tools in memory and returns a client session.
func connectMCP(t *testing.T, a *server) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	go func() { _ = a.serve(t.Context(), st) }()
	s, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestMCPListsEveryGeneratedTool(t *testing.T) {
	s := connectMCP(t, &server{address: "unix:/nonexistent/signaltty.sock", waitCap: request.MCPWaitCapMs})
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

// A failed call is a tool error whose text is the line --json prints (the
// CLI prints daemon.Error.JSON too; tests/mcp_test.go compares the two
// programs' output).
func TestMCPToolErrorIsTheJSONErrorLine(t *testing.T) {
	t.Setenv("SIGNALTTY_NO_AUTOSTART", "1")
	addr := "unix:/nonexistent/signaltty.sock"
	s := connectMCP(t, &server{address: addr, waitCap: request.MCPWaitCapMs})
	res, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "status"})
	if err != nil {
		t.Fatal(err)
	}
	_, derr := daemon.Call(t.Context(), addr, "dev.signaltty.Server.GetStatus", map[string]any{})
	if !res.IsError || derr == nil {
		t.Fatalf("isError %v, direct call error %v", res.IsError, derr)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if want := string(daemon.AsError(derr, "internal").JSON()); text != want {
		t.Fatalf("MCP    %s\nwant   %s", text, want)
	}
	var e struct{ Error daemon.Error }
	if err := json.Unmarshal([]byte(text), &e); err != nil || e.Error.Code != "unavailable.daemon" {
		t.Fatalf("%s: %v", text, err)
	}
}

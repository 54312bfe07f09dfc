package harness

import (
	"context"
	"encoding/json"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP is a client session with `signaltty mcp` run as a child process
// over stdio, with the SDK's own client.
type MCP struct {
	Session *mcp.ClientSession
	// CallDeadline bounds one tool call (CallTimeout when 0); raise it for
	// a server started with a long --wait-cap-ms.
	CallDeadline time.Duration
	d            *Daemon
}

// StartMCP runs `signaltty mcp args...` with env (the daemon's client
// environment when nil) and connects to it; it is closed at cleanup.
func (d *Daemon) StartMCP(t testing.TB, env []string, args ...string) *MCP {
	t.Helper()
	if env == nil {
		env = d.ClientEnv()
	}
	return &MCP{Session: StartMCPWith(t, Bin(t, "signaltty"), env, args...), d: d}
}

// StartMCPClient is StartMCP with the client's options (a progress
// notification handler, say).
func (d *Daemon) StartMCPClient(t testing.TB, env []string, opts *mcp.ClientOptions, args ...string) *MCP {
	t.Helper()
	if env == nil {
		env = d.ClientEnv()
	}
	return &MCP{Session: startMCP(t, Bin(t, "signaltty"), env, opts, args...), d: d}
}

// StartMCPWith runs `cli mcp args...` (an installed signaltty, say) with env
// and connects to it; it is closed at cleanup.
func StartMCPWith(t testing.TB, cli string, env []string, args ...string) *mcp.ClientSession {
	t.Helper()
	return startMCP(t, cli, env, nil, args...)
}

func startMCP(t testing.TB, cli string, env []string, opts *mcp.ClientOptions, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(cli, append([]string{"mcp"}, args...)...)
	cmd.Env = env
	client := mcp.NewClient(&mcp.Implementation{Name: "signaltty-tests", Version: "0"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), CallTimeout)
	defer cancel()
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to signaltty mcp: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// ToolResult is one tools/call result: the text of its one content block,
// its structured content re-encoded, and isError.
type ToolResult struct {
	Text       string
	Structured string
	IsError    bool
}

// Call calls a tool; the test fails on a protocol error (not on a tool error).
func (m *MCP) Call(t testing.TB, name string, args map[string]any) ToolResult {
	t.Helper()
	return m.CallWith(t, &mcp.CallToolParams{Name: name, Arguments: args})
}

// CallWith is Call with the request's parameters (a progress token, say).
func (m *MCP) CallWith(t testing.TB, p *mcp.CallToolParams) ToolResult {
	t.Helper()
	name, args := p.Name, p.Arguments
	limit := CallTimeout
	if m.CallDeadline > 0 {
		limit = m.CallDeadline
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	res, err := m.Session.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("tools/call %s %v: %v", name, args, err)
	}
	var r ToolResult
	r.IsError = res.IsError
	if len(res.Content) != 1 {
		t.Fatalf("tools/call %s: want one content block, got %d", name, len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("tools/call %s: content is %T, not text", name, res.Content[0])
	}
	r.Text = tc.Text
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		r.Structured = string(b)
	}
	if m.d != nil {
		m.d.record("mcp %s %s → isError=%v %s", name, mustJSON(args), r.IsError, clip(r.Text))
	}
	return r
}

// Normalized values: what differs between two identical requests (ids,
// times, pids) is replaced by a placeholder, so a CLI reply and an MCP
// result for the same request compare equal byte for byte.
var (
	normalizedKeys = map[string]bool{"run": true, "pane": true, "tab": true, "id": true, "key": true, "pid": true,
		"started_at": true, "completed_at": true, "created_at": true, "exited_at": true, "duration_ms": true,
		"active_pane": true, "active_tab": true, "uptime_ms": true, "seq": true, "tabs": true,
		// A status's persistence changes when the daemon saves by itself
		// (at most 2 s after a change) between the two requests.
		"dirty": true, "last_saved_at": true, "last_bytes": true, "last_ms": true}
	// Run keys of such pairs are "cli-N" and "mcp-N".
	idPattern = regexp.MustCompile(`\b(r[0-9]+|pane_[A-Za-z0-9_-]+|tab_[A-Za-z0-9_-]+|(cli|mcp)-[0-9]+)\b`)
)

// Normalize returns JSON text with sorted keys and the values of
// normalizedKeys (and ids inside strings) replaced by placeholders.
func Normalize(t testing.TB, text string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("not JSON: %v: %q", err, text)
	}
	b, _ := json.Marshal(normalize(v, ""))
	return string(b)
}

func normalize(v any, key string) any {
	if normalizedKeys[key] && v != nil {
		return "<" + key + ">"
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := map[string]any{}
		for _, k := range keys {
			out[k] = normalize(x[k], k)
		}
		return out
	case []any:
		for i := range x {
			x[i] = normalize(x[i], "")
		}
		return x
	case string:
		return idPattern.ReplaceAllStringFunc(x, func(s string) string {
			if strings.HasPrefix(s, "cli-") || strings.HasPrefix(s, "mcp-") {
				return "<key>"
			}
			return "<" + s[:1] + ">"
		})
	}
	return v
}

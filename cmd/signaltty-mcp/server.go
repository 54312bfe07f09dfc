package main

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/signaltty/signaltty/cmd/internal/daemon"
	"github.com/signaltty/signaltty/varlink/mcpschema"
)

// mcpWaitCap is the longest run_wait in MCP, in ms: common MCP clients give
// up on a tool call after about 60 s, so a wait ends before that with
// timeout.wait and the agent calls again (docs/mcp.md).
const mcpWaitCap = 50000

// server serves the tools for one MCP session against the daemon at address.
type server struct {
	address string
	waitCap int64 // the longest run_wait and pane_wait, in ms
}

// newMCPServer returns the MCP server with one tool per generated entry of
// package mcpschema.
func (a *server) newMCPServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "signaltty", Title: "signaltty", Version: version}, &mcp.ServerOptions{
		Instructions: "signaltty runs commands in terminal panes owned by its daemon. Start a command with run (a unique key makes a retry safe), " +
			"wait for it with run_wait (call again on timeout.wait), trust outcome and status, read more rows with pane_capture, remove finished panes.",
	})
	for _, t := range mcpschema.Tools() {
		mcp.AddTool(s, &mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema,
			Annotations: toolAnnotations(t.Annotations)}, a.toolHandler(t))
	}
	s.AddReceivingMiddleware(argumentErrors)
	return s
}

// toolAnnotations turns the generated annotations into the SDK's.
func toolAnnotations(a map[string]bool) *mcp.ToolAnnotations {
	ann := &mcp.ToolAnnotations{ReadOnlyHint: a["readOnlyHint"], IdempotentHint: a["idempotentHint"]}
	if d, ok := a["destructiveHint"]; ok {
		ann.DestructiveHint = &d
	}
	return ann
}

// serveMCP serves MCP on transport until the client goes away or ctx ends.
func (a *server) serve(ctx context.Context, transport mcp.Transport) error {
	err := a.newMCPServer().Run(ctx, transport)
	if err != nil && (ctx.Err() != nil || errors.Is(err, mcp.ErrConnectionClosed)) {
		return nil
	}
	return err
}

// toolHandler makes t's varlink call with the tool's arguments as its
// parameters. The result is the reply the CLI prints with --json: the
// structured content, and the same bytes as its text.
func (a *server) toolHandler(t mcpschema.Tool) mcp.ToolHandlerFor[map[string]any, json.RawMessage] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, json.RawMessage, error) {
		if in == nil {
			in = map[string]any{}
		}
		var raw json.RawMessage
		var err error
		if t.Method == "dev.signaltty.Run.Wait" {
			if ms, ok := in["timeout_ms"].(float64); !ok || ms > float64(a.waitCap) {
				in["timeout_ms"] = a.waitCap
			}
			raw, err = a.waitRun(ctx, in)
		} else if t.Method == "dev.signaltty.Mux.Wait" { // the same cap: call again on timeout.wait
			if ms, ok := in["timeout_ms"].(float64); !ok || ms > float64(a.waitCap) {
				in["timeout_ms"] = a.waitCap
			}
			raw, err = daemon.Call(ctx, a.address, t.Method, in)
		} else {
			raw, err = daemon.Call(ctx, a.address, t.Method, in)
		}
		if err != nil {
			return nil, nil, &toolError{daemon.AsError(err, "internal")}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(daemon.Compact(raw))}}}, raw, nil
	}
}

// toolError is a failed call as an MCP tool error: its text is the line
// --json prints for it.
type toolError struct{ ce *daemon.Error }

func (e *toolError) Error() string { return string(e.ce.JSON()) }

// argumentErrors gives arguments the SDK rejected (a wrong type, an unknown
// or missing parameter) the same shape as the daemon's errors:
// invalid_params.arguments with the validator's message.
func argumentErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		r, ok := res.(*mcp.CallToolResult)
		if err != nil || !ok || !r.IsError {
			return res, err
		}
		var te *toolError
		if errors.As(r.GetError(), &te) {
			return res, err
		}
		msg := ""
		if r.GetError() != nil {
			msg = r.GetError().Error()
		}
		ce := &daemon.Error{Code: "invalid_params.arguments", Message: msg, Data: map[string]any{}}
		r.Content = []mcp.Content{&mcp.TextContent{Text: string(ce.JSON())}}
		return r, nil
	}
}

// waitRun makes Run.Wait on a connection of its own.
func (a *server) waitRun(ctx context.Context, p map[string]any) (json.RawMessage, error) {
	c, err := daemon.Dial(ctx, a.address)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.WaitRun(ctx, p)
}

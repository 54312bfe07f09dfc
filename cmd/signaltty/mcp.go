package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/signaltty/signaltty/varlink/mcpschema"
	"github.com/spf13/cobra"
)

// mcpWaitCap is the longest run_wait in MCP, in ms: common MCP clients give
// up on a tool call after about 60 s, so a wait ends before that with
// timeout.wait and the agent calls again (docs/mcp.md).
const mcpWaitCap = 50000

func mcpCmd(a *app) *cobra.Command {
	var waitCap int64
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the daemon's runs, panes and workspaces as MCP tools over stdio",
		Long: `Run a Model Context Protocol server on standard input and output. Each tool
makes the varlink call of the signaltty command of the same name (run,
run_wait, pane_capture, ...) and returns exactly the record that command
prints with --json, as structured content and as JSON text; a failure is a
tool error whose text is the --json error line {"error":{code,message,data}}.
run_wait waits at most 50000 ms per call (MCP clients' call limits).
Register it with an agent: claude mcp add signaltty -- signaltty mcp.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if waitCap <= 0 || waitCap > mcpWaitCap {
				waitCap = mcpWaitCap
			}
			return a.serveMCP(cmd.Context(), waitCap, &mcp.StdioTransport{})
		},
	}
	// For tests: a lower run_wait cap keeps a suite fast. It cannot raise it.
	c.Flags().Int64Var(&waitCap, "wait-cap-ms", mcpWaitCap, "longest run_wait in ms (at most 50000)")
	_ = c.Flags().MarkHidden("wait-cap-ms")
	return c
}

// newMCPServer returns the MCP server with one tool per generated entry of
// package mcpschema.
func (a *app) newMCPServer(waitCap int64) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "signaltty", Title: "signaltty", Version: version}, &mcp.ServerOptions{
		Instructions: "signaltty runs commands in terminal panes owned by its daemon. Start a command with run (a unique key makes a retry safe), " +
			"wait for it with run_wait (call again on timeout.wait), trust outcome and status, read more rows with pane_capture, remove finished panes.",
	})
	for _, t := range mcpschema.Tools() {
		mcp.AddTool(s, &mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema,
			Annotations: toolAnnotations(t.Annotations)}, a.toolHandler(t, waitCap))
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
func (a *app) serveMCP(ctx context.Context, waitCap int64, transport mcp.Transport) error {
	err := a.newMCPServer(waitCap).Run(ctx, transport)
	if err != nil && (ctx.Err() != nil || errors.Is(err, mcp.ErrConnectionClosed)) {
		return nil
	}
	return err
}

// toolHandler makes t's varlink call with the tool's arguments as its
// parameters. The result is the reply the CLI prints with --json: the
// structured content, and the same bytes as its text.
func (a *app) toolHandler(t mcpschema.Tool, waitCap int64) mcp.ToolHandlerFor[map[string]any, json.RawMessage] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, json.RawMessage, error) {
		if in == nil {
			in = map[string]any{}
		}
		var raw json.RawMessage
		var err error
		if t.Method == "dev.signaltty.Run.Wait" {
			if ms, ok := in["timeout_ms"].(float64); !ok || ms > float64(waitCap) {
				in["timeout_ms"] = waitCap
			}
			raw, err = a.waitRun(ctx, in)
		} else if t.Method == "dev.signaltty.Mux.Wait" { // the same cap: call again on timeout.wait
			if ms, ok := in["timeout_ms"].(float64); !ok || ms > float64(waitCap) {
				in["timeout_ms"] = waitCap
			}
			raw, err = a.call(ctx, t.Method, in)
		} else {
			raw, err = a.call(ctx, t.Method, in)
		}
		if err != nil {
			return nil, nil, &toolError{asCallError(err, "internal")}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(compact(raw))}}}, raw, nil
	}
}

// toolError is a failed call as an MCP tool error: its text is the line
// --json prints for it.
type toolError struct{ ce *callError }

func (e *toolError) Error() string { return string(errorJSON(e.ce)) }

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
		ce := &callError{Code: "invalid_params.arguments", Message: msg, Data: map[string]any{}}
		r.Content = []mcp.Content{&mcp.TextContent{Text: string(errorJSON(ce))}}
		return r, nil
	}
}

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

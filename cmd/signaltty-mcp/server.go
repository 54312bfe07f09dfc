package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/signaltty/signaltty/cmd/internal/daemon"
	"github.com/signaltty/signaltty/varlink/mcpschema"
)

// progressEvery is how often a wait sends a progress notification when the
// client gave a progress token.
const progressEvery = 5 * time.Second

// server serves the tools for one MCP session against the daemon at address.
type server struct {
	address string
	waitCap int64 // the longest run_wait and pane_wait, in ms
	budget  int   // the most bytes of text a result has (resultBudget)
}

// newMCPServer returns the MCP server with one tool per generated entry of
// package mcpschema.
func (a *server) newMCPServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "signaltty", Title: "signaltty", Version: version}, &mcp.ServerOptions{
		Instructions: "signaltty runs commands in terminal panes owned by its daemon. Start a command with run (a unique key makes a retry safe), " +
			"wait for it with run_wait (call again while its result says wait_ended \"timeout\"), trust outcome and status, read more rows with pane_capture, remove finished panes. " +
			"Drive an interactive program (a REPL, a prompt, an installer) with pane_send_wait: it types the input and waits for a matching row or a quiet screen in one call.",
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
	return func(ctx context.Context, req *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, json.RawMessage, error) {
		if in == nil {
			in = map[string]any{}
		}
		if trimsByDefault[t.Method] {
			if _, ok := in["trim"]; !ok {
				in["trim"] = true
			}
		}
		var raw json.RawMessage
		var err error
		switch t.Method {
		case "dev.signaltty.Run.Wait", "dev.signaltty.Mux.Wait", "dev.signaltty.Mux.WaitOutput", "dev.signaltty.Mux.SendWait":
			if ms, ok := in["timeout_ms"].(float64); !ok || ms > float64(a.waitCap) {
				in["timeout_ms"] = a.waitCap
			}
			stop := a.reportProgress(ctx, req, t.Name, in)
			switch t.Method {
			case "dev.signaltty.Run.Wait":
				raw, err = a.waitRun(ctx, in)
			case "dev.signaltty.Mux.Wait":
				raw, err = a.waitPane(ctx, in)
			default:
				raw, err = a.waitOutput(ctx, t.Method, in)
			}
			stop()
		case "dev.signaltty.Mux.CaptureRows":
			raw, err = a.capturePage(ctx, in)
		case "dev.signaltty.Run.List":
			raw, err = a.listRuns(ctx, in)
		default:
			raw, err = daemon.Call(ctx, a.address, t.Method, in)
		}
		if err == nil {
			if c := daemon.Compact(raw); c != nil {
				raw = c
			}
			raw, err = a.withinBudget(t, in, smaller(t, raw))
		}
		if err != nil {
			return nil, nil, &toolError{daemon.AsError(err, "internal")}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}}, raw, nil
	}
}

// reportProgress sends a progress notification every progressEvery while
// a wait lasts, when the client's request carries a progress token; the
// returned function stops it. progress is the time waited in seconds.
func (a *server) reportProgress(ctx context.Context, req *mcp.CallToolRequest, tool string, in map[string]any) (stop func()) {
	if req == nil || req.Params == nil || req.Session == nil || req.Params.GetProgressToken() == nil {
		return func() {}
	}
	token := req.Params.GetProgressToken()
	what, _ := in["run"].(string)
	if what == "" {
		what, _ = in["pane"].(string)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		start := time.Now()
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				waited := time.Since(start)
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token,
					Progress: waited.Seconds(), Message: fmt.Sprintf("%s %s: still waiting after %d s", tool, what, int(waited.Seconds()))})
			}
		}
	}()
	return func() { cancel(); <-done }
}

// trimsByDefault are the methods whose rows MCP asks without trailing
// spaces unless the caller passes trim false (docs/mcp.md, "Small results").
var trimsByDefault = map[string]bool{"dev.signaltty.Run.Wait": true, "dev.signaltty.Run.Get": true, "dev.signaltty.Mux.CaptureRows": true}

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

// waitRun makes Run.Wait on a connection of its own. A wait that ends
// before the run (timeout.wait) is not a failure: the result is the run's
// record as it is now (state running) with
// "wait_ended": "timeout" and "next", which says how to continue
// (docs/mcp.md, "Long waits").
func (a *server) waitRun(ctx context.Context, p map[string]any) (json.RawMessage, error) {
	c, err := daemon.Dial(ctx, a.address)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	raw, err := c.WaitRun(ctx, p)
	var ce *daemon.Error
	if err == nil || !errors.As(err, &ce) || ce.Code != "timeout.wait" {
		return raw, err
	}
	get := map[string]any{"run": p["run"], "output": true} // Wait's default
	for _, k := range []string{"output", "source", "trim"} {
		if v, ok := p[k]; ok {
			get[k] = v
		}
	}
	cur, gerr := c.Call(ctx, "dev.signaltty.Run.Get", get)
	if gerr != nil {
		return nil, err
	}
	rec, ok := parseObject(cur)
	record, _ := rec.get("record")
	if !ok {
		return nil, err
	}
	var now struct{ State, Pane string }
	if json.Unmarshal(record, &now) == nil && now.State == "completed" {
		return cur, nil // it completed between the timeout and Get
	}
	if now.Pane != "" {
		if screen, err := c.Call(ctx, "dev.signaltty.Mux.CaptureRows", map[string]any{"pane": now.Pane, "trim": p["trim"] != false}); err == nil {
			rec.set("output_so_far", withoutBlankEnd(screen))
		}
	}
	rec.set("wait_ended", "timeout")
	rec.set("next", fmt.Sprintf("The run is still running and keeps running: call run_wait again with run %q (and the same source) to go on waiting, run_cancel to stop it.", p["run"]))
	return rec.marshal(), nil
}

// withoutBlankEnd is a CaptureRows reply of trimmed rows without its
// empty last lines (the screen below the output so far): lines are then
// rows [first, first+len(lines)), the rows after them blank.
func withoutBlankEnd(screen json.RawMessage) json.RawMessage {
	o, ok := parseObject(screen)
	var lines []string
	if raw, has := o.get("lines"); !ok || !has || json.Unmarshal(raw, &lines) != nil {
		return screen
	}
	n := len(lines)
	for n > 0 && lines[n-1] == "" {
		n--
	}
	if n == len(lines) {
		return screen
	}
	o.set("lines", lines[:n])
	return o.marshal()
}

// waitPane makes Mux.Wait. A wait that ends at its cap (timeout.wait) is
// not a failure: the result has outcome and wait_ended "timeout", the
// pane's lifecycle and attention, baseline (the after given, else the
// pane's wait_baseline now) and next (docs/mcp.md, "Long waits").
func (a *server) waitPane(ctx context.Context, p map[string]any) (json.RawMessage, error) {
	raw, err := daemon.Call(ctx, a.address, "dev.signaltty.Mux.Wait", p)
	var ce *daemon.Error
	if err == nil || !errors.As(err, &ce) || ce.Code != "timeout.wait" {
		return raw, err
	}
	base, ok := p["after"]
	if !ok {
		cur, gerr := daemon.Call(ctx, a.address, "dev.signaltty.Mux.GetPane", map[string]any{"pane": p["pane"]})
		var got struct {
			Pane struct {
				WaitBaseline json.RawMessage `json:"wait_baseline"`
			}
		}
		if gerr != nil || json.Unmarshal(cur, &got) != nil || len(got.Pane.WaitBaseline) == 0 {
			return nil, err
		}
		base = got.Pane.WaitBaseline
	}
	return json.Marshal(map[string]any{"outcome": "timeout", "transition_seq": 0, "lifecycle": ce.Data["lifecycle"],
		"attention": ce.Data["attention"], "baseline": base, "wait_ended": "timeout",
		"next": fmt.Sprintf("The pane reached none of the states yet: call pane_wait again with pane %q, the same until and baseline as after to go on waiting.", p["pane"])})
}

// waitOutput makes Mux.WaitOutput or Mux.SendWait. Outcome "timeout" (the
// cap) is a normal reply already; next says how to continue.
func (a *server) waitOutput(ctx context.Context, method string, p map[string]any) (json.RawMessage, error) {
	raw, err := daemon.Call(ctx, a.address, method, p)
	if err != nil {
		return raw, err
	}
	var r map[string]json.RawMessage
	if json.Unmarshal(raw, &r) != nil || string(r["outcome"]) != `"timeout"` {
		return raw, nil
	}
	next, _ := json.Marshal(fmt.Sprintf("Nothing ended the wait yet; lines are the rows changed so far: call pane_wait_output with pane %q, the same match and quiet_ms, and baseline as after to go on waiting.", p["pane"]))
	r["next"] = next
	return json.Marshal(r)
}

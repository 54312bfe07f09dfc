package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"github.com/signaltty/signaltty/cmd/internal/daemon"
	"github.com/signaltty/signaltty/varlink/mcpschema"
)

// defaultResultTokens is Claude Code's default cap on one MCP tool result,
// in tokens: MAX_MCP_OUTPUT_TOKENS, 25,000 unless set (docs/mcp.md,
// "Result size").
const defaultResultTokens = 25000

// bytesPerToken is the estimate that turns a token cap into bytes of
// result text: 2, below what terminal rows in JSON take per token (about
// 2.5 to 4), so a budget in bytes stays under the cap in tokens
// (docs/mcp.md, "Result size").
const bytesPerToken = 2

// pageReserve is what a page's budget keeps for the reply's fields other
// than its lines and for continue_with and the note, in bytes.
const pageReserve = 1024

// resultBudget is the most bytes of text one tool result should have:
// $MAX_MCP_OUTPUT_TOKENS (a positive integer; else 25,000) tokens at
// bytesPerToken each. The same variable sets Claude Code's cap, and MCP
// servers inherit the client's environment.
func resultBudget() int {
	tokens := defaultResultTokens
	if v, err := strconv.Atoi(os.Getenv("MAX_MCP_OUTPUT_TOKENS")); err == nil && v > 0 {
		tokens = v
	}
	return tokens * bytesPerToken
}

// capturePage makes Mux.CaptureRows with max_bytes within the result
// budget, so the rows are cut at a row boundary rather than the result
// growing past it (docs/mcp.md, "Result size"). A cut result (cut true)
// gains continue_with, the arguments of the next page (start = next, the
// same end, the epoch), and a note saying so; the caller passes the same
// other arguments (trim, escapes, clamp) again.
func (a *server) capturePage(ctx context.Context, in map[string]any) (json.RawMessage, error) {
	total := a.budget
	if total <= 0 {
		total = resultBudget()
	}
	budget := int64(max(total-pageReserve, 1))
	if mb, ok := in["max_bytes"].(float64); !ok || int64(mb) > budget {
		in["max_bytes"] = budget
	}
	raw, err := daemon.Call(ctx, a.address, "dev.signaltty.Mux.CaptureRows", in)
	if err != nil {
		return nil, err
	}
	var page struct {
		Cut   bool  `json:"cut"`
		Next  int64 `json:"next"`
		End   int64 `json:"end"`
		Epoch int64 `json:"epoch"`
	}
	if json.Unmarshal(raw, &page) != nil || !page.Cut {
		return raw, nil
	}
	var rec map[string]json.RawMessage
	if json.Unmarshal(raw, &rec) != nil {
		return raw, nil
	}
	end := page.End
	if e, ok := in["end"].(float64); ok {
		end = int64(e)
	}
	next := map[string]any{"pane": in["pane"], "start": page.Next, "end": end, "epoch": page.Epoch}
	for _, k := range []string{"trim", "escapes", "clamp"} {
		if v, ok := in[k]; ok {
			next[k] = v
		}
	}
	rec["continue_with"], _ = json.Marshal(next)
	rec["note"], _ = json.Marshal(fmt.Sprintf("Cut at row %d to keep this result under %d bytes: call pane_capture with continue_with for rows %d to %d.",
		page.Next, total, page.Next, end))
	return json.Marshal(rec)
}

// budgetBytes is the server's result budget in bytes.
func (a *server) budgetBytes() int {
	if a.budget > 0 {
		return a.budget
	}
	return resultBudget()
}

// withinBudget returns raw, a result of t for the arguments in, kept
// under the result budget: rows left out first (fitRows). A result that
// still does not fit, with no rows to leave out, fails
// unsupported.result_size rather than reach a client that refuses it
// (docs/mcp.md, "Result size").
func (a *server) withinBudget(t mcpschema.Tool, in map[string]any, raw json.RawMessage) (json.RawMessage, error) {
	budget := a.budgetBytes()
	if len(raw) <= budget {
		return raw, nil
	}
	pane, _ := in["pane"].(string)
	if pane == "" {
		var r struct{ Record struct{ Pane string } }
		_ = json.Unmarshal(raw, &r)
		pane = r.Record.Pane
	}
	raw = fitRows(t.Name, raw, pane, in["trim"] != false, budget)
	if len(raw) <= budget {
		return raw, nil
	}
	return nil, &daemon.Error{Code: "unsupported.result_size",
		Message: fmt.Sprintf("the result of %s is %d bytes, over this server's budget of %d (MAX_MCP_OUTPUT_TOKENS × %d): ask for less (a limit, pane_list_fields, output false)", t.Name, len(raw), budget, bytesPerToken),
		Data:    map[string]any{"bytes": len(raw), "budget": budget}}
}

// listRuns makes Run.List; a reply over the result budget is asked again
// with a smaller limit, so that it comes in pages (next, passed as after)
// rather than over the budget.
func (a *server) listRuns(ctx context.Context, in map[string]any) (json.RawMessage, error) {
	budget := a.budgetBytes() - pageReserve
	for {
		raw, err := daemon.Call(ctx, a.address, "dev.signaltty.Run.List", in)
		if err != nil || len(raw) <= budget {
			return raw, err
		}
		var l struct{ Runs []json.RawMessage }
		if json.Unmarshal(raw, &l) != nil || len(l.Runs) <= 1 {
			return raw, nil
		}
		in["limit"] = max(1, len(l.Runs)*budget/len(raw))
	}
}

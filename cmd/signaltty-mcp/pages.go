package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"github.com/signaltty/signaltty/cmd/internal/daemon"
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

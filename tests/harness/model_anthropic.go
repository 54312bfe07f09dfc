package harness

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The Anthropic Messages API as Claude Code calls it (POST /v1/messages,
// usually ?beta=true and "stream": true).

type anthropicRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

type anthropicBlock struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Name    string          `json:"name"`
	Content json.RawMessage `json:"content"`
}

// contentText is the text of a content value that is a string or a list
// of blocks with "text".
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []anthropicBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func (m *ModelServer) anthropic(w http.ResponseWriter, req *http.Request, body []byte) {
	var in anthropicRequest
	if err := json.Unmarshal(body, &in); err != nil {
		m.logUnknown("POST %s: not a Messages request: %v", req.URL.RequestURI(), err)
		http.Error(w, "bad request", 400)
		return
	}
	r := ModelRequest{API: "anthropic", Method: req.Method, Path: req.URL.RequestURI(), Model: in.Model, Stream: in.Stream, Body: string(body)}
	for _, tl := range in.Tools {
		r.Tools = append(r.Tools, tl.Name)
	}
	for _, msg := range in.Messages {
		var blocks []anthropicBlock
		if json.Unmarshal(msg.Content, &blocks) != nil {
			r.Messages = append(r.Messages, Message{Role: msg.Role, Text: contentText(msg.Content)})
			continue
		}
		var text []string
		for _, b := range blocks {
			switch b.Type {
			case "text":
				text = append(text, b.Text)
			case "tool_use":
				r.Messages = append(r.Messages, Message{Role: msg.Role, ToolCall: b.Name})
			case "tool_result":
				res := contentText(b.Content)
				if res == "" {
					res = "(empty)"
				}
				r.Messages = append(r.Messages, Message{Role: "tool", ToolResult: res})
			}
		}
		if len(text) > 0 {
			r.Messages = append(r.Messages, Message{Role: msg.Role, Text: strings.Join(text, "\n")})
		}
	}
	st := m.answer(&r)
	if st.ErrStatus != 0 {
		writeJSON(w, st.ErrStatus, map[string]any{"type": "error",
			"error": map[string]any{"type": anthropicErrorType(st.ErrStatus), "message": st.ErrMessage}})
		return
	}
	model := in.Model
	id := fmt.Sprintf("msg_%d", len(m.Requests()))
	var content []map[string]any
	if st.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": st.Text})
	}
	stop := "end_turn"
	if st.Tool != "" {
		content = append(content, map[string]any{"type": "tool_use", "id": "toolu_" + id, "name": st.Tool, "input": st.Input})
		stop = "tool_use"
	}
	usage := map[string]any{"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !in.Stream {
		writeJSON(w, 200, map[string]any{"id": id, "type": "message", "role": "assistant", "model": model,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	s := startSSE(w)
	s.send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 100, "output_tokens": 1}}})
	for i, c := range content {
		if c["type"] == "text" {
			s.send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			for _, piece := range chunks(st.Text) {
				s.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "text_delta", "text": piece}})
			}
		} else {
			s.send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": c["id"], "name": c["name"], "input": map[string]any{}}})
			s.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": inputJSON(st)}})
		}
		s.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	s.send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	s.send("message_stop", map[string]any{"type": "message_stop"})
}

func anthropicErrorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 429:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	}
	return "api_error"
}

package harness

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// The OpenAI Responses API (Codex: POST /v1/responses, streamed) and Chat
// Completions API (opencode, pi: POST /v1/chat/completions).

type responsesRequest struct {
	Model        string            `json:"model"`
	Stream       bool              `json:"stream"`
	Instructions string            `json:"instructions"`
	Input        []json.RawMessage `json:"input"`
	Tools        []struct {
		Type string `json:"type"`
		Name string `json:"name"`
		// Tools are a namespace's functions (Codex: one namespace per MCP
		// server), declared here as "<namespace>.<name>".
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	} `json:"tools"`
}

type responsesItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Name    string          `json:"name"`
	Output  json.RawMessage `json:"output"`
}

func (m *ModelServer) responses(w http.ResponseWriter, req *http.Request, body []byte) {
	var in responsesRequest
	if err := json.Unmarshal(body, &in); err != nil {
		m.logUnknown("POST %s: not a Responses request: %v", req.URL.RequestURI(), err)
		http.Error(w, "bad request", 400)
		return
	}
	r := ModelRequest{API: "responses", Method: req.Method, Path: req.URL.RequestURI(), Model: in.Model, Stream: in.Stream, Body: string(body)}
	for _, tl := range in.Tools {
		name := tl.Name
		if name == "" {
			name = tl.Type // local_shell, web_search…
		}
		r.Tools = append(r.Tools, name)
		for _, sub := range tl.Tools {
			r.Tools = append(r.Tools, name+"."+sub.Name)
		}
	}
	for _, raw := range in.Input {
		var it responsesItem
		if json.Unmarshal(raw, &it) != nil {
			continue
		}
		switch it.Type {
		case "message", "":
			r.Messages = append(r.Messages, Message{Role: it.Role, Text: contentText(it.Content)})
		case "function_call", "custom_tool_call", "local_shell_call":
			r.Messages = append(r.Messages, Message{Role: "assistant", ToolCall: it.Name})
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			res := contentText(it.Output)
			if res == "" {
				res = string(it.Output)
			}
			r.Messages = append(r.Messages, Message{Role: "tool", ToolResult: res})
		}
	}
	st := m.answer(&r)
	if st.ErrStatus != 0 {
		writeJSON(w, st.ErrStatus, map[string]any{"error": map[string]any{"message": st.ErrMessage,
			"type": "invalid_request_error", "code": nil}})
		return
	}
	n := len(m.Requests())
	id := fmt.Sprintf("resp_%d", n)
	var items []map[string]any
	if st.Text != "" {
		items = append(items, map[string]any{"type": "message", "id": fmt.Sprintf("msg_%d", n), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": st.Text, "annotations": []any{}}}})
	}
	if st.Tool != "" {
		call := map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", n), "call_id": fmt.Sprintf("call_%d", n),
			"name": st.Tool, "arguments": inputJSON(st), "status": "completed"}
		if ns, name, ok := strings.Cut(st.Tool, "."); ok { // a namespace's function
			call["namespace"], call["name"] = ns, name
		}
		items = append(items, call)
	}
	usage := map[string]any{"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 110}
	response := func(status string, output []map[string]any) map[string]any {
		return map[string]any{"id": id, "object": "response", "created_at": time.Now().Unix(), "status": status,
			"model": in.Model, "output": output, "usage": usage}
	}
	if !in.Stream {
		writeJSON(w, 200, response("completed", items))
		return
	}
	s := startSSE(w)
	seq := 0
	ev := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		s.send(typ, fields)
	}
	ev("response.created", map[string]any{"response": response("in_progress", []map[string]any{})})
	for i, it := range items {
		ev("response.output_item.added", map[string]any{"output_index": i, "item": it})
		if it["type"] == "message" {
			for _, piece := range chunks(st.Text) {
				ev("response.output_text.delta", map[string]any{"output_index": i, "content_index": 0, "item_id": it["id"], "delta": piece})
			}
		}
		ev("response.output_item.done", map[string]any{"output_index": i, "item": it})
	}
	ev("response.completed", map[string]any{"response": response("completed", items)})
}

type chatRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		ToolCalls []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func (m *ModelServer) chat(w http.ResponseWriter, req *http.Request, body []byte) {
	var in chatRequest
	if err := json.Unmarshal(body, &in); err != nil {
		m.logUnknown("POST %s: not a Chat Completions request: %v", req.URL.RequestURI(), err)
		http.Error(w, "bad request", 400)
		return
	}
	r := ModelRequest{API: "chat", Method: req.Method, Path: req.URL.RequestURI(), Model: in.Model, Stream: in.Stream, Body: string(body)}
	for _, tl := range in.Tools {
		r.Tools = append(r.Tools, tl.Function.Name)
	}
	for _, msg := range in.Messages {
		text := contentText(msg.Content)
		if msg.Role == "tool" {
			if text == "" {
				text = "(empty)"
			}
			r.Messages = append(r.Messages, Message{Role: "tool", ToolResult: text})
			continue
		}
		if text != "" {
			r.Messages = append(r.Messages, Message{Role: msg.Role, Text: text})
		}
		for _, tc := range msg.ToolCalls {
			r.Messages = append(r.Messages, Message{Role: msg.Role, ToolCall: tc.Function.Name})
		}
	}
	st := m.answer(&r)
	if st.ErrStatus != 0 {
		writeJSON(w, st.ErrStatus, map[string]any{"error": map[string]any{"message": st.ErrMessage,
			"type": "invalid_request_error", "code": nil}})
		return
	}
	n := len(m.Requests())
	id := fmt.Sprintf("chatcmpl-%d", n)
	created := time.Now().Unix()
	finish := "stop"
	var toolCalls []any
	if st.Tool != "" {
		finish = "tool_calls"
		toolCalls = []any{map[string]any{"index": 0, "id": fmt.Sprintf("call_%d", n), "type": "function",
			"function": map[string]any{"name": st.Tool, "arguments": inputJSON(st)}}}
	}
	usage := map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
	if !in.Stream {
		msg := map[string]any{"role": "assistant", "content": st.Text}
		if toolCalls != nil {
			msg["tool_calls"] = toolCalls
		}
		writeJSON(w, 200, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": in.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	s := startSSE(w)
	chunk := func(delta map[string]any, finish any, withUsage bool) {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": in.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if withUsage {
			c["usage"] = usage
		}
		s.send("", c)
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil, false)
	if st.Text != "" {
		for _, piece := range chunks(st.Text) {
			chunk(map[string]any{"content": piece}, nil, false)
		}
	}
	if toolCalls != nil {
		chunk(map[string]any{"tool_calls": toolCalls}, nil, false)
	}
	chunk(map[string]any{}, finish, true)
	s.send("", "[DONE]")
}

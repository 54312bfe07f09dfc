package harness

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The Gemini API as Gemini CLI calls it: POST
// /v1beta/models/MODEL:generateContent, :streamGenerateContent?alt=sse and
// :countTokens.

type geminiRequest struct {
	Contents []struct {
		Role  string       `json:"role"`
		Parts []geminiPart `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType string `json:"responseMimeType"`
	} `json:"generationConfig"`
}

type geminiPart struct {
	Text         string `json:"text"`
	Thought      bool   `json:"thought"`
	FunctionCall *struct {
		Name string `json:"name"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

func (m *ModelServer) gemini(w http.ResponseWriter, req *http.Request, body []byte) {
	p := req.URL.Path
	model, method, _ := strings.Cut(p[strings.LastIndex(p, "/models/")+len("/models/"):], ":")
	if method == "countTokens" {
		m.logRequest(ModelRequest{API: "count_tokens", Method: req.Method, Path: req.URL.RequestURI(), Model: model, Body: string(body)})
		writeJSON(w, 200, map[string]any{"totalTokens": 100})
		return
	}
	if method != "generateContent" && method != "streamGenerateContent" {
		m.logUnknown("%s %s", req.Method, req.URL.RequestURI())
		http.Error(w, "unknown method", 404)
		return
	}
	var in geminiRequest
	if err := json.Unmarshal(body, &in); err != nil {
		m.logUnknown("POST %s: not a generateContent request: %v", req.URL.RequestURI(), err)
		http.Error(w, "bad request", 400)
		return
	}
	r := ModelRequest{API: "gemini", Method: req.Method, Path: req.URL.RequestURI(), Model: model,
		Stream: method == "streamGenerateContent", Body: string(body)}
	for _, tl := range in.Tools {
		for _, f := range tl.FunctionDeclarations {
			r.Tools = append(r.Tools, f.Name)
		}
	}
	for _, c := range in.Contents {
		role := c.Role
		if role == "model" {
			role = "assistant"
		}
		var text []string
		for _, part := range c.Parts {
			switch {
			case part.FunctionCall != nil:
				r.Messages = append(r.Messages, Message{Role: role, ToolCall: part.FunctionCall.Name})
			case part.FunctionResponse != nil:
				r.Messages = append(r.Messages, Message{Role: "tool", ToolResult: string(part.FunctionResponse.Response)})
			case part.Text != "" && !part.Thought:
				text = append(text, part.Text)
			}
		}
		if len(text) > 0 {
			r.Messages = append(r.Messages, Message{Role: role, Text: strings.Join(text, "\n")})
		}
	}
	var st Step
	if in.GenerationConfig.ResponseMimeType == "application/json" {
		// Gemini CLI's own side questions (which model, who speaks next)
		// want JSON: one object answering each of them.
		r.Answer = "side"
		m.logRequest(r)
		st = Step{Text: `{"reasoning":"scripted","next_speaker":"user","model_choice":"flash","complexity_reasoning":"scripted","complexity_score":1}`}
	} else {
		st = m.answer(&r)
	}
	if st.ErrStatus != 0 {
		writeJSON(w, st.ErrStatus, map[string]any{"error": map[string]any{"code": st.ErrStatus,
			"message": st.ErrMessage, "status": geminiStatus(st.ErrStatus)}})
		return
	}
	var parts []map[string]any
	if st.Text != "" {
		parts = append(parts, map[string]any{"text": st.Text})
	}
	if st.Tool != "" {
		args := st.Input
		if args == nil {
			args = map[string]any{}
		}
		parts = append(parts, map[string]any{"functionCall": map[string]any{"name": st.Tool, "args": args}})
	}
	usage := map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110}
	resp := func(parts []map[string]any, finish bool) map[string]any {
		c := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		if finish {
			c["finishReason"] = "STOP"
		}
		return map[string]any{"candidates": []any{c}, "usageMetadata": usage, "modelVersion": model}
	}
	if !r.Stream {
		writeJSON(w, 200, resp(parts, true))
		return
	}
	s := startSSE(w)
	if st.Text != "" {
		pieces := chunks(st.Text)
		for i, piece := range pieces {
			s.send("", resp([]map[string]any{{"text": piece}}, st.Tool == "" && i == len(pieces)-1))
		}
	}
	if st.Tool != "" {
		s.send("", resp(parts[len(parts)-1:], true))
	}
}

func geminiStatus(status int) string {
	switch status {
	case 400:
		return "INVALID_ARGUMENT"
	case 401:
		return "UNAUTHENTICATED"
	case 403:
		return "PERMISSION_DENIED"
	case 429:
		return "RESOURCE_EXHAUSTED"
	case 503:
		return "UNAVAILABLE"
	}
	return "INTERNAL"
}

package harness

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// ModelServer is a scripted language-model server on 127.0.0.1 that speaks
// the APIs the real coding agents call (tests/agents_real_*_test.go):
//
//   - the Anthropic Messages API, streamed (SSE) or not, and its token
//     count (Claude Code: ANTHROPIC_BASE_URL);
//   - the Gemini API: generateContent, streamGenerateContent?alt=sse,
//     countTokens (Gemini CLI: GOOGLE_GEMINI_BASE_URL);
//   - the OpenAI Responses API, streamed (Codex: a model_providers entry
//     with wire_api = "responses");
//   - the OpenAI Chat Completions API, streamed or not (opencode with an
//     @ai-sdk/openai-compatible provider; pi with "api": "openai-completions"),
//     and a model list.
//
// What it answers comes from a script of Turns; every request is logged
// (Requests), so a test can assert what an agent sent. A request for any
// other path, or through the server as an HTTP proxy to another host (the
// agents get HTTPS_PROXY pointing here, see Env), is logged as Unknown and
// fails the test at cleanup.
type ModelServer struct {
	URL  string // http://127.0.0.1:PORT, no trailing slash
	Addr string // 127.0.0.1:PORT

	t  testing.TB
	ln net.Listener
	hs *http.Server

	mu       sync.Mutex
	turns    []Turn
	requests []ModelRequest
	unknown  []string
	allowed  map[string]bool // "METHOD host" tolerated through the proxy
	changed  chan struct{}   // closed and replaced when a request is logged
}

// Turn is the model's part of one exchange: when the newest user prompt of
// a request contains Prompt, the model answers with Steps[n], n being how
// many tool results follow that prompt in the request (so a tool call is
// Steps[0], its follow-up Steps[1]). Past the last step it answers with
// the last step's text, or "done".
type Turn struct {
	Prompt string
	Steps  []Step
}

// Step is one model answer: text, a tool call, or an API error.
type Step struct {
	Text string
	// Tool, when set, is a call of this tool (its name as the agent
	// declared it, e.g. "mcp__signaltty__run", "Bash", "shell") with Input
	// as its arguments; Text, when set too, comes before it. Names
	// separated by "|" are alternatives: the first the request declares.
	Tool  string
	Input map[string]any
	// ErrStatus, when not 0, answers with this HTTP status and an error
	// body in the API's shape, with ErrMessage.
	ErrStatus  int
	ErrMessage string
}

// Say is a turn answering prompt with text.
func Say(prompt, text string) Turn { return Turn{Prompt: prompt, Steps: []Step{{Text: text}}} }

// CallTool is a turn answering prompt with a call of tool, then text once the
// tool's result came back.
func CallTool(prompt, tool string, input map[string]any, then string) Turn {
	return Turn{Prompt: prompt, Steps: []Step{{Tool: tool, Input: input}, {Text: then}}}
}

// Fail is a turn answering prompt with an API error of HTTP status.
func Fail(prompt string, status int, message string) Turn {
	return Turn{Prompt: prompt, Steps: []Step{{ErrStatus: status, ErrMessage: message}}}
}

// ModelRequest is one logged request, with the conversation it carried in
// a form common to every API.
type ModelRequest struct {
	API      string // anthropic, gemini, responses, chat, models, count_tokens
	Method   string
	Path     string // with the query
	Model    string
	Stream   bool
	Tools    []string // the names of the tools it declared
	Messages []Message
	Body     string
	// Answer is what the server answered: the step's text, "tool:NAME",
	// "error:STATUS", or "side" (a request no turn matched).
	Answer string
}

// Message is one message of a request's conversation.
type Message struct {
	Role       string // user, assistant, tool, system
	Text       string // its text parts, joined by newlines
	ToolCall   string // the tool an assistant message called
	ToolResult string // a tool result's text
}

// StartModel starts a model server answering turns; it stops at cleanup,
// and the test fails then if any request went somewhere else.
func StartModel(t testing.TB, turns ...Turn) *ModelServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("harness: model server: %v", err)
	}
	m := &ModelServer{t: t, ln: ln, Addr: ln.Addr().String(), turns: turns,
		changed: make(chan struct{}), allowed: map[string]bool{}}
	m.URL = "http://" + m.Addr
	m.hs = &http.Server{Handler: m, ReadHeaderTimeout: 10 * time.Second}
	go m.hs.Serve(ln)
	t.Cleanup(func() {
		m.hs.Close()
		if u := m.Unknown(); len(u) > 0 {
			t.Errorf("model server: the agent made requests outside the scripted model's API:\n  %s", strings.Join(u, "\n  "))
		}
		if t.Failed() {
			t.Logf("model server: %d requests:\n%s", len(m.Requests()), m.Dump())
		}
	})
	return m
}

// Script adds turns to the script.
func (m *ModelServer) Script(turns ...Turn) {
	m.mu.Lock()
	m.turns = append(m.turns, turns...)
	m.mu.Unlock()
}

// Tolerate makes requests through the proxy to host (as "CONNECT host:443"
// or a plain URL's host) logged but not a failure: for a side request an
// agent cannot be told to leave out; say why at the call.
func (m *ModelServer) Tolerate(host string) {
	m.mu.Lock()
	m.allowed[host] = true
	m.mu.Unlock()
}

// Env is the environment that sends an agent's stray requests to other
// hosts through the server as a proxy, where they are refused and logged
// (HTTPS_PROXY, HTTP_PROXY, with NO_PROXY for loopback itself, and
// NODE_USE_ENV_PROXY for Node's fetch).
func (m *ModelServer) Env() []string {
	p := "http://" + m.Addr
	return []string{"HTTPS_PROXY=" + p, "HTTP_PROXY=" + p, "https_proxy=" + p, "http_proxy=" + p,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost", "NODE_USE_ENV_PROXY=1"}
}

// Requests returns the requests logged so far.
func (m *ModelServer) Requests() []ModelRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]ModelRequest(nil), m.requests...)
}

// Unknown returns the requests that were not for the scripted API.
func (m *ModelServer) Unknown() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.unknown...)
}

// Dump formats the request log for a failure message.
func (m *ModelServer) Dump() string {
	var b strings.Builder
	for i, r := range m.Requests() {
		fmt.Fprintf(&b, "  #%d %s %s %s model=%q stream=%v tools=%q answer=%q\n", i, r.API, r.Method, r.Path, r.Model, r.Stream, r.Tools, r.Answer)
		for _, msg := range r.Messages {
			s := msg.Text
			if msg.ToolCall != "" {
				s += " [call " + msg.ToolCall + "]"
			}
			if msg.ToolResult != "" {
				s += " [result " + msg.ToolResult + "]"
			}
			fmt.Fprintf(&b, "      %s: %s\n", msg.Role, clip(strings.ReplaceAll(s, "\n", `\n`)))
		}
	}
	for _, u := range m.Unknown() {
		fmt.Fprintf(&b, "  UNKNOWN %s\n", u)
	}
	return b.String()
}

// WaitRequest waits until a logged request satisfies cond and returns it.
func (m *ModelServer) WaitRequest(t testing.TB, timeout time.Duration, what string, cond func(ModelRequest) bool) ModelRequest {
	t.Helper()
	r, ok := m.Await(timeout, cond)
	if !ok {
		t.Fatalf("model server: no request %s within %v; requests:\n%s", what, timeout, m.Dump())
	}
	return r
}

// Await is WaitRequest without the failure: false when no request met
// cond within timeout.
func (m *ModelServer) Await(timeout time.Duration, cond func(ModelRequest) bool) (ModelRequest, bool) {
	deadline := time.After(timeout)
	seen := 0
	for {
		m.mu.Lock()
		ch := m.changed
		reqs := m.requests[seen:]
		seen = len(m.requests)
		m.mu.Unlock()
		for _, r := range reqs {
			if cond(r) {
				return r, true
			}
		}
		select {
		case <-ch:
		case <-deadline:
			return ModelRequest{}, false
		}
	}
}

// Prompted reports whether the request carries a user message containing s.
func (r ModelRequest) Prompted(s string) bool {
	for _, msg := range r.Messages {
		if msg.Role == "user" && strings.Contains(msg.Text, s) {
			return true
		}
	}
	return false
}

// Said reports whether the request carries an assistant message containing s
// (an answer of an earlier turn sent back as history).
func (r ModelRequest) Said(s string) bool {
	for _, msg := range r.Messages {
		if msg.Role == "assistant" && strings.Contains(msg.Text, s) {
			return true
		}
	}
	return false
}

// ToolResults is the text of every tool result the request carries.
func (r ModelRequest) ToolResults() []string {
	var out []string
	for _, msg := range r.Messages {
		if msg.ToolResult != "" {
			out = append(out, msg.ToolResult)
		}
	}
	return out
}

// ToolResultsAfter is the text of every tool result that follows the
// newest user message containing prompt: the results of that turn, not
// of the turns before it in the conversation.
func (r ModelRequest) ToolResultsAfter(prompt string) []string {
	var out []string
	for _, msg := range r.Messages {
		switch {
		case msg.Role == "user" && strings.Contains(msg.Text, prompt):
			out = []string{}
		case msg.ToolResult != "" && out != nil:
			out = append(out, msg.ToolResult)
		}
	}
	return out
}

func (m *ModelServer) logRequest(r ModelRequest) {
	m.mu.Lock()
	m.requests = append(m.requests, r)
	close(m.changed)
	m.changed = make(chan struct{})
	m.mu.Unlock()
}

func (m *ModelServer) logUnknown(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	m.mu.Lock()
	m.unknown = append(m.unknown, s)
	close(m.changed)
	m.changed = make(chan struct{})
	m.mu.Unlock()
}

// step chooses the answer to a request's conversation: the turn whose
// prompt the newest matching user message holds, and the step after as
// many tool results as follow it. ok is false when no turn matches.
func (m *ModelServer) step(msgs []Message) (Step, bool) {
	m.mu.Lock()
	turns := append([]Turn(nil), m.turns...)
	m.mu.Unlock()
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "user" || msgs[i].Text == "" {
			continue
		}
		for j := len(turns) - 1; j >= 0; j-- {
			tu := turns[j]
			if tu.Prompt == "" || !strings.Contains(msgs[i].Text, tu.Prompt) || len(tu.Steps) == 0 {
				continue
			}
			n := 0
			for _, later := range msgs[i+1:] {
				if later.ToolResult != "" || later.Role == "tool" {
					n++
				}
			}
			if n < len(tu.Steps) {
				return tu.Steps[n], true
			}
			last := tu.Steps[len(tu.Steps)-1]
			if last.Tool == "" && last.ErrStatus == 0 {
				return last, true
			}
			return Step{Text: "done"}, true
		}
	}
	return Step{}, false
}

// answer decides the step for a request and records it in the log.
func (m *ModelServer) answer(r *ModelRequest) Step {
	st, ok := m.step(r.Messages)
	switch {
	case !ok, len(r.Tools) == 0 && st.Tool == "":
		// No turn matched, or a request that declares no tools at all (a
		// title generator's, which carries the prompt): plain text, an
		// error step's too (it is the turn's request that fails).
		st = Step{Text: "ok"}
		r.Answer = "side"
	case st.Tool != "" && declared(r.Tools, st.Tool) == "":
		// A side request (a title, a summary) that carries the prompt but
		// not the tool: plain text.
		st = Step{Text: "ok"}
		r.Answer = "side"
	case st.ErrStatus != 0:
		r.Answer = fmt.Sprintf("error:%d", st.ErrStatus)
	case st.Tool != "":
		st.Tool = declared(r.Tools, st.Tool)
		r.Answer = "tool:" + st.Tool
	default:
		r.Answer = st.Text
	}
	m.logRequest(*r)
	return st
}

// declared is the first of the "|"-separated names that tools holds, or "".
func declared(tools []string, names string) string {
	for _, n := range strings.Split(names, "|") {
		for _, x := range tools {
			if x == n {
				return n
			}
		}
	}
	return ""
}

// ServeHTTP routes by path to each API's handler.
func (m *ModelServer) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method == http.MethodConnect || (req.URL.Host != "" && req.URL.Host != m.Addr) {
		host := req.Host
		m.mu.Lock()
		ok := m.allowed[strings.TrimSuffix(host, ":443")]
		m.mu.Unlock()
		if !ok {
			m.logUnknown("%s %s%s (through the proxy to another host)", req.Method, host, req.URL.Path)
		}
		http.Error(w, "scripted model server: no other host", http.StatusForbidden)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(req.Body, 64<<20))
	p := req.URL.Path
	switch {
	case req.Method == http.MethodPost && strings.HasSuffix(p, "/messages/count_tokens"):
		m.logRequest(ModelRequest{API: "count_tokens", Method: req.Method, Path: req.URL.RequestURI(), Body: string(body)})
		writeJSON(w, 200, map[string]any{"input_tokens": 100})
	case req.Method == http.MethodPost && strings.HasSuffix(p, "/messages"):
		m.anthropic(w, req, body)
	case req.Method == http.MethodPost && strings.Contains(p, "/models/") && strings.Contains(p, ":"):
		m.gemini(w, req, body)
	case req.Method == http.MethodPost && strings.HasSuffix(p, "/responses"):
		m.responses(w, req, body)
	case req.Method == http.MethodPost && strings.HasSuffix(p, "/chat/completions"):
		m.chat(w, req, body)
	case req.Method == http.MethodGet && strings.HasSuffix(p, "/models"):
		m.logRequest(ModelRequest{API: "models", Method: req.Method, Path: req.URL.RequestURI()})
		writeJSON(w, 200, map[string]any{"object": "list", "data": []any{
			map[string]any{"id": "scripted", "object": "model", "created": 1700000000, "owned_by": "signaltty-tests"}},
			"models": []any{}})
	default:
		m.logUnknown("%s %s", req.Method, req.URL.RequestURI())
		http.Error(w, "scripted model server: unknown endpoint", http.StatusNotFound)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// sse writes server-sent events; event "" writes a data-only event.
type sse struct {
	w http.ResponseWriter
}

func startSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(200)
	return sse{w}
}

func (s sse) send(event string, data any) {
	if event != "" {
		fmt.Fprintf(s.w, "event: %s\n", event)
	}
	var b []byte
	if raw, ok := data.(string); ok {
		b = []byte(raw)
	} else {
		b, _ = json.Marshal(data)
	}
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

func inputJSON(st Step) string {
	in := st.Input
	if in == nil {
		in = map[string]any{}
	}
	b, _ := json.Marshal(in)
	return string(b)
}

// chunks splits text into a few pieces, so streaming is streaming.
func chunks(text string) []string {
	words := strings.SplitAfter(text, " ")
	if len(words) < 2 {
		return []string{text}
	}
	return words
}

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/signaltty/signaltty/cmd/internal/daemon"
	"github.com/signaltty/signaltty/service/request"
)

// lineSession serves the tools on a lineTransport fed by the test: send
// writes a line, recv reads the next reply line.
type lineSession struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

func startLineSession(t *testing.T) *lineSession {
	t.Helper()
	t.Setenv("SIGNALTTY_NO_AUTOSTART", "1")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &lineSession{t: t, in: inW, out: bufio.NewReader(outR), done: make(chan error, 1)}
	a := &server{address: "unix:/nonexistent/signaltty.sock", waitCap: request.MCPWaitCapMs}
	go func() {
		s.done <- a.serve(t.Context(), &lineTransport{r: inR, w: outW})
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close() })
	return s
}

func (s *lineSession) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatalf("writing %q: %v", line, err)
	}
}

// reply is one JSON-RPC reply line.
type reply struct {
	Raw    string
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (s *lineSession) recv() reply {
	s.t.Helper()
	ch := make(chan string, 1)
	go func() {
		l, _ := s.out.ReadString('\n')
		ch <- l
	}()
	var line string
	select {
	case line = <-ch:
	case <-time.After(30 * time.Second):
		s.t.Fatal("no reply within 30 s")
	}
	var r reply
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		s.t.Fatalf("reply %q: %v", line, err)
	}
	r.Raw = strings.TrimSpace(line)
	return r
}

const initializeLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

// Every bad line gets its JSON-RPC error and the server goes on: the
// initialize after them is answered, and so is a call after more bad lines.
func TestMCPBadLinesAreAnsweredAndServingGoesOn(t *testing.T) {
	s := startLineSession(t)
	bad := []struct {
		line string
		code int64
		id   string
	}{
		{`{"jsonrpc":"2.0","id":1,`, -32700, "null"},
		{`not json`, -32700, "null"},
		{`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`, -32600, "null"},
		{`[]`, -32600, "null"},
		{`{"jsonrpc":"1.0","id":3,"method":"ping"}`, -32600, "3"},
		{`{"id":"four","method":"ping"}`, -32600, `"four"`},
		{`{"foo":1}`, -32600, "null"},
		{`42`, -32600, "null"},
		{`"hello"`, -32600, "null"},
		{`null`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":5,"method":7}`, -32600, "5"},
	}
	for _, b := range bad {
		s.send(b.line)
		r := s.recv()
		if r.Error == nil || r.Error.Code != b.code || string(r.ID) != b.id {
			t.Fatalf("%s → %s, want code %d and id %s", b.line, r.Raw, b.code, b.id)
		}
	}
	s.send(initializeLine)
	if r := s.recv(); r.Error != nil || !strings.Contains(string(r.Result), "protocolVersion") {
		t.Fatalf("initialize after bad lines: %s", r.Raw)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.send(`{oops`)
	if r := s.recv(); r.Error == nil || r.Error.Code != -32700 {
		t.Fatalf("bad line after initialize: %s", r.Raw)
	}
	s.send(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	if r := s.recv(); r.Error != nil || string(r.ID) != "9" || !strings.Contains(string(r.Result), `"run_wait"`) {
		t.Fatalf("tools/list: %.200s", r.Raw)
	}
}

// A call before initialize is refused with a JSON-RPC code, not 0.
func TestMCPCallBeforeInitializeHasAnErrorCode(t *testing.T) {
	s := startLineSession(t)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	r := s.recv()
	if r.Error == nil || r.Error.Code != -32600 {
		t.Fatalf("tools/list before initialize: %s", r.Raw)
	}
}

// When the input ends, a reply in flight is still written.
func TestMCPRepliesInFlightAreWrittenWhenInputEnds(t *testing.T) {
	s := startLineSession(t)
	s.send(initializeLine)
	s.recv()
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// status fails (no daemon) but only after dialing: its reply is in
	// flight when the input closes right behind it.
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"status","arguments":{}}}`)
	s.in.Close()
	r := s.recv()
	if string(r.ID) != "2" || !strings.Contains(string(r.Result), "unavailable.daemon") {
		t.Fatalf("reply to the last call: %s", r.Raw)
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not end after its input closed")
	}
}

// Text with <, > and & is written as it is, not as \u003c, \u003e, \u0026.
func TestMCPWritesNoHTMLEscapes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`"a\u003cb\u003e\u0026c"`, `"a<b>&c"`},
		{`"\\u003c"`, `"\\u003c"`},
		{`"\\\u003c"`, `"\\<"`},
		{`"\u00e9\n"`, `"\u00e9\n"`},
	} {
		if got := string(daemon.UnescapeHTML([]byte(c.in))); got != c.want {
			t.Errorf("daemon.UnescapeHTML(%s) = %s, want %s", c.in, got, c.want)
		}
		var a, b string
		if json.Unmarshal([]byte(c.in), &a) != nil || json.Unmarshal(daemon.UnescapeHTML([]byte(c.in)), &b) != nil || a != b {
			t.Errorf("%s: value changed: %q → %q", c.in, a, b)
		}
	}
}

// FuzzMCPLine feeds one arbitrary line, then a ping: the server answers
// the ping whatever came before it.
func FuzzMCPLine(f *testing.F) {
	for _, seed := range []string{`{"jsonrpc":"2.0","id":1,`, `[1,2]`, `{"jsonrpc":"1.0"}`, `{"foo":1}`, `42`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`, "\xff\xfe", `{"jsonrpc":"2.0","id":[],"error":{}}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		line = strings.ReplaceAll(strings.ReplaceAll(line, "\n", " "), "\r", " ")
		if strings.Contains(line, `"id":77`) || strings.Contains(line, `"id": 77`) {
			return // would collide with the ping's id
		}
		c, _ := (&lineTransport{r: strings.NewReader(line + "\n" + `{"jsonrpc":"2.0","id":77,"method":"ping"}` + "\n"), w: io.Discard}).Connect(t.Context())
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		for {
			msg, err := c.Read(ctx)
			if err != nil {
				t.Fatalf("after %q: %v before the ping", line, err)
			}
			if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "ping" && fmt.Sprint(req.ID.Raw()) == "77" {
				return
			}
		}
	})
}

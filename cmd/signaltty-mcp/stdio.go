package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/signaltty/signaltty/cmd/internal/daemon"
)

// maxLine is the longest input line the server reads, in bytes; a longer
// one is answered with -32600 and skipped.
const maxLine = 16 << 20

// lineTransport is MCP's stdio transport (newline-delimited JSON-RPC 2.0 on
// a reader and a writer) that no input line can stop (docs/mcp.md, "Bad
// input lines"): a line that is not JSON is answered with -32700, one that
// is JSON but not a JSON-RPC 2.0 message (a batch array, a wrong "jsonrpc",
// an object without method or result, a bare value) with -32600, and the
// server reads on. When the input ends, the replies of the calls in flight
// are written before the session ends. Written JSON has <, > and & as they
// are, not \u003c, \u003e, \u0026.
type lineTransport struct {
	r io.Reader
	w io.Writer
}

// Connect implements mcp.Transport.
func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{w: t.w, lines: make(chan lineOrErr), closed: make(chan struct{}),
		pending: map[string]bool{}, idle: make(chan struct{})}
	go c.readLines(t.r)
	return c, nil
}

type lineOrErr struct {
	line []byte
	err  error
}

// lineConn is one session of lineTransport.
type lineConn struct {
	w     io.Writer
	wmu   sync.Mutex // one message at a time on w
	lines chan lineOrErr

	mu          sync.Mutex
	pending     map[string]bool // ids of calls read and not answered yet
	idle        chan struct{}   // closed and replaced when pending empties
	initialized bool            // an initialize call was answered without error

	closeOnce sync.Once
	closed    chan struct{}
}

// readLines sends each line of r (without its end of line) to c.lines;
// a line longer than maxLine is sent as an error and skipped.
func (c *lineConn) readLines(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		var line []byte
		var err error
		tooLong := false
		for {
			chunk, rerr := br.ReadSlice('\n')
			if len(line)+len(chunk) > maxLine {
				tooLong = true
			} else {
				line = append(line, chunk...)
			}
			if rerr == bufio.ErrBufferFull {
				continue
			}
			err = rerr
			break
		}
		var m lineOrErr
		switch {
		case tooLong:
			m = lineOrErr{err: errLineTooLong}
		case len(bytes.TrimSpace(line)) > 0:
			m = lineOrErr{line: line}
		}
		if m.line != nil || m.err != nil {
			select {
			case c.lines <- m:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				err = fmt.Errorf("reading standard input: %w", err)
			}
			select {
			case c.lines <- lineOrErr{err: err}:
			case <-c.closed:
			}
			return
		}
	}
}

var errLineTooLong = fmt.Errorf("line longer than %d bytes", maxLine)

// Read returns the next message, answering bad lines itself. At the end of
// input it first waits until every call read has been answered (or ctx
// ends, or the connection is closed), so that their replies are written.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var m lineOrErr
		select {
		case m = <-c.lines:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		}
		if errors.Is(m.err, errLineTooLong) {
			c.writeError(nil, jsonrpc.CodeInvalidRequest, m.err.Error())
			continue
		}
		if m.err != nil {
			c.drain(ctx)
			return nil, m.err
		}
		msg, id, code, why := parseLine(m.line)
		if msg == nil {
			c.writeError(id, code, why)
			continue
		}
		c.track(msg)
		return msg, nil
	}
}

// parseLine decodes one line as a JSON-RPC 2.0 message. When it is not
// one, it returns the id to answer (nil for null), a JSON-RPC error code
// and why.
func parseLine(line []byte) (msg jsonrpc.Message, id json.RawMessage, code int64, why string) {
	line = bytes.TrimSpace(line)
	if !json.Valid(line) {
		return nil, nil, jsonrpc.CodeParseError, "parse error: the line is not JSON"
	}
	if line[0] == '[' {
		return nil, nil, jsonrpc.CodeInvalidRequest, "invalid request: batches are not supported; send one message per line"
	}
	if line[0] != '{' {
		return nil, nil, jsonrpc.CodeInvalidRequest, "invalid request: a message is a JSON object"
	}
	var env struct {
		JSONRPC *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &env); err != nil {
		return nil, nil, jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error()
	}
	if validID(env.ID) {
		id = env.ID
	}
	switch {
	case env.JSONRPC == nil || *env.JSONRPC != "2.0":
		return nil, id, jsonrpc.CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`
	case env.Method == nil && env.Result == nil && env.Error == nil:
		return nil, id, jsonrpc.CodeInvalidRequest, "invalid request: no method (nor result or error of a response)"
	case env.ID != nil && !validID(env.ID):
		return nil, nil, jsonrpc.CodeInvalidRequest, "invalid request: an id is a string or a number"
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, id, jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error()
	}
	return msg, nil, 0, ""
}

// validID reports whether raw is a JSON string or number.
func validID(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}

// idKey is the key of a request id in pending.
func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

// track notes a call read (a reply is owed) and forgets one the client
// cancelled (the SDK sends no reply to it).
func (c *lineConn) track(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if req.IsCall() {
		c.pending[idKey(req.ID)] = true
		return
	}
	if req.Method == "notifications/cancelled" {
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
				c.answered(id)
			}
		}
	}
}

// answered forgets a call; c.mu is held.
func (c *lineConn) answered(id jsonrpc.ID) {
	delete(c.pending, idKey(id))
	if len(c.pending) == 0 {
		close(c.idle)
		c.idle = make(chan struct{})
	}
}

// drain waits until no call is owed a reply, ctx ends or c is closed.
func (c *lineConn) drain(ctx context.Context) {
	for {
		c.mu.Lock()
		n, idle := len(c.pending), c.idle
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-idle:
		case <-ctx.Done():
			return
		case <-c.closed:
			return
		}
	}
}

// Write writes msg as one line. A reply whose error has no code (the SDK
// leaves it 0 for a call before initialize, among others) gets -32600
// before the session is initialized and -32603 after.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, isResp := msg.(*jsonrpc.Response)
	if isResp && resp.Error != nil {
		var we *jsonrpc.Error
		if !errors.As(resp.Error, &we) || we.Code == 0 {
			c.mu.Lock()
			code := int64(jsonrpc.CodeInternalError)
			if !c.initialized {
				code = jsonrpc.CodeInvalidRequest
			}
			c.mu.Unlock()
			resp = &jsonrpc.Response{ID: resp.ID, Error: &jsonrpc.Error{Code: code, Message: resp.Error.Error()}}
			msg = resp
		}
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	if isResp && resp.Error == nil && bytes.Contains(resp.Result, []byte(`"protocolVersion"`)) {
		c.mu.Lock()
		c.initialized = true
		c.mu.Unlock()
	}
	err = c.writeLine(daemon.UnescapeHTML(b))
	if isResp {
		c.mu.Lock()
		c.answered(resp.ID)
		c.mu.Unlock()
	}
	return err
}

// writeError answers a bad line; id is the raw JSON id, nil for null.
func (c *lineConn) writeError(id json.RawMessage, code int64, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	_ = c.writeLine(daemon.UnescapeHTML(b))
}

func (c *lineConn) writeLine(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.closed:
		return mcp.ErrConnectionClosed
	default:
	}
	_, err := c.w.Write(append(b, '\n'))
	return err
}

// Close implements mcp.Connection; the reader of standard input is left to
// end with the process.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// SessionID implements mcp.Connection: stdio has no session id.
func (c *lineConn) SessionID() string { return "" }

package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
)

// AsError is err as an *Error: the daemon's error, "cancelled" for an
// interrupt, else code with err's text.
func AsError(err error, code string) *Error {
	var ce *Error
	if errors.As(err, &ce) {
		return ce
	}
	if errors.Is(err, context.Canceled) {
		return &Error{Code: "cancelled", Message: "interrupted", Data: map[string]any{}}
	}
	return &Error{Code: code, Message: err.Error(), Data: map[string]any{}}
}

// JSON is what --json prints for a failure: {"error":{"code",
// "message","data"}}. The MCP server's tool errors carry the same text.
func (e *Error) JSON() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // <, > and & as they are, as in replies
	_ = enc.Encode(map[string]any{"error": e})
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// Compact is a reply as --json prints it: one line (nil if raw is not JSON).
func Compact(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil
	}
	return UnescapeHTML(b.Bytes()) // json.Compact, unlike json.Marshal, writes <, > and & as they are
}

// UnescapeHTML turns the escapes \u003c, \u003e and \u0026 in the strings
// of a JSON text back into <, > and &: replies that the varlink library
// encodes (json.Marshal escapes them for HTML) then cost one byte for
// each, as the daemon's own encoder writes them (docs/mcp.md, "Small
// results"). The JSON stays equal; an escaped backslash before "u003c" is
// left as it is.
func UnescapeHTML(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u00`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) {
			switch string(b[i+2 : i+6]) {
			case "003c", "003C":
				out, i = append(out, '<'), i+5
				continue
			case "003e", "003E":
				out, i = append(out, '>'), i+5
				continue
			case "0026":
				out, i = append(out, '&'), i+5
				continue
			}
		}
		out = append(out, b[i], b[i+1]) // any other escape, \\ included, whole
		i++
	}
	return out
}

// Call dials the daemon at addr, makes one call and closes the connection.
func Call(ctx context.Context, addr, method string, params any) (json.RawMessage, error) {
	c, err := Dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.Call(ctx, method, params)
}

// WaitRun makes dev.signaltty.Run.Wait with p on c and returns its last
// reply (docs/run-wait.md). Interrupted (ctx ends), it fails "cancelled";
// the run keeps running.
func (c *Client) WaitRun(ctx context.Context, p map[string]any) (json.RawMessage, error) {
	var last json.RawMessage
	err := c.Stream(ctx, "dev.signaltty.Run.Wait", p, func(raw json.RawMessage) error {
		last = raw
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, &Error{Code: "cancelled", Message: "wait interrupted; the run keeps running", Data: map[string]any{}}
		}
		return nil, err
	}
	return last, nil
}

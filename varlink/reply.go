package varlink

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	vl "github.com/varlink/go/varlink"
)

// encodeReply encodes a reply message ({"parameters":…[,"continues":true]}
// and the terminating NUL) without the HTML escaping json.Marshal applies,
// which would turn each <, > and & of pane output into six bytes.
func encodeReply(params any, continues bool) ([]byte, error) {
	msg := struct {
		Parameters any  `json:"parameters"`
		Continues  bool `json:"continues,omitempty"`
	}{params, continues}
	out, err := marshalNoHTML(msg)
	if err != nil {
		return nil, err
	}
	return append(out, 0), nil // the message terminator
}

// marshalNoHTML is json.Marshal without HTML escaping.
func marshalNoHTML(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// writeReply sends an encoded reply on the call's connection (nothing for a
// oneway call), as varlink.Call.Reply would.
func writeReply(ctx context.Context, c vl.Call, msg []byte) error {
	if c.IsOneway() {
		return nil
	}
	_, err := c.Conn.Write(ctx, msg)
	return err
}

// trimLines returns lines without their trailing spaces (the trim of
// CaptureRows, Run.Wait and Run.Get), in a new slice.
func trimLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(l, " ")
	}
	return out
}

// isTrue is an optional boolean parameter, false when absent.
func isTrue(b *bool) bool { return b != nil && *b }

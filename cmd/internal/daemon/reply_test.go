package daemon

import (
	"encoding/json"
	"testing"
)

// Replies the varlink library encodes escape <, > and & for HTML; what the
// CLI prints and the MCP server returns has them as they are, and means
// the same JSON.
func TestCompactWritesHTMLCharactersAsThemselves(t *testing.T) {
	for in, want := range map[string]string{
		`{"argv": ["sh", "-c", "a \u0026\u0026 b \u003cin \u003eout"]}`:     `{"argv":["sh","-c","a && b <in >out"]}`,
		`{"s":"\\u003c stays escaped text, \\\u0026 is a backslash and &"}`: `{"s":"\\u003c stays escaped text, \\& is a backslash and &"}`,
		`{"s":"\u00e9\n\"\u003C"}`:                                          `{"s":"\u00e9\n\"<"}`,
	} {
		got := string(Compact(json.RawMessage(in)))
		if got != want {
			t.Errorf("Compact(%s) = %s, want %s", in, got, want)
		}
		var a, b any
		if json.Unmarshal([]byte(in), &a) != nil || json.Unmarshal([]byte(got), &b) != nil || string(mustJSON(a)) != string(mustJSON(b)) {
			t.Errorf("Compact(%s) = %s is not the same JSON", in, got)
		}
	}
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

//go:build goexperiment.jsonv2

package listdecode

import (
	jsonv1 "encoding/json"
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
)

// encoding/json/v2 (Go 1.26: only with GOEXPERIMENT=jsonv2, which also
// makes encoding/json itself run on v2's implementation, so the v1
// benchmarks measure that then):
//   - v2-onepass: jsonv2.Unmarshal of the message into the generated type,
//   - v2-library: the library's two steps with v2 (the parameters as a
//     jsontext.Value, then into the generated type),
//   - v2-v1options: one pass with jsonv1.DefaultOptionsV1() (v1's
//     semantics: names matched without case, duplicates allowed, invalid
//     UTF-8 kept), what a drop-in replacement of v1 would do.
func init() {
	decoders["v2-onepass"] = func(msg []byte) (Out, error) {
		var m OneReply
		err := jsonv2.Unmarshal(msg, &m)
		return m.Parameters, err
	}
	decoders["v2-library"] = func(msg []byte) (Out, error) {
		var m struct {
			Parameters jsontext.Value `json:"parameters"`
			Continues  bool           `json:"continues"`
			Error      string         `json:"error"`
		}
		var o Out
		if err := jsonv2.Unmarshal(msg, &m); err != nil {
			return o, err
		}
		err := jsonv2.Unmarshal(m.Parameters, &o)
		return o, err
	}
	decoders["v2-v1options"] = func(msg []byte) (Out, error) {
		var m OneReply
		err := jsonv2.Unmarshal(msg, &m, jsonv1.DefaultOptionsV1())
		return m.Parameters, err
	}
}

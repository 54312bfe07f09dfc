package varlink

import (
	"encoding/json"
	"strings"
	"testing"

	events "github.com/signaltty/signaltty/varlink/devsignalttyevents"
	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
	runv "github.com/signaltty/signaltty/varlink/devsignalttyrun"
	server "github.com/signaltty/signaltty/varlink/devsignalttyserver"
)

// schemas of every interface the daemon serves.
func allSchemas(t testing.TB) map[string]*schema {
	t.Helper()
	out := map[string]*schema{}
	for _, d := range []Dispatcher{mux.VarlinkNew(nil), runv.VarlinkNew(nil), events.VarlinkNew(nil), server.VarlinkNew(nil)} {
		s, err := newSchema(d.VarlinkGetDescription())
		if err != nil {
			t.Fatalf("%s: %v", d.VarlinkGetName(), err)
		}
		if s.named == "" {
			t.Fatalf("%s declares no InvalidParams", d.VarlinkGetName())
		}
		out[d.VarlinkGetName()] = s
	}
	return out
}

// checkMessage is checkRequest without a connection: the envelope, then
// the parameters; "" when the message would be dispatched.
func checkMessage(schemas map[string]*schema, msg []byte) (code string, pe *paramError) {
	v := judge(schemas, msg)
	return v.code, v.pe
}

func TestParametersCheckedAgainstTheInterface(t *testing.T) {
	s := allSchemas(t)
	for _, tc := range []struct{ msg, code, path string }{
		{`{"method":"dev.signaltty.Mux.SpawnPane","parameters":{"argv":["sh"],"env":{"A":"b"},"cols":80,"workspace":null}}`, "", ""},
		{`{"method":"dev.signaltty.Mux.SpawnPane","parameters":{"argv":["sh"],"env":{"A":1}}}`, "invalid_params.env", `env["A"]`},
		{`{"method":"dev.signaltty.Mux.SpawnPane","parameters":{"argv":["sh"],"cols":-9223372036854775809}}`, "invalid_params.cols", "cols"},
		{`{"method":"dev.signaltty.Mux.SpawnPane","parameters":{"argv":["sh"],"cols":1e3}}`, "invalid_params.cols", "cols"},
		{`{"method":"dev.signaltty.Mux.SpawnPane","parameters":{"argv":["sh"],"axis":1}}`, "invalid_params.axis", "axis"},
		{`{"method":"dev.signaltty.Mux.NoSuchMethod","parameters":{"x":1}}`, "", ""},
		{`{"method":"org.varlink.service.GetInfo","parameters":{"x":1}}`, "", ""},
		{`{"method":"dev.signaltty.Server.GetStatus"}`, "", ""},
		{`{"method":"dev.signaltty.Server.GetStatus","parameters":"x"}`, "invalid_params.parameters", "parameters"},
		{`{"method":`, "invalid_params.json", ""},
		{`{"method":"dev.signaltty.Server.GetStatus","more":7}`, "invalid_params.more", ""},
		{`{"method":"dev.signaltty.Server.GetStatus","upgrade":"yes"}`, "invalid_params.upgrade", ""},
		{`{"method":"dev.signaltty.Server.GetStatus","oneway":[]}`, "invalid_params.oneway", ""},
		{`{"method":"dev.signaltty.Server.GetStatus","more":null,"upgrade":false}`, "", ""},
		{`{"method":7}`, "invalid_params.json", ""},
	} {
		code, pe := checkMessage(s, []byte(tc.msg))
		if code != tc.code || (pe != nil && pe.Path != tc.path) {
			t.Errorf("%s: %s %+v, want %q at %q", tc.msg, code, pe, tc.code, tc.path)
		}
	}
}

// FuzzCheckRequest: arbitrary messages (malformed JSON, wrong types, huge
// numbers, NUL and invalid UTF-8, deep nesting, and envelope fields of any
// type: method, oneway, more, upgrade) never crash the check; a refusal
// always names a field of the request, or "parameters"; a message refused
// for its envelope is answered and closes the connection, and one whose
// envelope the library would not read is never dispatched.
// Longer runs: go test -run '^$' -fuzz FuzzCheckRequest -fuzztime 10m ./varlink/
func FuzzCheckRequest(f *testing.F) {
	s := allSchemas(f)
	for _, seed := range []string{
		`{"method":"dev.signaltty.Mux.SpawnPane","parameters":{"argv":["sh"],"env":{"A":"b"},"cols":80}}`,
		`{"method":"dev.signaltty.Mux.SendInput","parameters":{"pane":"p1","text":"ls\n"}}`,
		`{"method":"dev.signaltty.Run.Start","parameters":{"key":"k","argv":["true"],"deadline_ms":1e99}}`,
		`{"method":"dev.signaltty.Events.Subscribe","parameters":{"types":[[[[[[[[]]]]]]]]}}`,
		`{"method":"dev.signaltty.Server.GetStatus","parameters":{"\u0000":"\xff"}}`,
		`{"method":"dev.signaltty.Server.GetStatus","more":7}`,
		`{"method":"dev.signaltty.Events.Subscribe","more":true,"oneway":"x","upgrade":{}}`,
		`{"method":"dev.signaltty.Server.GetStatus","upgrade":null,"more":[true]}`,
		`{"method":["dev.signaltty.Server.GetStatus"],"parameters":{}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		v := judge(s, msg)
		var lib struct { // how the varlink library reads a call
			Method     string          `json:"method"`
			Oneway     bool            `json:"oneway"`
			More       bool            `json:"more"`
			Upgrade    bool            `json:"upgrade"`
			Parameters json.RawMessage `json:"parameters"`
		}
		if json.Unmarshal(msg, &lib) != nil && v.code == "" {
			t.Fatalf("%q: an envelope the library cannot read is dispatched", msg)
		}
		switch {
		case v.code == "":
		case v.pe != nil:
			if v.code != "invalid_params."+v.pe.Field || v.pe.Path == "" || (v.pe.Reason != "type" && v.pe.Reason != "unknown") {
				t.Fatalf("%q: %s %+v", msg, v.code, v.pe)
			}
		default:
			var reply struct {
				Error      string `json:"error"`
				Parameters struct {
					Code string         `json:"code"`
					Data map[string]any `json:"data"`
				} `json:"parameters"`
			}
			if !v.close || len(v.reply) == 0 || v.reply[len(v.reply)-1] != 0 ||
				json.Unmarshal(v.reply[:len(v.reply)-1], &reply) != nil || reply.Parameters.Code != v.code {
				t.Fatalf("%q: envelope refusal %s without a reply naming it (close %v): %q", msg, v.code, v.close, v.reply)
			}
			if name := strings.TrimPrefix(v.code, "invalid_params."); name != "json" && reply.Parameters.Data["param"] != name {
				t.Fatalf("%q: %s names param %v", msg, v.code, reply.Parameters.Data["param"])
			}
		}
	})
}

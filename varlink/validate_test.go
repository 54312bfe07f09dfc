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
	var env envelope
	if err := json.Unmarshal(msg, &env); err != nil {
		return "invalid_params.json", nil
	}
	i := strings.LastIndex(env.Method, ".")
	if i <= 0 {
		return "", nil
	}
	sch := schemas[env.Method[:i]]
	if sch == nil {
		return "", nil
	}
	if pe := sch.check(env.Method[i+1:], env.Parameters); pe != nil {
		return "invalid_params." + pe.Field, pe
	}
	return "", nil
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
	} {
		code, pe := checkMessage(s, []byte(tc.msg))
		if code != tc.code || (pe != nil && pe.Path != tc.path) {
			t.Errorf("%s: %s %+v, want %q at %q", tc.msg, code, pe, tc.code, tc.path)
		}
	}
}

// FuzzCheckRequest: arbitrary messages (malformed JSON, wrong types, huge
// numbers, NUL and invalid UTF-8, deep nesting) never crash the check, and a
// refusal always names a field of the request, or "parameters".
// Longer runs: go test -run '^$' -fuzz FuzzCheckRequest -fuzztime 10m ./varlink/
func FuzzCheckRequest(f *testing.F) {
	s := allSchemas(f)
	for _, seed := range []string{
		`{"method":"dev.signaltty.Mux.SpawnPane","parameters":{"argv":["sh"],"env":{"A":"b"},"cols":80}}`,
		`{"method":"dev.signaltty.Mux.SendInput","parameters":{"pane":"p1","text":"ls\n"}}`,
		`{"method":"dev.signaltty.Run.Start","parameters":{"key":"k","argv":["true"],"deadline_ms":1e99}}`,
		`{"method":"dev.signaltty.Events.Subscribe","parameters":{"types":[[[[[[[[]]]]]]]]}}`,
		`{"method":"dev.signaltty.Server.GetStatus","parameters":{"\u0000":"\xff"}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		code, pe := checkMessage(s, msg)
		if pe == nil {
			return
		}
		if code != "invalid_params."+pe.Field || pe.Path == "" || (pe.Reason != "type" && pe.Reason != "unknown") {
			t.Fatalf("%q: %s %+v", msg, code, pe)
		}
	})
}

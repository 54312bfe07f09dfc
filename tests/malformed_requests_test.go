package tests

import (
	"bufio"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// Parameters that do not match the method's input type are refused with
// the interface's InvalidParams naming the field (code
// invalid_params.<field>, data.path and data.reason), unknown fields
// included, and nothing happens; the connection goes on serving.
func TestMalformedParametersNameTheField(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "w")
	c := d.DialUnix(t)
	rd := bufio.NewReader(c)
	for _, tc := range []struct {
		name, msg, errName, code, path, reason string
	}{
		{"string for an array", `{"method":"dev.signaltty.Mux.SpawnPane","parameters":{"workspace":"` + w.ID + `","argv":"sh"}}`,
			"dev.signaltty.Mux.InvalidParams", "invalid_params.argv", "argv", "type"},
		{"number in a string array", `{"method":"dev.signaltty.Mux.SpawnPane","parameters":{"workspace":"` + w.ID + `","argv":["sh",1]}}`,
			"dev.signaltty.Mux.InvalidParams", "invalid_params.argv", "argv[1]", "type"},
		{"int too large", `{"method":"dev.signaltty.Mux.SpawnPane","parameters":{"workspace":"` + w.ID + `","argv":["sh"],"cols":99999999999999999999}}`,
			"dev.signaltty.Mux.InvalidParams", "invalid_params.cols", "cols", "type"},
		{"fraction for an int", `{"method":"dev.signaltty.Mux.SpawnPane","parameters":{"workspace":"` + w.ID + `","argv":["sh"],"rows":1.5}}`,
			"dev.signaltty.Mux.InvalidParams", "invalid_params.rows", "rows", "type"},
		{"unknown field", `{"method":"dev.signaltty.Server.GetStatus","parameters":{"bogus":1}}`,
			"dev.signaltty.Server.InvalidParams", "invalid_params.bogus", "bogus", "unknown"},
		{"unknown field next to good ones", `{"method":"dev.signaltty.Mux.SpawnPane","parameters":{"workspace":"` + w.ID + `","argv":["sh"],"colls":80}}`,
			"dev.signaltty.Mux.InvalidParams", "invalid_params.colls", "colls", "unknown"},
		{"parameters not an object", `{"method":"dev.signaltty.Server.GetStatus","parameters":[1]}`,
			"dev.signaltty.Server.InvalidParams", "invalid_params.parameters", "parameters", "type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := c.Write([]byte(tc.msg + "\x00")); err != nil {
				t.Fatal(err)
			}
			r, msg, err := readRaw(c, rd, 30*time.Second)
			if err != nil {
				t.Fatalf("no reply: %v", err)
			}
			if r.Error != tc.errName || r.Parameters.Code != tc.code || r.Parameters.Data["path"] != tc.path ||
				r.Parameters.Data["reason"] != tc.reason || r.Parameters.Message == "" {
				t.Errorf("reply %s\nwant %s, code %s, path %s, reason %s", msg, tc.errName, tc.code, tc.path, tc.reason)
			}
		})
	}
	if st := d.Status(t); st.Panes != 0 {
		t.Errorf("refused spawns left panes: %+v", st)
	}
	// varlinkctl sees the same error.
	r := d.Varlinkctl(t, "call", "dev.signaltty.Server.GetStatus", `{"bogus":true}`)
	if r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, "InvalidParams") {
		t.Errorf("varlinkctl with an unknown field:\n%s", r)
	}
	t.Logf("varlinkctl: %s", strings.TrimSpace(r.Stdout+r.Stderr))
	// Good calls still work on the same connection.
	c.Write([]byte(`{"method":"dev.signaltty.Server.GetStatus","parameters":{}}` + "\x00"))
	if r, msg, err := readRaw(c, rd, 30*time.Second); err != nil || r.Error != "" {
		t.Errorf("a good call after the refused ones: %s %v", msg, err)
	}
}

// A message that is not JSON gets invalid_params.json, then the connection
// is closed; the daemon serves others.
func TestInvalidJSONIsAnsweredBeforeTheConnectionCloses(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	for _, msg := range []string{`{"method":`, `not json`, "{\"method\":\"dev.signaltty.Server.GetStatus\"\xff", `{"method":1}`} {
		c := d.DialUnix(t)
		rd := bufio.NewReader(c)
		c.Write([]byte(msg + "\x00"))
		r, raw, err := readRaw(c, rd, 30*time.Second)
		if err != nil || r.Error != "dev.signaltty.Server.InvalidParams" || r.Parameters.Code != "invalid_params.json" {
			t.Errorf("reply to %q: %q %v, want invalid_params.json", msg, raw, err)
			continue
		}
		if rest, err := io.ReadAll(rd); len(rest) != 0 || err != nil {
			t.Errorf("after the error to %q: %q %v, want the connection closed", msg, rest, err)
		}
	}
	if st := d.Status(t); st.Pid != d.Pid() {
		t.Errorf("status: %+v", st)
	}
}

// A call whose oneway, more or upgrade is not a boolean is answered with
// invalid_params.<that field> before the connection is closed, never
// closed without a word (docs/errors.md, "Malformed requests").
func TestWrongTypedEnvelopeFlagIsAnsweredByName(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	for _, tc := range []struct{ msg, field string }{
		{`{"method":"dev.signaltty.Server.GetStatus","more":7}`, "more"},
		{`{"method":"dev.signaltty.Server.GetStatus","upgrade":"yes"}`, "upgrade"},
		{`{"method":"dev.signaltty.Events.Subscribe","parameters":{},"more":{}}`, "more"},
		{`{"method":"dev.signaltty.Server.GetStatus","oneway":[true]}`, "oneway"},
	} {
		c := d.DialUnix(t)
		rd := bufio.NewReader(c)
		c.Write([]byte(tc.msg + "\x00"))
		r, raw, err := readRaw(c, rd, 30*time.Second)
		if err != nil || r.Error != "dev.signaltty.Server.InvalidParams" || r.Parameters.Code != "invalid_params."+tc.field {
			t.Errorf("reply to %s: %q %v, want invalid_params.%s", tc.msg, raw, err, tc.field)
			continue
		}
		if rest, err := io.ReadAll(rd); len(rest) != 0 || err != nil {
			t.Errorf("after the error to %s: %q %v, want the connection closed", tc.msg, rest, err)
		}
	}
	// null and booleans are read as usual.
	c := d.DialUnix(t)
	rd := bufio.NewReader(c)
	c.Write([]byte(`{"method":"dev.signaltty.Server.GetStatus","more":null,"upgrade":false}` + "\x00"))
	if r, raw, err := readRaw(c, rd, 30*time.Second); err != nil || r.Error != "" {
		t.Errorf("GetStatus with more null and upgrade false: %q %v", raw, err)
	}
}

package goccy

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"reflect"
	"testing"

	gojson "github.com/goccy/go-json"
	"github.com/signaltty/signaltty/varlink/devsignalttymux"
)

func reply(tb testing.TB) []byte {
	tb.Helper()
	f, err := os.Open("../testdata/listpanes-1000.json.gz")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// The same types as ../decode_test.go's.
type out struct {
	Panes []devsignalttymux.Pane `json:"panes"`
}

type oneReply struct {
	Parameters out    `json:"parameters"`
	Continues  bool   `json:"continues"`
	Error      string `json:"error"`
}

type libraryReply struct {
	Parameters *json.RawMessage `json:"parameters"`
	Continues  bool             `json:"continues"`
	Error      string           `json:"error"`
}

func goccyOnePass(msg []byte) (out, error) {
	var m oneReply
	err := gojson.Unmarshal(msg, &m)
	return m.Parameters, err
}

// goccyLibrary is the varlink library's two steps with go-json.
func goccyLibrary(msg []byte) (out, error) {
	var m libraryReply
	var o out
	if err := gojson.Unmarshal(msg, &m); err != nil {
		return o, err
	}
	err := gojson.Unmarshal(*m.Parameters, &o)
	return o, err
}

func TestSameAsEncodingJSON(t *testing.T) {
	msg := reply(t)
	var want oneReply
	if err := json.Unmarshal(msg, &want); err != nil {
		t.Fatal(err)
	}
	if len(want.Parameters.Panes) != 1000 {
		t.Fatalf("%d panes", len(want.Parameters.Panes))
	}
	for name, dec := range map[string]func([]byte) (out, error){"onepass": goccyOnePass, "library": goccyLibrary} {
		got, err := dec(msg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want.Parameters) {
			t.Errorf("%s decodes another value", name)
		}
	}
}

// BenchmarkListPanes1000 (each b.N one whole reply of 1,000 panes):
// v1-onepass is encoding/json in one pass (as ../decode_test.go's, here
// for a side-by-side run), goccy-onepass and goccy-library go-json in one
// pass and in the library's two steps.
func BenchmarkListPanes1000(b *testing.B) {
	msg := reply(b)
	for _, d := range []struct {
		name string
		f    func([]byte) (out, error)
	}{
		{"v1-onepass", func(msg []byte) (out, error) {
			var m oneReply
			err := json.Unmarshal(msg, &m)
			return m.Parameters, err
		}},
		{"goccy-onepass", goccyOnePass},
		{"goccy-library", goccyLibrary},
	} {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.f(msg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

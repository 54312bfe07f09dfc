package goccy

import (
	"encoding/json"
	"reflect"
	"testing"

	gojson "github.com/goccy/go-json"
	"github.com/signaltty/signaltty/tests/bench/listdecode"
)

func reply(tb testing.TB) []byte {
	tb.Helper()
	b, err := listdecode.Reply()
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func goccyOnePass(msg []byte) (listdecode.Out, error) {
	var m listdecode.OneReply
	err := gojson.Unmarshal(msg, &m)
	return m.Parameters, err
}

// goccyLibrary is the varlink library's two steps with go-json.
func goccyLibrary(msg []byte) (listdecode.Out, error) {
	var m listdecode.LibraryReply
	var o listdecode.Out
	if err := gojson.Unmarshal(msg, &m); err != nil {
		return o, err
	}
	err := gojson.Unmarshal(*m.Parameters, &o)
	return o, err
}

func TestSameAsEncodingJSON(t *testing.T) {
	msg := reply(t)
	var want listdecode.OneReply
	if err := json.Unmarshal(msg, &want); err != nil {
		t.Fatal(err)
	}
	if len(want.Parameters.Panes) != 1000 {
		t.Fatalf("%d panes", len(want.Parameters.Panes))
	}
	for name, dec := range map[string]func([]byte) (listdecode.Out, error){"onepass": goccyOnePass, "library": goccyLibrary} {
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
// v1-onepass is listdecode.DecodeOnePass, encoding/json in one pass (here
// for a side-by-side run), goccy-onepass and goccy-library go-json in one
// pass and in the library's two steps.
func BenchmarkListPanes1000(b *testing.B) {
	msg := reply(b)
	for _, d := range []struct {
		name string
		f    func([]byte) (listdecode.Out, error)
	}{
		{"v1-onepass", listdecode.DecodeOnePass},
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

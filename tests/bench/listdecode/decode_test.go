package listdecode

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/signaltty/signaltty/varlink/devsignalttymux"
)

const replyFile = "listpanes-1000.json.gz"

// reply is the ListPanes reply message, as the daemon sent it.
func reply(tb testing.TB) []byte {
	tb.Helper()
	f, err := os.Open(filepath.Join("testdata", replyFile))
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

// out is what the generated ListPanes_methods.Send decodes the parameters
// into.
type out struct {
	Panes []devsignalttymux.Pane `json:"panes"`
}

// libraryReply is the varlink library's reply type (connection.go): the
// parameters kept as raw bytes for a second decoding.
type libraryReply struct {
	Parameters *json.RawMessage `json:"parameters"`
	Continues  bool             `json:"continues"`
	Error      string           `json:"error"`
}

// oneReply is the whole message decoded in one pass into the generated type.
type oneReply struct {
	Parameters out    `json:"parameters"`
	Continues  bool   `json:"continues"`
	Error      string `json:"error"`
}

// decodeLibrary decodes as the varlink library and the generated binding
// do: the message into libraryReply, then its parameters into out.
func decodeLibrary(msg []byte) (out, error) {
	var m libraryReply
	var o out
	if err := json.Unmarshal(msg, &m); err != nil {
		return o, err
	}
	err := json.Unmarshal(*m.Parameters, &o)
	return o, err
}

func decodeOnePass(msg []byte) (out, error) {
	var m oneReply
	err := json.Unmarshal(msg, &m)
	return m.Parameters, err
}

// TestDecodersAgree checks the reply holds 1,000 panes and that every
// decoder gets the same from it as the library's way.
func TestDecodersAgree(t *testing.T) {
	msg := reply(t)
	want, err := decodeLibrary(msg)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Panes) != 1000 || want.Panes[999].Pid == nil {
		t.Fatalf("%d panes, the last %+v", len(want.Panes), want.Panes[len(want.Panes)-1])
	}
	for name, dec := range decoders {
		got, err := dec(msg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s decodes another value", name)
		}
	}
}

// decoders are the one-pass decoders of the message into the generated
// types, by benchmark name (v2_test.go adds encoding/json/v2's).
var decoders = map[string]func([]byte) (out, error){
	"v1-onepass": decodeOnePass,
}

// BenchmarkListPanes1000 decodes the reply message of 1,000 panes (each
// b.N one whole reply):
//   - valid: json.Valid of the message (a floor: the scan alone),
//   - v1-library: encoding/json as the varlink library does it: the
//     message into its reply type with the parameters as a
//     json.RawMessage, then the parameters into the generated type,
//   - v1-raw: the first of those steps alone,
//   - v1-onepass: encoding/json, the message in one pass into the
//     generated type,
//   - and v2_test.go's encoding/json/v2 decoders.
func BenchmarkListPanes1000(b *testing.B) {
	msg := reply(b)
	b.Run("valid", func(b *testing.B) {
		b.SetBytes(int64(len(msg)))
		b.ReportAllocs()
		for b.Loop() {
			if !json.Valid(msg) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("v1-library", func(b *testing.B) {
		b.SetBytes(int64(len(msg)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeLibrary(msg); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("v1-raw", func(b *testing.B) {
		b.SetBytes(int64(len(msg)))
		b.ReportAllocs()
		for b.Loop() {
			var m libraryReply
			if err := json.Unmarshal(msg, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
	names := make([]string, 0, len(decoders))
	for n := range decoders {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		dec := decoders[n]
		b.Run(n, func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := dec(msg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

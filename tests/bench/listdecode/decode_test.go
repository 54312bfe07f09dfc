package listdecode

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// reply is Reply, failing tb when it cannot be read.
func reply(tb testing.TB) []byte {
	tb.Helper()
	b, err := Reply()
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestDecodersAgree checks the reply holds 1,000 panes and that every
// decoder gets the same from it as the library's way.
func TestDecodersAgree(t *testing.T) {
	msg := reply(t)
	want, err := DecodeLibrary(msg)
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
var decoders = map[string]func([]byte) (Out, error){
	"v1-onepass": DecodeOnePass,
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
			if _, err := DecodeLibrary(msg); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("v1-raw", func(b *testing.B) {
		b.SetBytes(int64(len(msg)))
		b.ReportAllocs()
		for b.Loop() {
			var m LibraryReply
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

package term

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// holdsC1Byte reports whether r's UTF-8 encoding has a byte 0x80–0x9F.
func holdsC1Byte(r rune) bool {
	var b [utf8.UTFMax]byte
	for _, c := range b[:utf8.EncodeRune(b[:], r)] {
		if c >= 0x80 && c <= 0x9f {
			return true
		}
	}
	return false
}

// c1Batches returns every code point whose encoding holds a byte 0x80–0x9F
// (surrogates have none), as strings of at most maxBytes bytes.
func c1Batches(maxBytes int) []string {
	var out []string
	var b strings.Builder
	for r := rune(0x80); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) || !holdsC1Byte(r) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > maxBytes {
			out = append(out, b.String())
			b.Reset()
		}
		b.WriteRune(r)
	}
	return append(out, b.String())
}

func TestTitleWithByte9CInsideACharacterIsWholeAndRingsNoBell(t *testing.T) {
	in := "\x1b]0;\342\234\263 Claude Code\x07"
	for _, chunk := range []int{len(in), 1} {
		var log eventLog
		term := NewTerminal(Config{Cols: 20, Rows: 3, OnEvent: log.add})
		writeChunks(term, []byte(in), chunk)
		if evs, want := log.take(), []Event{{Kind: EventTitle, Text: "✳ Claude Code"}}; !reflect.DeepEqual(evs, want) {
			t.Errorf("writes of %d bytes: events %+v, want %+v", chunk, evs, want)
		}
		for i, l := range capture(t, term, nil, nil).Lines {
			if strings.TrimSpace(l) != "" {
				t.Errorf("writes of %d bytes: the title printed %q on row %d", chunk, l, i)
			}
		}
		term.Close()
	}
}

// TestEveryCharacterHoldingAC1ByteStaysACharacter puts every code point
// whose encoding holds a byte 0x80–0x9F into each kind of string sequence
// and onto the screen: each string ends where its terminator is, reports
// exactly its characters, prints nothing, rings no bell; on the screen the
// characters print and move the cursor only as characters do.
func TestEveryCharacterHoldingAC1ByteStaysACharacter(t *testing.T) {
	batches := c1Batches(1000)
	strs := []struct {
		name  string
		seq   func(s string) string
		event func(s string) []Event
	}{
		{"OSC 0", func(s string) string { return "\x1b]0;" + s + "\x07" },
			func(s string) []Event { return []Event{{Kind: EventTitle, Text: sanitizeTitle([]byte(s))}} }},
		{"OSC 2", func(s string) string { return "\x1b]2;" + s + "\x1b\\" },
			func(s string) []Event { return []Event{{Kind: EventTitle, Text: sanitizeTitle([]byte(s))}} }},
		{"OSC 7", func(s string) string { return "\x1b]7;file:///" + s + "\x07" },
			func(s string) []Event { return []Event{{Kind: EventCwd, Text: "/" + s, URL: "file:///" + s}} }},
		{"OSC 8", func(s string) string { return "\x1b]8;id=" + s + ";file:///" + s + "\x07\x1b]8;;\x07" }, nil},
		{"OSC 52", func(s string) string { return "\x1b]52;c;" + s + "\x07" }, nil},
		{"OSC 133", func(s string) string { return "\x1b]133;A;aid=" + s + "\x07" },
			func(string) []Event { return []Event{{Kind: EventPromptStart}} }},
		{"DCS", func(s string) string { return "\x1bP1$r" + s + "\x1b\\" }, nil},
		{"APC", func(s string) string { return "\x1b_G" + s + "\x1b\\" }, nil},
		{"PM", func(s string) string { return "\x1b^" + s + "\x1b\\" }, nil},
		{"SOS", func(s string) string { return "\x1bX" + s + "\x1b\\" }, nil},
	}
	for _, sc := range strs {
		t.Run(sc.name, func(t *testing.T) {
			var log eventLog
			term := NewTerminal(Config{Cols: 20, Rows: 3, HistoryRows: 1 << 16, OnEvent: log.add})
			defer term.Close()
			var in []byte
			var want []Event
			for i, s := range batches {
				in = append(in, sc.seq(s)...)
				in = fmt.Appendf(in, "%d\r\n", i)
				if sc.event != nil {
					want = append(want, sc.event(s)...)
				}
			}
			writeChunks(term, in, 4096)
			if evs := log.take(); !reflect.DeepEqual(evs, want) {
				for i := range min(len(evs), len(want)) {
					if !reflect.DeepEqual(evs[i], want[i]) {
						t.Fatalf("%d events, want %d; event %d: %+.80v, want %+.80v", len(evs), len(want), i, evs[i], want[i])
					}
				}
				t.Fatalf("%d events, want %d", len(evs), len(want))
			}
			rows := capture(t, term, i64(0), nil).Lines
			for i := range batches {
				if got, want := strings.TrimRight(rows[i], " "), fmt.Sprint(i); got != want {
					t.Fatalf("row %d = %q, want %q (the sequence of batch %d printed or swallowed text)", i, got, want, i)
				}
			}
		})
	}
	t.Run("screen", func(t *testing.T) {
		var log eventLog
		term := NewTerminal(Config{Cols: 80, Rows: 3, HistoryRows: 1 << 20, OnEvent: log.add})
		defer term.Close()
		var in []byte
		var lines []string
		for _, s := range c1Batches(64) { // at most 32 columns
			lines = append(lines, s)
			in = append(in, s+"|\r\n"...)
		}
		writeChunks(term, in, 4096)
		if evs := log.take(); len(evs) != 0 {
			t.Fatalf("events %+.200v", evs)
		}
		// The characters print as the library prints them when they come
		// straight to it (its UTF-8 collection was right in the ground
		// state): the decoder, the table and the fast path change nothing.
		got := allRows(t, term)
		want := plainRows(t, in, 80, 3, 4096)
		if len(got) != len(want) || len(got) < len(lines) {
			t.Fatalf("%d rows, want %d", len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] || !strings.HasSuffix(got[i], "|") && i < len(lines) {
				t.Fatalf("row %d = %+q, want %+q (characters %+q)", i, got[i], want[i], lines[i])
			}
		}
	})
}

// TestByteOutsideACharacterIsReplacedNeverAControl: a byte 0x80–0x9F of
// its own (or any ill-formed sequence) prints U+FFFD on the screen and is
// U+FFFD in a string; it never starts, ends or acts as a control.
func TestByteOutsideACharacterIsReplacedNeverAControl(t *testing.T) {
	var log eventLog
	term := NewTerminal(Config{Cols: 40, Rows: 3, OnEvent: log.add})
	defer term.Close()
	term.Write([]byte("a\x9cb\x9bc\x9dd\x90e\x85f\x8dg\x9fh\x07\x98i\x9ej"))
	term.Write([]byte("\r\n\x1b]2;x\x9cy\x9d\xe2\x9cz\x07k\xe2\x9c\x1b[1mB\x1b[m"))
	want := []Event{{Kind: EventBell}, {Kind: EventTitle, Text: "x\uFFFDy\uFFFD\uFFFDz"}}
	if evs := log.take(); !reflect.DeepEqual(evs, want) {
		t.Errorf("events %+v, want %+v", evs, want)
	}
	c := capture(t, term, nil, nil)
	for i, w := range []string{"a\uFFFDb\uFFFDc\uFFFDd\uFFFDe\uFFFDf\uFFFDg\uFFFDh\uFFFDi\uFFFDj", "k\uFFFDB", ""} {
		if got := strings.TrimRight(c.Lines[i], " "); got != w {
			t.Errorf("row %d = %q, want %q", i, got, w)
		}
	}
}

func TestUTF8DecoderReplacesMaximalSubpartsWhereverTheInputIsCut(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain", "plain"},
		{"\xe2\x9c\xb3 \xf0\x9f\x98\x80", "\xe2\x9c\xb3 \xf0\x9f\x98\x80"},
		{"\x9c", "\uFFFD"},
		{"a\xe2\x9cb", "a\uFFFDb"},          // cut short: one replacement
		{"\xe2\x9c\xe2\x9c\xb3", "\uFFFD✳"}, // a new lead byte ends the cut character
		{"\xc0\x80", "\uFFFD\uFFFD"},        // overlong
		{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"},
		{"\xf4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"}, // beyond U+10FFFF
		{"\xf5\xff", "\uFFFD\uFFFD"},
		{"\xf0\x9f\x98", ""}, // incomplete at the end: held
		{"\x1b]0;\xe2\x9c\x07", "\x1b]0;\uFFFD\x07"},
	}
	for _, c := range cases {
		for cut := 0; cut <= len(c.in); cut++ {
			var d utf8Decoder
			got := string(d.decode([]byte(c.in[:cut])))
			got += string(d.decode([]byte(c.in[cut:])))
			if got != c.want {
				t.Errorf("%+q cut at %d: %+q, want %+q", c.in, cut, got, c.want)
			}
		}
	}
	// Random bytes, rich in UTF-8 lead and continuation bytes, in random
	// pieces: the same as in one piece, and well-formed.
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("a\x1b\x07\x80\x8f\x9c\x9f\xa0\xbf\xc2\xdf\xe0\xe2\xed\xef\xf0\xf4\xf5")
	for range 200 {
		in := make([]byte, rng.IntN(300))
		for i := range in {
			in[i] = alphabet[rng.IntN(len(alphabet))]
		}
		var whole utf8Decoder
		want := string(whole.decode(in))
		var d utf8Decoder
		var got []byte
		for p := in; len(p) > 0; {
			n := min(len(p), 1+rng.IntN(5))
			got = append(got, d.decode(p[:n])...)
			p = p[n:]
		}
		if string(got) != want || !utf8.Valid(got) {
			t.Fatalf("%+q: in pieces %+q, whole %+q", in, got, want)
		}
		if bytes.Equal(in, []byte(want)) != utf8.Valid(in) {
			t.Fatalf("%+q: changed although well-formed", in)
		}
	}
}

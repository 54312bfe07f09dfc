package term

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// colourCases are terminals whose rows carry styles of every kind: 16,
// 256 and true colours, attributes, a hyperlink, a wide character in a
// styled run, a coloured blank past the text, styles on the screen and in
// history.
func colourCases(t testing.TB) map[string]*Terminal {
	mk := func(cols, rows int, out ...string) *Terminal {
		term := newTerm(t, cols, rows, 100, 1<<20)
		for _, o := range out {
			term.Write([]byte(o))
		}
		return term
	}
	var build strings.Builder
	for i := range 40 {
		build.WriteString("\x1b[1;34m" + strings.Repeat("#", i%7) + "\x1b[0m \x1b[32mok\x1b[m \x1b[38;5;" + string(rune('0'+i%10)) + "mpkg\x1b[0m \x1b[2m(dim)\x1b[22m \x1b[38;2;255;100;0mwarn\x1b[m: \x1b[4;3mx\x1b[0m\r\n")
	}
	return map[string]*Terminal{
		"build log": mk(60, 8, build.String(), "$ "),
		"link and wide": mk(30, 5, "\x1b]8;id=1;http://example.com/a\x1b\\link\x1b]8;;\x1b\\ plain \x1b[7m日本\x1b[m\r\n",
			"\x1b[41m  red bg  \x1b[m\r\n\x1b[44m\x1b[K\x1b[m\r\nnext\r\n\x1b[1mbold \x1b[31mand red\x1b[39m just bold\x1b[m\r\n"),
		"status bar": mk(20, 4, "top\r\n\x1b[4;1H\x1b[42m status \x1b[K\x1b[m\x1b[1;1H"),
	}
}

// A terminal restored from another's rows in the saved form shows the same
// rows, with the same colours, as the other did: a capture with escapes of
// the restored rows, and of rows carried into a new terminal's history,
// equals the saved lines; without escapes the text is the original's; and
// saving the restored rows again gives the same lines.
func TestSavedRowsKeepTheirColours(t *testing.T) {
	cases := colourCases(t)
	for name, term := range tailCases(t) {
		cases[name] = term
	}
	for name, term := range cases {
		saved := term.TailStyled(math.MaxInt, math.MaxInt)
		plain := term.TailTrimmed(math.MaxInt, math.MaxInt)
		if len(saved.Lines) != len(plain.Lines) {
			t.Fatalf("%s: %d saved rows, %d plain ones", name, len(saved.Lines), len(plain.Lines))
		}
		restored := NewRestoredTerminal(saved.Cols, saved.Rows, saved.Lines, saved.Epoch+1)
		relaunched := NewTerminal(Config{Cols: saved.Cols, Rows: saved.Rows, History: saved.Lines, Epoch: saved.Epoch + 1})
		t.Cleanup(relaunched.Close)
		for kind, r := range map[string]*Terminal{"restored": restored, "relaunched": relaunched} {
			n := int64(len(saved.Lines))
			c, err := r.Capture(CaptureRequest{Start: i64(0), End: i64(n), Escapes: true, Trim: true})
			if err != nil {
				t.Fatalf("%s, %s: %v", name, kind, err)
			}
			if !reflect.DeepEqual(c.Lines, saved.Lines) && !(n == 0 && len(c.Lines) == 0) {
				t.Errorf("%s, %s: rows with escapes\n%q\nwant\n%q", name, kind, c.Lines, saved.Lines)
			}
			c, _ = r.Capture(CaptureRequest{Start: i64(0), End: i64(n), Trim: true})
			if !reflect.DeepEqual(c.Lines, plain.Lines) && !(n == 0 && len(c.Lines) == 0) {
				t.Errorf("%s, %s: rows without escapes\n%q\nwant\n%q", name, kind, c.Lines, plain.Lines)
			}
			if again := r.TailStyled(math.MaxInt, math.MaxInt); !reflect.DeepEqual(again.Lines, saved.Lines) {
				t.Errorf("%s, %s: saved again\n%q\nwant\n%q", name, kind, again.Lines, saved.Lines)
			}
		}
	}
}

// Rows without styles are saved as their plain text.
func TestSavedFormOfPlainRowsIsTheirText(t *testing.T) {
	term := newTerm(t, 30, 6, 100, 1<<20)
	term.Write(seqData(1, 50))
	term.Write([]byte("日本語 and tabs\tx"))
	saved, plain := term.TailStyled(100, math.MaxInt), term.TailTrimmed(100, math.MaxInt)
	if !reflect.DeepEqual(saved, plain) {
		t.Errorf("saved %+v\nplain %+v", saved, plain)
	}
}

// A frame of a restored terminal draws its rows in their colours.
func TestRestoredFrameDrawsColours(t *testing.T) {
	r := NewRestoredTerminal(20, 3, []string{"\x1b[1;31mred\x1b[m plain", "\x1b[38;2;1;2;3mrgb\x1b[m"}, 1)
	f := string(r.Frame(NewRenderer("xterm-256color")))
	for _, want := range []string{"\x1b[31;1mred\x1b[m plain", "\x1b[38;2;1;2;3mrgb"} {
		if !strings.Contains(f, want) {
			t.Errorf("frame lacks %q: %q", want, f)
		}
	}
}

// Of the escape sequences in a saved row only styles are kept: other
// sequences go, control characters and broken UTF-8 become spaces, a
// style left open ends at the end of the row.
func TestSavedRowsKeepOnlyStyles(t *testing.T) {
	for in, want := range map[string]string{
		"a\x1b[2Jb\x1b]0;title\x07c":                  "abc",
		"\x1b[31mred":                                 "\x1b[31mred\x1b[m",
		"\x1b[0;31mx\x1b[0m y":                        "\x1b[0;31mx\x1b[m y",
		"\x1b[?25lhidden\x1b[31;1mX\x1b[m":            "hidden\x1b[31;1mX\x1b[m",
		"tab\there\x7f\x01end":                        "tab here  end",
		"bad \xff\xfe utf8":                           "bad    utf8",
		"\x1b[1mbold \x1b[31mred\x1b[m":               "\x1b[1mbold \x1b[m\x1b[1m\x1b[31mred\x1b[m",
		"\x1b]8;;http://x\x07l\x1b]8;;\x07 n":         "\x1b]8;;http://x\x07l\x1b[m\x1b]8;;\x07 n",
		"\x1b]8;;http://x\x1b\\l\x1b[m\x1b]8;;\x1b\\": "\x1b]8;;http://x\x07l\x1b[m\x1b]8;;\x07",
		"\x1b]8;;http://\x01x\x07l":                   "l",
		"\x1b[41m   \x1b[m   ":                        "\x1b[41m   \x1b[m",
		"unterminated \x1b[31":                        "unterminated",
		"\x1b":                                        "",
	} {
		r := NewRestoredTerminal(40, 1, []string{in}, 0)
		c, err := r.Capture(CaptureRequest{Escapes: true, Trim: true})
		if err != nil || len(c.Lines) != 1 || c.Lines[0] != want {
			t.Errorf("%q: %q (%v), want %q", in, c.Lines, err, want)
		}
	}
}

// FuzzSavedRow: any line parses to a row whose saved form parses to itself
// and which shows no control character but those of its styles.
func FuzzSavedRow(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[1;31mred\x1b[m x", "\x1b]8;;u\x07l\x1b[m\x1b]8;;\x07", "日本\x1b[7m語\x1b[m", "\x1b[38;2;1;2;3m\x1b]8;p;u\x1b\\ab\x1b[0m", "\x1b[", "\x1b]8;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var styles map[string]string
		r := parseSavedRow(s, &styles)
		line := r.Line(1<<16-1, true, true)
		r2 := parseSavedRow(line, &styles)
		if line2 := r2.Line(1<<16-1, true, true); line2 != line {
			t.Fatalf("%q: saved %q, again %q", s, line, line2)
		}
		if strings.ContainsFunc(r.Text, func(c rune) bool { return c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) }) {
			t.Fatalf("%q: text %q has control characters", s, r.Text)
		}
	})
}

// What a save renders of a pane's rows: 4096 rows of short plain text and
// of coloured text (six styled runs a row) on 80 columns, trimmed
// (TailTrimmed, the plain form) against styled (TailStyled, the saved form).
func BenchmarkTailStyled(b *testing.B) {
	plain := newTerm(b, 80, 24, DefaultHistoryRows, DefaultHistoryBytes)
	plain.Write(seqData(1, 20000))
	coloured := newTerm(b, 80, 24, DefaultHistoryRows, DefaultHistoryBytes)
	var out strings.Builder
	for i := range 5000 {
		out.WriteString("\x1b[1;34m0000\x1b[0m \x1b[32mok\x1b[m \x1b[38;5;" + string(rune('0'+i%10)) + "mpkg/module\x1b[0m \x1b[2m(0.1s)\x1b[22m \x1b[38;2;255;9;0mwarn\x1b[m: \x1b[1mx\x1b[0m\r\n")
	}
	coloured.Write([]byte(out.String()))
	for name, term := range map[string]*Terminal{"plain": plain, "coloured": coloured} {
		b.Run(name+"/TailTrimmed", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				term.TailTrimmed(4096, 1<<30)
			}
		})
		b.Run(name+"/TailStyled", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				term.TailStyled(4096, 1<<30)
			}
		})
	}
}

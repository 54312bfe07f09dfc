package term

import (
	"reflect"
	"strings"
	"testing"
)

// TailTrimmed's lines are Tail's without trailing spaces, over the same
// rows when no byte bound cuts them, and its byte bound counts the
// shorter lines.
func TestTailTrimmedIsTailWithoutTrailingSpaces(t *testing.T) {
	for name, term := range tailCases(t) {
		for _, maxRows := range []int{-1, 0, 1, 2, 3, 5, 8, 40, 1000} {
			full := term.Tail(maxRows, 1<<30)
			got := term.TailTrimmed(maxRows, 1<<30)
			want := full
			want.Lines = make([]string, len(full.Lines))
			want.Bytes = 0
			for i, l := range full.Lines {
				want.Lines[i] = strings.TrimRight(l, " ")
				want.Bytes += len(want.Lines[i])
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, TailTrimmed(%d, ∞):\n%+v\nwant\n%+v", name, maxRows, got, want)
			}
			for _, maxBytes := range []int{0, 1, 2, 5, 17, 100} {
				cut := term.TailTrimmed(maxRows, maxBytes)
				n := 0
				for _, l := range cut.Lines {
					n += len(l)
				}
				k := len(cut.Lines)
				if n != cut.Bytes || n > maxBytes || cut.End != want.End || int64(k) != cut.End-cut.Start ||
					!reflect.DeepEqual(cut.Lines, want.Lines[len(want.Lines)-k:]) {
					t.Fatalf("%s, TailTrimmed(%d, %d): %q, %d bytes, rows [%d, %d)", name, maxRows, maxBytes, cut.Lines, cut.Bytes, cut.Start, cut.End)
				}
				if k < len(want.Lines) && n+len(want.Lines[len(want.Lines)-k-1]) <= maxBytes {
					t.Fatalf("%s, TailTrimmed(%d, %d): left out a row that fits", name, maxRows, maxBytes)
				}
			}
		}
	}
}

// The rows a save keeps: 4096 rows of short text on 80 columns, padded
// (Tail) against trimmed (TailTrimmed).
func BenchmarkTailTrimmed(b *testing.B) {
	term := newTerm(b, 80, 24, DefaultHistoryRows, DefaultHistoryBytes)
	term.Write(seqData(1, 20000))
	b.Run("Tail", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			tl := term.Tail(4096, 1<<30)
			for i, l := range tl.Lines {
				tl.Lines[i] = strings.TrimRight(l, " ")
			}
		}
	})
	b.Run("TailTrimmed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			term.TailTrimmed(4096, 1<<30)
		}
	})
}

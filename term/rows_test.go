package term

import (
	"math/rand/v2"
	"reflect"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/signaltty/signaltty/term/rowstore"
)

func plainRow(s string) rowstore.Row { return rowstore.Row{Text: s, Cells: int32(len(s))} }

func cell(s string, w int, st uv.Style) uv.Cell { return uv.Cell{Content: s, Width: w, Style: st} }

func TestBuildRow(t *testing.T) {
	var b rowBuilder
	red := uv.Style{Fg: ansi.Red}
	bold := uv.Style{Attrs: uv.AttrBold}
	line := uv.Line{
		cell("a", 1, red), cell("日", 2, red), {}, cell("b", 1, uv.Style{}),
		cell("\x07", 1, uv.Style{}), // control character: a space
		cell("c", 1, bold), cell(" ", 1, bold), uv.EmptyCell, uv.EmptyCell,
	}
	r := b.build(line, 10, true)
	if r.Text != "a日b c" || r.Cells != 6 {
		t.Fatalf("text %q cells %d", r.Text, r.Cells)
	}
	want := []rowstore.StyleRun{{Start: 0, N: 3, Style: red.String()}, {Start: 5, N: 2, Style: bold.String()}}
	if !reflect.DeepEqual(r.Runs, want) {
		t.Fatalf("runs %+v, want %+v", r.Runs, want)
	}
	if got := r.Padded(10); got != "a日b c    " || ansi.StringWidth(got) != 10 {
		t.Fatalf("padded %q", got)
	}
	if b.build(line, 10, false).Runs != nil {
		t.Fatal("runs without withRuns")
	}
	// A wide character crossing the limit, a trimmed scrollback line whose
	// last wide character lost its continuation cell, an orphan
	// continuation and a lone zero-width mark.
	r = b.build(uv.Line{cell("x", 1, uv.Style{}), cell("日", 2, uv.Style{})}, 2, false)
	if r.Text != "x" || r.Padded(2) != "x " {
		t.Fatalf("crossing: %+v", r)
	}
	r = b.build(uv.Line{cell("x", 1, uv.Style{}), cell("日", 2, uv.Style{})}, 3, false)
	if r.Text != "x日" || r.Cells != 3 {
		t.Fatalf("trimmed wide: %+v", r)
	}
	r = b.build(uv.Line{{}, cell("\u0301", 0, uv.Style{}), cell("y", 1, uv.Style{})}, 3, false)
	if r.Text != "  y" || r.Cells != 3 {
		t.Fatalf("orphans: %+v", r)
	}
	// Hyperlinks count as style.
	link := uv.Cell{Content: "l", Width: 1, Link: uv.Link{URL: "http://x"}}
	r = b.build(uv.Line{link, link}, 2, true)
	if len(r.Runs) != 1 || r.Runs[0].N != 2 || r.Runs[0].Style != ansi.SetHyperlink("http://x") {
		t.Fatalf("link runs %+v", r.Runs)
	}
}

// TestBuildSimMatchesBuild: the fast path's ASCII row conversion gives what
// build gives for the cells the emulator would hold, once the scrollback
// trimmed them.
func TestBuildSimMatchesBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var b rowBuilder
	cells := []uv.Cell{
		uv.EmptyCell,
		{Content: " ", Width: 1, Style: uv.Style{Fg: ansi.Green}},
		{Content: " ", Width: 1, Style: uv.Style{Attrs: uv.AttrReverse}},
		{Content: " ", Width: 1, Style: uv.Style{Bg: ansi.Blue}},
		{Content: " ", Width: 1, Style: uv.Style{Fg: ansi.Red}},
		{Content: " ", Width: 1, Style: uv.Style{Fg: ansi.IndexedColor(1)}}, // Equal to red, not the same
		{Content: " ", Width: 1, Link: uv.Link{URL: "http://x"}},
	}
	pens := make([]pen, len(cells))
	for i, c := range cells {
		pens[i].cell = c
		if i > 0 {
			pens[i].key = b.styles.key(&c)
		}
	}
	for i := 0; i < 3000; i++ {
		cols := 1 + rng.IntN(20)
		row := make([]simCell, cols)
		line := make(uv.Line, cols)
		for x := range row {
			ch := byte(' ')
			if rng.IntN(3) > 0 {
				ch = byte(0x21 + rng.IntN(94))
			}
			p := rng.IntN(len(pens))
			if rng.IntN(3) == 0 {
				p = 0
			}
			row[x] = simCell{ch: uint32(ch), w: 1, p: uint16(p)}
			line[x] = pens[p].cell
			line[x].Content = string(rune(ch))
		}
		// The scrollback's trimming.
		n := len(line)
		for n > 0 && (line[n-1].IsZero() || line[n-1].Equal(&uv.EmptyCell)) {
			n--
		}
		want := b.build(line[:n], cols, true)
		got, ok := b.buildSimASCII(row, pens)
		if !ok || !reflect.DeepEqual(got, want) {
			t.Fatalf("row %x:\n got %+v\nwant %+v", row, got, want)
		}
	}
}

func TestStyleCacheSharesStrings(t *testing.T) {
	var sc styleCache
	red := uv.Cell{Style: uv.Style{Fg: ansi.Red}}
	k1 := sc.key(&red)
	for i := 0; i < 20; i++ { // push it out of the cache and back
		c := uv.Cell{Style: uv.Style{Fg: ansi.IndexedColor(i)}}
		sc.key(&c)
	}
	if k2 := sc.key(&red); k1 != k2 || k1 != "\x1b[31m" {
		t.Fatalf("keys %q %q", k1, k2)
	}
	// Colours that look the same keep their own encodings.
	c12 := uv.Cell{Style: uv.Style{Fg: ansi.IndexedColor(12)}}
	c21 := uv.Cell{Style: uv.Style{Fg: ansi.IndexedColor(21)}}
	if !c12.Style.Equal(&c21.Style) || sc.key(&c12) == sc.key(&c21) {
		t.Fatalf("256-colour 12 and 21: %q %q", sc.key(&c12), sc.key(&c21))
	}
	if k := sc.key(&uv.EmptyCell); k != "" {
		t.Fatalf("default style key %q", k)
	}
}

// BenchmarkBuildRow converts an 80-cell screen row (text in three styles,
// trailing blanks) into a stored row, as every row scrolled off is.
func BenchmarkBuildRow(b *testing.B) {
	line := make(uv.Line, 80)
	for x := range line {
		line[x] = uv.EmptyCell
		if x < 60 {
			line[x].Content = string(rune('a' + x%26))
		}
		switch {
		case x < 10:
			line[x].Style.Attrs = uv.AttrBold
		case x < 20:
			line[x].Style.Fg = ansi.Red
		}
	}
	var rb rowBuilder
	b.ReportAllocs()
	for b.Loop() {
		_ = rb.build(line, 80, true)
	}
}

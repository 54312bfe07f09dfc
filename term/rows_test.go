package term

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

func plainRow(s string) storedRow { return storedRow{text: s, cells: int32(len(s))} }

func TestRingRowLimit(t *testing.T) {
	r := newRowRing(5, 1<<20)
	for i := 0; i < 1000; i++ {
		r.push(plainRow(strconv.Itoa(i)))
		if r.n != min(i+1, 5) {
			t.Fatalf("after %d pushes: n=%d", i+1, r.n)
		}
		for k := 0; k < r.n; k++ {
			if want := strconv.Itoa(i - r.n + 1 + k); r.at(k).text != want {
				t.Fatalf("after %d pushes: row %d = %q, want %q", i+1, k, r.at(k).text, want)
			}
		}
	}
	if len(r.blocks) > 2 {
		t.Fatalf("%d blocks kept for 5 rows", len(r.blocks))
	}
}

func TestRingByteLimit(t *testing.T) {
	r := newRowRing(1000, 10)
	r.push(plainRow("abcd"))   // 4
	r.push(plainRow("efg"))    // 7
	r.push(plainRow("hi"))     // 9
	r.push(plainRow("jklmno")) // evicts abcd, efg: 8
	if r.n != 2 || r.bytes != 8 || r.at(0).text != "hi" {
		t.Fatalf("n=%d bytes=%d first=%q", r.n, r.bytes, r.at(0).text)
	}
	r.push(plainRow("0123456789A")) // larger than the budget: everything goes, nothing kept
	if r.n != 0 || r.bytes != 0 {
		t.Fatalf("oversized: n=%d bytes=%d", r.n, r.bytes)
	}
	r.push(plainRow("x"))
	if r.n != 1 || r.at(0).text != "x" {
		t.Fatalf("after oversized: n=%d", r.n)
	}
	styled := storedRow{text: "ab", cells: 2, runs: []styleRun{{0, 2, "\x1b[31m"}}}
	if styled.size() != 2+runCost+5 {
		t.Fatalf("styled size %d", styled.size())
	}
}

func TestRingGrowsLazilyAndAmortised(t *testing.T) {
	r := newRowRing(DefaultHistoryRows, DefaultHistoryBytes)
	if r.blocks != nil {
		t.Fatal("storage before the first row")
	}
	r.push(plainRow("a"))
	allocs := testing.AllocsPerRun(10, func() {
		for i := 0; i < 50000; i++ {
			r.push(plainRow("row"))
		}
	})
	if r.n != DefaultHistoryRows || allocs > 50000/blockRows*6 {
		t.Fatalf("%d rows, %v allocations per 50000 pushes", r.n, allocs)
	}
	r.reset()
	if r.n != 0 || r.blocks != nil || r.bytes != 0 {
		t.Fatal("reset")
	}
}

// TestRingStoresShortRowsCompactly: 10,000 rows of a few characters (seq)
// cost their text plus about 8 bytes each (end offset and width), and the
// rows read back are the rows pushed, style runs included.
func TestRingStoresShortRowsCompactly(t *testing.T) {
	r := newRowRing(DefaultHistoryRows, DefaultHistoryBytes)
	text := 0
	for i := 0; i < 3*DefaultHistoryRows; i++ {
		s := strconv.Itoa(i + 1)
		if i >= 2*DefaultHistoryRows {
			text += len(s)
		}
		r.push(plainRow(s))
	}
	footprint := 0
	for _, b := range r.blocks {
		footprint += cap(b.text) + 4*cap(b.ends) + 4*cap(b.cells) + 4*cap(b.runEnd) + 8*cap(b.runs) + 16*cap(b.styles)
		footprint += int(unsafe.Sizeof(*b)) + 8
	}
	if limit := (text + 8*DefaultHistoryRows) * 12 / 10; footprint > limit {
		t.Fatalf("%d rows of %d text bytes take %d bytes, want at most %d", r.n, text, footprint, limit)
	}
	for k := 0; k < r.n; k++ {
		if got, want := r.at(k).text, strconv.Itoa(2*DefaultHistoryRows+k+1); got != want {
			t.Fatalf("row %d = %q, want %q", k, got, want)
		}
	}
	// Style runs: rows with and without them in one block, styles shared.
	r = newRowRing(100, 1<<20)
	rows := []storedRow{
		plainRow("plain"),
		{text: "ab", cells: 2, runs: []styleRun{{0, 1, "\x1b[31m"}, {1, 3, "\x1b[1m"}}},
		plainRow(""),
		{text: "c", cells: 1, runs: []styleRun{{0, 5, "\x1b[31m"}}},
		{text: "日本", cells: 4},
	}
	size := 0
	for _, row := range rows {
		r.push(row)
		size += row.size()
	}
	for k, want := range rows {
		if got := r.at(k); !reflect.DeepEqual(got, want) {
			t.Fatalf("row %d = %+v, want %+v", k, got, want)
		}
	}
	if r.bytes != size || len(r.blocks[0].styles) != 2 {
		t.Fatalf("bytes %d (want %d), %d styles", r.bytes, size, len(r.blocks[0].styles))
	}
	for r.n > 0 {
		oldest := r.at(0)
		size -= oldest.size()
		r.dropOldest()
		if r.bytes != size {
			t.Fatalf("after a drop: bytes %d, want %d", r.bytes, size)
		}
	}
}

// TestRingBoundsDroppedRowsByBytes: rows dropped for the byte budget do not
// stay allocated with the block of the rows still kept beyond a small part
// of the budget.
func TestRingBoundsDroppedRowsByBytes(t *testing.T) {
	const budget = 64 << 10
	r := newRowRing(DefaultHistoryRows, budget)
	long := strings.Repeat("x", 4000)
	for i := 0; i < 1000; i++ {
		r.push(plainRow(long))
	}
	held := 0
	for _, b := range r.blocks {
		held += cap(b.text)
	}
	if r.bytes > budget || held > budget+budget/4 {
		t.Fatalf("budget %d: %d bytes counted, %d held", budget, r.bytes, held)
	}
}

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
	if r.text != "a日b c" || r.cells != 6 {
		t.Fatalf("text %q cells %d", r.text, r.cells)
	}
	want := []styleRun{{0, 3, red.String()}, {5, 2, bold.String()}}
	if !reflect.DeepEqual(r.runs, want) {
		t.Fatalf("runs %+v, want %+v", r.runs, want)
	}
	if got := r.padded(10); got != "a日b c    " || ansi.StringWidth(got) != 10 {
		t.Fatalf("padded %q", got)
	}
	if b.build(line, 10, false).runs != nil {
		t.Fatal("runs without withRuns")
	}
	// A wide character crossing the limit, a trimmed scrollback line whose
	// last wide character lost its continuation cell, an orphan
	// continuation and a lone zero-width mark.
	r = b.build(uv.Line{cell("x", 1, uv.Style{}), cell("日", 2, uv.Style{})}, 2, false)
	if r.text != "x" || r.padded(2) != "x " {
		t.Fatalf("crossing: %+v", r)
	}
	r = b.build(uv.Line{cell("x", 1, uv.Style{}), cell("日", 2, uv.Style{})}, 3, false)
	if r.text != "x日" || r.cells != 3 {
		t.Fatalf("trimmed wide: %+v", r)
	}
	r = b.build(uv.Line{{}, cell("\u0301", 0, uv.Style{}), cell("y", 1, uv.Style{})}, 3, false)
	if r.text != "  y" || r.cells != 3 {
		t.Fatalf("orphans: %+v", r)
	}
	// Hyperlinks count as style.
	link := uv.Cell{Content: "l", Width: 1, Link: uv.Link{URL: "http://x"}}
	r = b.build(uv.Line{link, link}, 2, true)
	if len(r.runs) != 1 || r.runs[0].n != 2 || r.runs[0].style != ansi.SetHyperlink("http://x") {
		t.Fatalf("link runs %+v", r.runs)
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

func TestPadText(t *testing.T) {
	for _, c := range []struct {
		text  string
		cells int
		cols  int
		want  string
	}{
		{"", 0, 3, "   "},
		{"ab", 2, 2, "ab"},
		{"abcdef", 6, 4, "abcd"},
		{"a日本", 5, 4, "a日 "},
		{"a日本", 5, 3, "a日"},
		{"日本", 4, 1, " "},
		{"👍🏽x", 3, 2, "👍🏽"},
	} {
		if got := padText(c.text, c.cells, c.cols); got != c.want || ansi.StringWidth(got) != c.cols {
			t.Errorf("padText(%q, %d, %d) = %q, want %q", c.text, c.cells, c.cols, got, c.want)
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

// BenchmarkRowRing pushes rows of 80 characters (one style run each) into a
// full 10,000-row store, evicting the oldest, and reads one back per push.
func BenchmarkRowRing(b *testing.B) {
	rows := make([]storedRow, 1024)
	for i := range rows {
		s := strconv.Itoa(i)
		for len(s) < 80 {
			s += "abcdefghij"
		}
		rows[i] = storedRow{text: s[:80], cells: 80, runs: []styleRun{{start: 0, n: 8, style: "\x1b[1;31m"}}}
	}
	r := newRowRing(DefaultHistoryRows, DefaultHistoryBytes)
	for i := 0; i < DefaultHistoryRows; i++ {
		r.push(rows[i%len(rows)])
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r.push(rows[i%len(rows)])
		_ = r.textAt(i % r.n)
		i++
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

// BenchmarkRowRingShortRows pushes rows of a few characters (seq output)
// into a full 10,000-row store, as every line of `seq` is stored, and
// reports the store's bytes per kept row.
func BenchmarkRowRingShortRows(b *testing.B) {
	rows := make([]storedRow, 1024)
	for i := range rows {
		rows[i] = plainRow(strconv.Itoa(100000 + i))
	}
	r := newRowRing(DefaultHistoryRows, DefaultHistoryBytes)
	for i := 0; i < DefaultHistoryRows; i++ {
		r.push(rows[i%len(rows)])
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r.push(rows[i%len(rows)])
		i++
	}
	held := 0
	for _, blk := range r.blocks {
		held += cap(blk.text) + 4*cap(blk.ends) + 4*cap(blk.cells)
	}
	b.ReportMetric(float64(held)/float64(r.n), "bytes/row")
}

package rowstore

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/charmbracelet/x/ansi"
)

// The terminal's default bounds (term.DefaultHistoryRows, DefaultHistoryBytes).
const (
	defaultRows  = 10000
	defaultBytes = 16 << 20
)

func plainRow(s string) Row { return Row{Text: s, Cells: int32(len(s))} }

func TestRingRowLimit(t *testing.T) {
	r := NewRing(5, 1<<20)
	for i := 0; i < 1000; i++ {
		r.Push(plainRow(strconv.Itoa(i)))
		if r.n != min(i+1, 5) {
			t.Fatalf("after %d pushes: n=%d", i+1, r.n)
		}
		for k := 0; k < r.n; k++ {
			if want := strconv.Itoa(i - r.n + 1 + k); r.At(k).Text != want {
				t.Fatalf("after %d pushes: row %d = %q, want %q", i+1, k, r.At(k).Text, want)
			}
		}
	}
	if len(r.blocks) > 2 {
		t.Fatalf("%d blocks kept for 5 rows", len(r.blocks))
	}
}

func TestRingByteLimit(t *testing.T) {
	r := NewRing(1000, 10)
	r.Push(plainRow("abcd"))   // 4
	r.Push(plainRow("efg"))    // 7
	r.Push(plainRow("hi"))     // 9
	r.Push(plainRow("jklmno")) // evicts abcd, efg: 8
	if r.n != 2 || r.bytes != 8 || r.At(0).Text != "hi" {
		t.Fatalf("n=%d bytes=%d first=%q", r.n, r.bytes, r.At(0).Text)
	}
	r.Push(plainRow("0123456789A")) // larger than the budget: everything goes, nothing kept
	if r.n != 0 || r.bytes != 0 {
		t.Fatalf("oversized: n=%d bytes=%d", r.n, r.bytes)
	}
	r.Push(plainRow("x"))
	if r.n != 1 || r.At(0).Text != "x" {
		t.Fatalf("after oversized: n=%d", r.n)
	}
	styled := Row{Text: "ab", Cells: 2, Runs: []StyleRun{{0, 2, "\x1b[31m"}}}
	if styled.Size() != 2+RunCost+5 {
		t.Fatalf("styled size %d", styled.Size())
	}
}

func TestRingGrowsLazilyAndAmortised(t *testing.T) {
	r := NewRing(defaultRows, defaultBytes)
	if r.blocks != nil {
		t.Fatal("storage before the first row")
	}
	r.Push(plainRow("a"))
	allocs := testing.AllocsPerRun(10, func() {
		for i := 0; i < 50000; i++ {
			r.Push(plainRow("row"))
		}
	})
	if r.n != defaultRows || allocs > 50000/blockRows*6 {
		t.Fatalf("%d rows, %v allocations per 50000 pushes", r.n, allocs)
	}
	r.Reset()
	if r.n != 0 || r.blocks != nil || r.bytes != 0 {
		t.Fatal("reset")
	}
}

// TestRingStoresShortRowsCompactly: 10,000 rows of a few characters (seq)
// cost their text plus about 8 bytes each (end offset and width), and the
// rows read back are the rows pushed, style runs included.
func TestRingStoresShortRowsCompactly(t *testing.T) {
	r := NewRing(defaultRows, defaultBytes)
	text := 0
	for i := 0; i < 3*defaultRows; i++ {
		s := strconv.Itoa(i + 1)
		if i >= 2*defaultRows {
			text += len(s)
		}
		r.Push(plainRow(s))
	}
	footprint := 0
	for _, b := range r.blocks {
		footprint += cap(b.text) + 4*cap(b.ends) + 4*cap(b.cells) + 4*cap(b.runEnd) + 8*cap(b.runs) + 16*cap(b.styles)
		footprint += int(unsafe.Sizeof(*b)) + 8
	}
	if limit := (text + 8*defaultRows) * 12 / 10; footprint > limit {
		t.Fatalf("%d rows of %d text bytes take %d bytes, want at most %d", r.n, text, footprint, limit)
	}
	for k := 0; k < r.n; k++ {
		if got, want := r.At(k).Text, strconv.Itoa(2*defaultRows+k+1); got != want {
			t.Fatalf("row %d = %q, want %q", k, got, want)
		}
	}
	// Style runs: rows with and without them in one block, styles shared.
	r = NewRing(100, 1<<20)
	rows := []Row{
		plainRow("plain"),
		{Text: "ab", Cells: 2, Runs: []StyleRun{{0, 1, "\x1b[31m"}, {1, 3, "\x1b[1m"}}},
		plainRow(""),
		{Text: "c", Cells: 1, Runs: []StyleRun{{0, 5, "\x1b[31m"}}},
		{Text: "日本", Cells: 4},
	}
	size := 0
	for _, row := range rows {
		r.Push(row)
		size += row.Size()
	}
	for k, want := range rows {
		if got := r.At(k); !reflect.DeepEqual(got, want) {
			t.Fatalf("row %d = %+v, want %+v", k, got, want)
		}
	}
	if r.bytes != size || len(r.blocks[0].styles) != 2 {
		t.Fatalf("bytes %d (want %d), %d styles", r.bytes, size, len(r.blocks[0].styles))
	}
	for r.n > 0 {
		oldest := r.At(0)
		size -= oldest.Size()
		r.DropOldest()
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
	r := NewRing(defaultRows, budget)
	long := strings.Repeat("x", 4000)
	for i := 0; i < 1000; i++ {
		r.Push(plainRow(long))
	}
	held := 0
	for _, b := range r.blocks {
		held += cap(b.text)
	}
	if r.bytes > budget || held > budget+budget/4 {
		t.Fatalf("budget %d: %d bytes counted, %d held", budget, r.bytes, held)
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

// BenchmarkRowRing pushes rows of 80 characters (one style run each) into a
// full 10,000-row store, evicting the oldest, and reads one back per push.
func BenchmarkRowRing(b *testing.B) {
	rows := make([]Row, 1024)
	for i := range rows {
		s := strconv.Itoa(i)
		for len(s) < 80 {
			s += "abcdefghij"
		}
		rows[i] = Row{Text: s[:80], Cells: 80, Runs: []StyleRun{{Start: 0, N: 8, Style: "\x1b[1;31m"}}}
	}
	r := NewRing(defaultRows, defaultBytes)
	for i := 0; i < defaultRows; i++ {
		r.Push(rows[i%len(rows)])
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r.Push(rows[i%len(rows)])
		_ = r.TextAt(i % r.n)
		i++
	}
}

// BenchmarkRowRingShortRows pushes rows of a few characters (seq output)
// into a full 10,000-row store, as every line of `seq` is stored, and
// reports the store's bytes per kept row.
func BenchmarkRowRingShortRows(b *testing.B) {
	rows := make([]Row, 1024)
	for i := range rows {
		rows[i] = plainRow(strconv.Itoa(100000 + i))
	}
	r := NewRing(defaultRows, defaultBytes)
	for i := 0; i < defaultRows; i++ {
		r.Push(rows[i%len(rows)])
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r.Push(rows[i%len(rows)])
		i++
	}
	held := 0
	for _, blk := range r.blocks {
		held += cap(blk.text) + 4*cap(blk.ends) + 4*cap(blk.cells)
	}
	b.ReportMetric(float64(held)/float64(r.n), "bytes/row")
}

package term

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// writeLines writes n numbered lines of 99 bytes each to t.
func writeLines(t *Terminal, tag string, n int) {
	for i := 0; i < n; i++ {
		line := fmt.Sprintf("%s%06d", tag, i)
		t.Write([]byte(line + strings.Repeat("x", 99-len(line)) + "\r\n"))
	}
}

func oldestOf(t *testing.T, term *Terminal) int64 {
	t.Helper()
	c, err := term.Capture(CaptureRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return c.Oldest
}

func TestRowBudgetDropsOldestRowsOfTheLargestTerminal(t *testing.T) {
	b := NewRowBudget(20_000)
	big := NewTerminal(Config{Cols: 100, Rows: 5, Budget: b})
	small := NewTerminal(Config{Cols: 100, Rows: 5, Budget: b})
	defer big.Close()
	defer small.Close()

	writeLines(big, "b", 150) // about 14,500 bytes of history: within the budget
	if o := oldestOf(t, big); o != 0 {
		t.Fatalf("within the budget: oldest %d, want 0", o)
	}
	if used := b.Used(); used > b.Max() || used == 0 {
		t.Fatalf("used %d of %d", used, b.Max())
	}
	// The small terminal stays under its fair share (10,000): the budget
	// takes the excess from the big one.
	writeLines(small, "s", 80)
	deadline := time.Now().Add(10 * time.Second)
	for b.Used() > b.Max() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if used := b.Used(); used > b.Max() {
		t.Fatalf("used %d, more than the budget %d", used, b.Max())
	}
	if o := oldestOf(t, big); o == 0 {
		t.Errorf("the largest terminal's oldest row did not advance")
	}
	if o := oldestOf(t, small); o != 0 {
		t.Errorf("the terminal under its share lost rows: oldest %d", o)
	}
	// A terminal past its share drops its own rows as it pushes.
	writeLines(small, "t", 300)
	// Its own rows go as it pushes; what the total still exceeds by is
	// taken by the budget's trimmer, so wait for that as above.
	for deadline := time.Now().Add(10 * time.Second); b.Used() > b.Max() && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if used := b.Used(); used > b.Max() {
		t.Errorf("after the small terminal grew past its share: used %d of %d", used, b.Max())
	}
	if o := oldestOf(t, small); o == 0 {
		t.Errorf("the growing terminal's oldest row did not advance")
	}
	// Captured rows start at oldest.
	c, err := small.Capture(CaptureRequest{Start: ptr(oldestOf(t, small))})
	if err != nil || len(c.Lines) == 0 {
		t.Fatalf("capture from oldest: %v %d lines", err, len(c.Lines))
	}
	big.Close()
	if b.Members() != 1 {
		t.Errorf("after Close: %d members, want 1", b.Members())
	}
}

func TestRowBudgetCountsClearedHistoryAsFreed(t *testing.T) {
	b := NewRowBudget(1 << 20)
	tm := NewTerminal(Config{Cols: 100, Rows: 5, Budget: b})
	defer tm.Close()
	writeLines(tm, "x", 100)
	if b.Used() == 0 {
		t.Fatal("history not counted")
	}
	tm.Write([]byte("\x1b[3J")) // erase saved lines
	if u := b.Used(); u != 0 {
		t.Errorf("after clearing the history: used %d, want 0", u)
	}
}

func ptr[T any](v T) *T { return &v }

func TestLineCostIsTheLineAsJSON(t *testing.T) {
	for _, text := range []string{"", "plain", `a"b\c`, "<a&b>", "x\u2028y\u2029", "héllo wörld"} {
		r := textRow(text)
		line := r.Padded(12)
		b, err := json.Marshal([]string{line})
		if err != nil {
			t.Fatal(err)
		}
		// [ "line" ] is the line's cost minus the comma, plus the brackets.
		if got, want := lineCost(&r, 12), len(b)-2+1; got != want {
			t.Errorf("%q: cost %d, want %d (%s)", text, got, want, b)
		}
	}
}

// BenchmarkRowBudget compares writing 200,000 lines to a terminal outside
// any budget, in a budget it never fills, and in a full budget shared
// with an idle terminal (every row pushed makes room).
func BenchmarkRowBudget(b *testing.B) {
	data := seqData(1, 200000)
	for _, bc := range []struct {
		name   string
		budget int64
	}{{"none", 0}, {"roomy", 1 << 30}, {"full", 32 << 10}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				var budget *RowBudget
				var idle *Terminal
				if bc.budget > 0 {
					budget = NewRowBudget(bc.budget)
					idle = NewTerminal(Config{Cols: 80, Rows: 24, Budget: budget})
				}
				tm := NewTerminal(Config{Cols: 80, Rows: 24, Budget: budget})
				for off := 0; off < len(data); off += 65536 {
					tm.Write(data[off:min(off+65536, len(data))])
				}
				tm.Close()
				if idle != nil {
					idle.Close()
				}
			}
		})
	}
}

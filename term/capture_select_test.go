package term

import (
	"slices"
	"strconv"
	"testing"
)

// trimmedLines returns the lines of a capture without trailing spaces.
func trimmedLines(c Capture) []string {
	out := make([]string, len(c.Lines))
	for i, l := range c.Lines {
		out[i] = trimRight(l)
	}
	return out
}

func trimRight(s string) string {
	for len(s) > 0 && s[len(s)-1] == ' ' {
		s = s[:len(s)-1]
	}
	return s
}

// 1..50 in a 5-row screen keeping 100 rows: rows 0..49 hold "1".."50",
// row 50, the cursor's, is blank; end is 51.
func numberedTerm(t *testing.T) *Terminal {
	term := newTerm(t, 20, 5, 100, 1<<20)
	term.Write(seqData(1, 50))
	return term
}

func TestCaptureLastSelectsRowsEndingAtTheScreensBottom(t *testing.T) {
	term := numberedTerm(t)
	c, err := term.Capture(CaptureRequest{Last: i64(8)})
	if err != nil {
		t.Fatal(err)
	}
	if c.First != c.End-8 || len(c.Lines) != 8 || c.Next != c.End {
		t.Fatalf("last 8: first %d next %d lines %d, end %d", c.First, c.Next, len(c.Lines), c.End)
	}
	if got := trimmedLines(c); !slices.Equal(got, []string{"44", "45", "46", "47", "48", "49", "50", ""}) {
		t.Fatalf("last 8 starts %q", got)
	}
	if c, _ := term.Capture(CaptureRequest{Last: i64(0)}); len(c.Lines) != 0 || c.First != c.End {
		t.Fatalf("last 0: %+v", c)
	}
	checkRangeErr(t, term, CaptureRequest{Last: i64(1000)}, "before_oldest")
}

func TestCaptureHistoryStartsAtTheOldestKeptRow(t *testing.T) {
	term := numberedTerm(t)
	c, err := term.Capture(CaptureRequest{History: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.First != c.Oldest || c.Next != c.End {
		t.Fatalf("history: first %d next %d, oldest %d end %d", c.First, c.Next, c.Oldest, c.End)
	}
	for i := range 50 {
		if got := trimRight(c.Lines[i]); got != strconv.Itoa(i+1) {
			t.Fatalf("history row %d is %q", i, got)
		}
	}
	c, err = term.Capture(CaptureRequest{History: true, End: i64(10)})
	if err != nil || c.First != c.Oldest || len(c.Lines) != 10 {
		t.Fatalf("history to 10: %+v %v", c, err)
	}
}

func TestCaptureClampServesTheRowsThatExistAndSaysSo(t *testing.T) {
	term := numberedTerm(t)
	full, _ := term.Capture(CaptureRequest{History: true})
	c, err := term.Capture(CaptureRequest{Start: i64(-10), End: i64(full.End + 100), Clamp: true})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Clamped || c.First != full.Oldest || c.Next != full.End || !slices.Equal(c.Lines, full.Lines) {
		t.Fatalf("clamped: first %d next %d clamped %v, want %d..%d", c.First, c.Next, c.Clamped, full.Oldest, full.End)
	}
	c, err = term.Capture(CaptureRequest{Last: i64(1000), Clamp: true})
	if err != nil || !c.Clamped || c.First != full.Oldest {
		t.Fatalf("last 1000 clamped: first %d clamped %v (%v)", c.First, c.Clamped, err)
	}
	c, err = term.Capture(CaptureRequest{Start: i64(full.End + 5), Clamp: true})
	if err != nil || len(c.Lines) != 0 || c.First != full.End {
		t.Fatalf("start past the end, clamped: %+v %v", c, err)
	}
	if c, _ := term.Capture(CaptureRequest{Start: i64(3), End: i64(6), Clamp: true}); c.Clamped {
		t.Fatalf("a range in bounds reports clamped")
	}
	checkRangeErr(t, term, CaptureRequest{Start: i64(6), End: i64(3), Clamp: true}, "inverted")
	checkRangeErr(t, term, CaptureRequest{Start: i64(-10)}, "before_oldest")
	checkRangeErr(t, term, CaptureRequest{End: i64(full.End + 1)}, "after_end")
}

func TestCaptureCutReturnsTheRowsThatFitAndWhereToGoOn(t *testing.T) {
	term := numberedTerm(t)
	// Trimmed, "1".."9" cost 4 bytes each (quotes and comma), "10".. 5.
	c, err := term.Capture(CaptureRequest{Start: i64(0), End: i64(20), Trim: true, MaxBytes: 40, Cut: true})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Cut || c.Next != 9 || len(c.Lines) != 9 || c.Lines[8] != "9" {
		t.Fatalf("cut at 40 bytes: next %d cut %v lines %q", c.Next, c.Cut, c.Lines)
	}
	c, err = term.Capture(CaptureRequest{Start: i64(0), End: i64(20), Trim: true, MaxBytes: 1, Cut: true})
	if err != nil || c.Next != 1 || len(c.Lines) != 1 {
		t.Fatalf("a budget under one row still serves one: %+v %v", c, err)
	}
	checkRangeErr(t, term, CaptureRequest{Start: i64(0), End: i64(20), Trim: true, MaxBytes: 40}, "too_large")
	var pages []string
	for next := c.Oldest; ; {
		p, err := term.Capture(CaptureRequest{Start: &next, History: false, Trim: true, MaxBytes: 50, Cut: true})
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, p.Lines...)
		if next = p.Next; !p.Cut {
			break
		}
	}
	full, _ := term.Capture(CaptureRequest{History: true, Trim: true})
	if !slices.Equal(pages, full.Lines) {
		t.Fatalf("the pages join to %q, want %q", pages, full.Lines)
	}
}

func TestCaptureEscapesRendersSGRAndTrimKeepsStyledCells(t *testing.T) {
	term := newTerm(t, 20, 3, 100, 1<<20)
	term.Write([]byte("plain \x1b[1;31mred\x1b[m x\x1b[44m  \x1b[m\r\n"))
	c, err := term.Capture(CaptureRequest{Start: i64(0), End: i64(1), Escapes: true})
	if err != nil {
		t.Fatal(err)
	}
	const styled = "plain \x1b[1;31mred\x1b[m x\x1b[44m  \x1b[m"
	if want := styled + "       "; c.Lines[0] != want {
		t.Fatalf("escapes: %q, want %q", c.Lines[0], want)
	}
	c, _ = term.Capture(CaptureRequest{Start: i64(0), End: i64(1), Escapes: true, Trim: true})
	if c.Lines[0] != styled {
		t.Fatalf("escapes trimmed: %q, want %q", c.Lines[0], styled)
	}
	c, _ = term.Capture(CaptureRequest{Start: i64(0), End: i64(1), Trim: true})
	if c.Lines[0] != "plain red x" {
		t.Fatalf("trimmed without escapes: %q", c.Lines[0])
	}
	// Screen rows render the same way as history rows.
	term.Write([]byte("\x1b[32mgo\x1b[m"))
	c, _ = term.Capture(CaptureRequest{Escapes: true, Trim: true})
	if c.Lines[1] != "\x1b[32mgo\x1b[m" {
		t.Fatalf("screen row with escapes: %q", c.Lines)
	}
}

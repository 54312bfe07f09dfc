package term

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
	"github.com/signaltty/signaltty/term/rowstore"
)

// ---- helpers ----

func newTerm(t testing.TB, cols, rows, histRows, histBytes int) *Terminal {
	t.Helper()
	term := NewTerminal(Config{Cols: cols, Rows: rows, HistoryRows: histRows, HistoryBytes: histBytes})
	t.Cleanup(term.Close)
	return term
}

func writeChunks(term *Terminal, data []byte, chunk int) {
	for len(data) > 0 {
		n := min(chunk, len(data))
		term.Write(data[:n])
		data = data[n:]
	}
}

func seqData(from, to int) []byte {
	var b []byte
	for i := from; i <= to; i++ {
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, '\r', '\n')
	}
	return b
}

func capture(t testing.TB, term *Terminal, start, end *int64) Capture {
	t.Helper()
	c, err := term.Capture(CaptureRequest{Start: start, End: end})
	if err != nil {
		t.Fatalf("capture: %v", err)
	}
	return c
}

func i64(v int64) *int64 { return &v }

// checkWidths asserts every line is exactly cols cells wide and has no
// control characters.
func checkWidths(t testing.TB, c Capture) {
	t.Helper()
	for i, l := range c.Lines {
		if w := ansi.StringWidth(l); w != c.Cols {
			t.Errorf("line %d %q: width %d, want %d", i, l, w, c.Cols)
		}
		for _, r := range l {
			if r < 0x20 || (r >= 0x7f && r < 0xa0) {
				t.Errorf("line %d %q: control character %U", i, l, r)
			}
		}
	}
}

type eventLog struct {
	mu  sync.Mutex
	evs []Event
}

func (l *eventLog) add(e Event) {
	l.mu.Lock()
	l.evs = append(l.evs, e)
	l.mu.Unlock()
}

func (l *eventLog) take() []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.evs
	l.evs = nil
	return e
}

// ---- text, widths, screens ----

func TestUTF8SplitAcrossWrites(t *testing.T) {
	term := newTerm(t, 10, 3, 100, 1<<20)
	for _, b := range [][]byte{{0xe6}, {0x97, 0xa5}, []byte("e"), {0xcc}, {0x81}, []byte("x\xf0\x9f"), {0x91, 0x8d}} {
		term.Write(b)
	}
	c := capture(t, term, nil, nil)
	checkWidths(t, c)
	if want := "日e\u0301x👍    "; c.Lines[0] != want {
		t.Fatalf("line 0 = %q, want %q", c.Lines[0], want)
	}
	// A cluster split between writes stays one cell: the library ends a
	// cluster at the end of each write, so the last one is held back until
	// the next write (or until the screen is looked at).
	term.Write([]byte("\r\n👍"))
	term.Write([]byte("🏽|e"))
	term.Write([]byte("\u0301|"))
	c = capture(t, term, nil, nil)
	checkWidths(t, c)
	if want := "👍🏽|e\u0301|     "; c.Lines[1] != want {
		t.Fatalf("line 1 = %q, want %q", c.Lines[1], want)
	}
	term.Write([]byte("z"))
	if c = capture(t, term, nil, nil); c.Lines[1] != "👍🏽|e\u0301|z    " {
		t.Fatalf("held character not shown: %q", c.Lines[1])
	}
}

func TestWideCharacters(t *testing.T) {
	term := newTerm(t, 12, 4, 100, 1<<20)
	rows := []string{"日本語", "a👍🏽b", "👨‍👩‍👧!", "🇯🇵❤️", "x日y本z"}
	for _, r := range rows {
		term.Write([]byte(r + "\r\n"))
	}
	// Two rows scrolled into history: all rows, history and screen, are
	// exactly 12 cells.
	c := capture(t, term, i64(0), nil)
	checkWidths(t, c)
	if c.First != 0 || c.Oldest != 0 || len(c.Lines) != 6 {
		t.Fatalf("capture %+v", c)
	}
	// Display widths: 日本語 6, a👍🏽b 4, 👨‍👩‍👧! 3, 🇯🇵❤️ 4, x日y本z 7.
	widths := []int{6, 4, 3, 4, 7}
	for i, r := range rows {
		if want := r + strings.Repeat(" ", 12-widths[i]); c.Lines[i] != want {
			t.Errorf("row %d = %q, want %q", i, c.Lines[i], want)
		}
	}
	if c.Lines[5] != strings.Repeat(" ", 12) {
		t.Errorf("row 5 = %q", c.Lines[5])
	}
	// A full row of wide characters.
	term.Write([]byte("日本語日本語"))
	c = capture(t, term, nil, nil)
	checkWidths(t, c)
	if c.Lines[3] != "日本語日本語" {
		t.Fatalf("full wide row = %q", c.Lines[3])
	}
}

func TestControlCharactersNeverCaptured(t *testing.T) {
	term := newTerm(t, 10, 2, 100, 1<<20)
	term.Write([]byte("a\x00b\x7fc\x01d\u0085e\r\n"))
	c := capture(t, term, nil, nil)
	checkWidths(t, c)
	if !strings.HasPrefix(c.Lines[0], "abcd") {
		t.Fatalf("line 0 = %q", c.Lines[0])
	}
}

func TestEraseDisplay(t *testing.T) {
	term := newTerm(t, 20, 5, 100, 1<<20)
	term.Write([]byte("one\r\ntwo\r\n\r\nfour"))
	term.Write([]byte("\x1b[2J\x1b[Hnew"))
	c := capture(t, term, i64(0), nil)
	checkWidths(t, c)
	// The library pushes the non-empty screen rows into the history on ED 2.
	var got []string
	for _, l := range c.Lines {
		got = append(got, strings.TrimRight(l, " "))
	}
	want := []string{"one", "two", "four", "new", "", "", "", ""}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	if c.First != 0 || c.End != 8 || c.Oldest != 0 {
		t.Fatalf("numbering %+v", c)
	}
	if s := capture(t, term, nil, nil); s.First != 3 || strings.TrimRight(s.Lines[0], " ") != "new" {
		t.Fatalf("screen %+v", s)
	}
}

func TestAlternateScreen(t *testing.T) {
	var log eventLog
	term := NewTerminal(Config{Cols: 20, Rows: 5, HistoryRows: 100, HistoryBytes: 1 << 20, OnEvent: log.add})
	defer term.Close()
	term.Write(seqData(1, 8))
	before := capture(t, term, nil, nil)
	hist := capture(t, term, i64(0), nil)
	log.take()

	term.Write([]byte("\x1b[?1049h\x1b[HALT"))
	if !term.AltScreen() {
		t.Fatal("AltScreen() = false")
	}
	// Output that scrolls the alternate screen never enters the history.
	term.Write([]byte("\r\n" + string(seqData(100, 150)) + "TOP"))
	alt := capture(t, term, nil, nil)
	checkWidths(t, alt)
	if alt.Screen != ScreenAlternate || alt.First != before.First || alt.Oldest != before.Oldest || alt.End != before.End {
		t.Fatalf("alt capture %+v, primary %+v", alt, before)
	}
	if strings.TrimRight(alt.Lines[4], " ") != "TOP" {
		t.Fatalf("alt screen %q", alt.Lines)
	}
	term.Write([]byte("\x1b[?1049l"))
	after := capture(t, term, nil, nil)
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("primary changed:\n%+v\n%+v", before, after)
	}
	if h := capture(t, term, i64(0), nil); !reflect.DeepEqual(hist, h) {
		t.Fatalf("history changed")
	}
	evs := log.take()
	want := []Event{{Kind: EventAltScreen, Bool: true}, {Kind: EventAltScreen, Bool: false}}
	if !reflect.DeepEqual(evs, want) {
		t.Fatalf("events %+v", evs)
	}
}

// ---- OSC and events ----

func TestTitles(t *testing.T) {
	var log eventLog
	term := NewTerminal(Config{Cols: 20, Rows: 5, HistoryRows: 100, HistoryBytes: 1 << 20, OnEvent: log.add})
	defer term.Close()
	title := func(write ...string) string { // the title the writes report last ("" for none)
		for _, w := range write {
			term.Write([]byte(w))
		}
		got := ""
		for _, e := range log.take() {
			if e.Kind != EventTitle {
				t.Fatalf("unexpected event %+v", e)
			}
			got = e.Text
		}
		return got
	}
	if got := title("\x1b]0;a;b c\x07"); got != "a;b c" {
		t.Fatalf("title %q", got)
	}
	if got := title("\x1b]2;x;y;\x1b\\"); got != "x;y;" {
		t.Fatalf("title %q", got)
	}
	if got := title("\x1b]1;icon\x07"); got != "" {
		t.Fatalf("OSC 1 reported the title %q", got)
	}
	if got := title("\x1b]2;t\u0085a\x7fb\x07"); got != "tab" { // C1 and DEL dropped
		t.Fatalf("title %q", got)
	}
	if got := title("\x1b]2;sp", "lit;x\x1b", "\\"); got != "split;x" { // split across writes
		t.Fatalf("title %q", got)
	}
	if got := title("\x1b]2;" + strings.Repeat("é", 600) + "\x07"); len(got) != maxTitleBytes || got != strings.Repeat("é", 512) {
		t.Fatalf("long title: %d bytes", len(got))
	}
}

func TestCwd(t *testing.T) {
	var log eventLog
	term := NewTerminal(Config{Cols: 20, Rows: 5, HistoryRows: 100, HistoryBytes: 1 << 20, OnEvent: log.add})
	defer term.Close()
	url := "file://host.example/home/u/a;b%20c"
	term.Write([]byte("\x1b]7;" + url + "\x1b\\"))
	evs := log.take()
	want := []Event{{Kind: EventCwd, Text: "/home/u/a;b c", URL: url}}
	if !reflect.DeepEqual(evs, want) {
		t.Fatalf("events %+v", evs)
	}
	term.Write([]byte("\x1b]7;http://x/y\x07\x1b]7;file:///tmp\x07")) // not a file URL: ignored
	if evs := log.take(); len(evs) != 1 || evs[0].Text != "/tmp" {
		t.Fatalf("events %+v", evs)
	}
}

func TestSemanticEventsAndBell(t *testing.T) {
	var log eventLog
	term := NewTerminal(Config{Cols: 20, Rows: 5, HistoryRows: 100, HistoryBytes: 1 << 20, OnEvent: log.add})
	defer term.Close()
	term.Write([]byte("\x1b]133;A\x07$ \x1b]133;B\x07ls\r\n\x1b]133;C\x07out\a\r\n\x1b]133;D;3\x07" +
		"\x1b]133;D\x07\x1b]7501;{\"k\":\"v;w\"}\x1b\\\x1b]133;A;aid=1\x07"))
	three := 3
	want := []Event{
		{Kind: EventPromptStart},
		{Kind: EventCommandStart},
		{Kind: EventBell},
		{Kind: EventCommandFinish, Code: &three},
		{Kind: EventCommandFinish},
		{Kind: EventProgramStatus, Text: `{"k":"v;w"}`},
		{Kind: EventPromptStart},
	}
	if evs := log.take(); !reflect.DeepEqual(evs, want) {
		t.Fatalf("events\n%+v\nwant\n%+v", evs, want)
	}
	c := capture(t, term, nil, nil)
	if strings.TrimRight(c.Lines[1], " ") != "out" {
		t.Fatalf("screen %q", c.Lines)
	}
}

// ---- replies ----

type chanWriter chan string

func (c chanWriter) Write(p []byte) (int, error) {
	c <- string(p)
	return len(p), errors.New("ignored")
}

func TestDSRReply(t *testing.T) {
	ch := make(chanWriter, 16)
	term := NewTerminal(Config{Cols: 20, Rows: 5, HistoryRows: 100, HistoryBytes: 1 << 20, Replies: ch})
	defer term.Close()
	term.Write([]byte("ab\r\ncd\x1b[6n"))
	var got string
	for got != "\x1b[2;3R" {
		s := <-ch
		got += s
		if len(got) > 6 {
			t.Fatalf("reply %q", got)
		}
	}
}

type blockingWriter struct{ release chan struct{} }

func (b blockingWriter) Write(p []byte) (int, error) {
	<-b.release
	return len(p), nil
}

func TestRepliesNeverBlockWrite(t *testing.T) {
	bw := blockingWriter{release: make(chan struct{})}
	term := NewTerminal(Config{Cols: 20, Rows: 5, HistoryRows: 100, HistoryBytes: 1 << 20, Replies: bw})
	// Far more replies than any pipe or backlog holds; Write must return.
	q := bytes.Repeat([]byte("\x1b[6n\x1b[c\x1b]11;?\x07"), 20000)
	term.Write(q)
	term.Close()
	close(bw.release)
	term.Write(q) // after Close: a no-op
}

// ---- numbering, paging, epochs ----

func TestSeqHistoryAndPaging(t *testing.T) {
	for _, chunk := range []int{4096, 65536} {
		t.Run(strconv.Itoa(chunk), func(t *testing.T) {
			term := newTerm(t, 80, 24, 1000, 1<<30)
			writeChunks(term, seqData(1, 200000), chunk)
			// 200000 lines, each ended by CRLF: the cursor sits on a blank
			// 200001st row, which is the bottom screen row. Row r shows r+1.
			c := capture(t, term, nil, nil)
			checkWidths(t, c)
			const h = 200001 - 24
			if c.First != h || c.End != h+24 || c.Oldest != h-1000 || c.Epoch != 0 || c.Screen != ScreenPrimary {
				t.Fatalf("capture numbering %+v", c)
			}
			for i, l := range c.Lines[:23] {
				if got := strings.TrimRight(l, " "); got != strconv.Itoa(h+i+1) {
					t.Fatalf("screen row %d = %q", i, got)
				}
			}
			if strings.TrimSpace(c.Lines[23]) != "" {
				t.Fatalf("bottom row %q", c.Lines[23])
			}
			// Page through the whole kept range in pages of 100.
			for s := c.Oldest; s < c.End; s += 100 {
				e := min(s+100, c.End)
				p := capture(t, term, i64(s), i64(e))
				if p.First != s || int64(len(p.Lines)) != e-s {
					t.Fatalf("page %d..%d: %+v", s, e, p)
				}
				for i, l := range p.Lines {
					r := s + int64(i)
					want := strconv.FormatInt(r+1, 10)
					if r == h+23 {
						want = ""
					}
					if got := strings.TrimRight(l, " "); got != want {
						t.Fatalf("row %d = %q, want %q", r, got, want)
					}
				}
			}
			// Start alone, End alone.
			if p := capture(t, term, i64(h+20), nil); p.First != h+20 || len(p.Lines) != 4 {
				t.Fatalf("start only: %+v", p)
			}
			if p := capture(t, term, nil, i64(h-100)); p.First != h-124 || len(p.Lines) != 24 {
				t.Fatalf("end only: %+v", p)
			}
			if p := capture(t, term, nil, i64(c.Oldest+5)); p.First != c.Oldest || len(p.Lines) != 5 {
				t.Fatalf("end only near oldest: %+v", p)
			}
			if p := capture(t, term, i64(c.End), i64(c.End)); len(p.Lines) != 0 {
				t.Fatalf("empty range: %+v", p)
			}
			// Errors.
			checkRangeErr(t, term, CaptureRequest{Start: i64(c.Oldest - 1)}, "before_oldest")
			checkRangeErr(t, term, CaptureRequest{End: i64(c.End + 1)}, "after_end")
			checkRangeErr(t, term, CaptureRequest{Start: i64(h + 5), End: i64(h + 4)}, "inverted")
			checkRangeErr(t, term, CaptureRequest{End: i64(c.Oldest - 3)}, "before_oldest")
			if _, err := term.Capture(CaptureRequest{Epoch: i64(1)}); !errors.Is(err, ErrStaleEpoch) {
				t.Fatalf("stale epoch: %v", err)
			}
			if _, err := term.Capture(CaptureRequest{Epoch: i64(0)}); err != nil {
				t.Fatalf("current epoch: %v", err)
			}
		})
	}
}

func checkRangeErr(t *testing.T, term *Terminal, req CaptureRequest, reason string) {
	t.Helper()
	_, err := term.Capture(req)
	var re *RangeError
	if !errors.As(err, &re) || re.Reason != reason {
		t.Fatalf("capture %+v: err %v, want %s", req, err, reason)
	}
}

func TestClearHistoryBumpsEpoch(t *testing.T) {
	term := newTerm(t, 20, 5, 100, 1<<20)
	term.Write(seqData(1, 50))
	term.Write([]byte("prompt"))
	before := capture(t, term, nil, nil)
	if before.First != 46 || before.Epoch != 0 {
		t.Fatalf("before %+v", before)
	}
	term.Write([]byte("\x1b[3J"))
	c := capture(t, term, nil, nil)
	if c.Epoch != 1 || c.Oldest != 0 || c.First != 0 || c.End != 5 {
		t.Fatalf("after ED 3: %+v", c)
	}
	// Only the history goes (as in xterm); the screen stays.
	if !reflect.DeepEqual(c.Lines, before.Lines) {
		t.Fatalf("screen changed: %q", c.Lines)
	}
	if _, err := term.Capture(CaptureRequest{Epoch: i64(0)}); !errors.Is(err, ErrStaleEpoch) {
		t.Fatalf("old epoch: %v", err)
	}
	checkRangeErr(t, term, CaptureRequest{Start: i64(-1)}, "before_oldest")
	// Numbering restarts: new rows are counted from 0 again.
	term.Write([]byte("\r\nx\r\ny\r\n"))
	c = capture(t, term, i64(0), nil)
	if c.First != 0 || c.Epoch != 1 || len(c.Lines) != 8 || strings.TrimRight(c.Lines[0], " ") != "47" {
		t.Fatalf("new epoch %+v", c)
	}
	// The clear command (ED 2 then ED 3) leaves an empty history.
	term.Write([]byte("\x1b[H\x1b[2J\x1b[3J"))
	c = capture(t, term, i64(0), nil)
	if c.Epoch != 2 || c.Oldest != 0 || c.End != 5 || strings.TrimSpace(strings.Join(c.Lines, "")) != "" {
		t.Fatalf("after clear %+v", c)
	}
}

func TestByteBudgetEviction(t *testing.T) {
	// Each plain row "NNNNNNNNN" costs 9 bytes: a 100-byte budget keeps 11.
	term := newTerm(t, 20, 3, 1000, 100)
	var b []byte
	for i := 0; i < 50; i++ {
		b = append(b, fmt.Sprintf("%09d\r\n", i)...)
	}
	term.Write(b)
	c := capture(t, term, nil, nil)
	h := c.First // 48 rows went to history
	if h != 48 || c.Oldest != h-11 {
		t.Fatalf("numbering %+v", c)
	}
	p := capture(t, term, i64(c.Oldest), i64(h))
	if got := strings.TrimRight(p.Lines[0], " "); got != fmt.Sprintf("%09d", c.Oldest) {
		t.Fatalf("oldest row %q", got)
	}
	// Style runs count too: a red row costs its text plus the run.
	term.Write([]byte("\x1b[31mred\x1b[m\r\n\r\n\r\n"))
	term.mu.Lock()
	last := term.hist.At(term.hist.Len() - 1)
	used := term.hist.Bytes()
	term.mu.Unlock()
	if len(last.Runs) != 1 || last.Size() != 3+rowstore.RunCost+len(last.Runs[0].Style) || used > 100 {
		t.Fatalf("styled row %+v size %d, used %d", last, last.Size(), used)
	}
	// A row larger than the whole budget is not kept.
	small := newTerm(t, 200, 2, 1000, 50)
	small.Write([]byte(strings.Repeat("x", 60) + "\r\nab\r\n\r\n"))
	c = capture(t, small, nil, nil)
	if c.First != 2 || c.Oldest != 1 {
		t.Fatalf("oversized row: %+v", c)
	}
}

func TestRowCountEviction(t *testing.T) {
	term := newTerm(t, 10, 2, 7, 1<<20)
	for i := 1; i <= 40; i++ { // one line per write: the slow path
		term.Write([]byte(strconv.Itoa(i) + "\r\n"))
	}
	c := capture(t, term, i64(32), i64(39))
	if c.Oldest != 32 || c.First != 32 || len(c.Lines) != 7 || strings.TrimRight(c.Lines[0], " ") != "33" {
		t.Fatalf("%+v", c)
	}
}

// ---- Tail ----

func TestTail(t *testing.T) {
	term := newTerm(t, 20, 6, 100, 1<<20)
	term.Write([]byte("a\r\n\r\nccc\r\ndd  \r\n\r\n"))
	// Rows: 0 "a", 1 "", 2 "ccc", 3 "dd", 4.. blank; each line 20 bytes.
	pad := func(s string) string { return s + strings.Repeat(" ", 20-len(s)) }
	check := func(what string, tl Tail, start, end int64, lines ...string) {
		t.Helper()
		want := []string{}
		for _, l := range lines {
			want = append(want, pad(l))
		}
		if tl.Start != start || tl.End != end || !reflect.DeepEqual(tl.Lines, want) || tl.Bytes != 20*len(want) {
			t.Fatalf("%s: rows [%d, %d) %q %d bytes, want [%d, %d) %q", what, tl.Start, tl.End, tl.Lines, tl.Bytes, start, end, want)
		}
	}
	tl := term.Tail(100, 1000)
	check("all", tl, 0, 4, "a", "", "ccc", "dd")
	if tl.Screen != ScreenPrimary || tl.Epoch != 0 || tl.Cols != 20 || tl.Rows != 6 || tl.Oldest != 0 {
		t.Fatalf("tail %+v", tl)
	}
	check("maxRows", term.Tail(2, 1000), 2, 4, "ccc", "dd")
	check("maxBytes 40", term.Tail(100, 40), 2, 4, "ccc", "dd")
	check("maxBytes 39", term.Tail(100, 39), 3, 4, "dd")
	check("maxBytes 19", term.Tail(100, 19), 4, 4)
	check("maxRows 0", term.Tail(0, 1000), 4, 4)
	check("maxBytes 0", term.Tail(10, 0), 4, 4)
	// Across history and screen, then with rows evicted.
	term.Write(seqData(1, 150))
	c := capture(t, term, nil, nil)
	check("after seq", term.Tail(3, 1000), c.End-4, c.End-1, "148", "149", "150")
	if tl := term.Tail(1000, 1<<20); tl.Start != c.Oldest || tl.Oldest != c.Oldest || len(tl.Lines) != int(c.End-1-c.Oldest) {
		t.Fatalf("evicted: rows [%d, %d) of %d lines, capture %+v", tl.Start, tl.End, len(tl.Lines), c)
	}
	// Nothing written at all.
	check("empty", newTerm(t, 20, 6, 100, 1<<20).Tail(10, 100), 0, 0)
}

// captureTail is Tail built from Capture calls: the screen, then history
// back to the last row with a non-space cell in pages of 256 rows, then
// the rows that fit.
func captureTail(t testing.TB, term *Terminal, maxRows, maxBytes int) Tail {
	t.Helper()
	scr := capture(t, term, nil, nil)
	out := Tail{Screen: scr.Screen, Epoch: scr.Epoch, Cols: scr.Cols, Rows: scr.Rows, Oldest: scr.Oldest, Lines: []string{}}
	end := scr.Oldest
	for i := len(scr.Lines) - 1; i >= 0; i-- {
		if strings.TrimRight(scr.Lines[i], " ") != "" {
			end = scr.First + int64(i) + 1
			break
		}
	}
	for hi := scr.First; end == scr.Oldest && hi > scr.Oldest; {
		lo := max(scr.Oldest, hi-256)
		c := capture(t, term, &lo, &hi)
		for i := len(c.Lines) - 1; i >= 0; i-- {
			if strings.TrimRight(c.Lines[i], " ") != "" {
				end = lo + int64(i) + 1
				break
			}
		}
		hi = lo
	}
	out.End, out.Start = end, end
	if maxRows > 0 && maxBytes > 0 && end > scr.Oldest {
		lo := max(scr.Oldest, end-int64(maxRows))
		c := capture(t, term, &lo, &end)
		n, i := 0, len(c.Lines)
		for i > 0 && n+len(c.Lines[i-1]) <= maxBytes {
			n += len(c.Lines[i-1])
			i--
		}
		out.Lines, out.Start, out.Bytes = c.Lines[i:], lo+int64(i), n
	}
	return out
}

// tailCases are terminals whose tails differ in kind: blank rows at the
// end, the last row with text in history, evicted rows, a new epoch, the
// alternate screen, wide characters, rows wider than the screen after it
// narrowed (some with text only past its width), restored and preloaded
// rows, released and never written terminals.
func tailCases(t testing.TB) map[string]*Terminal {
	mk := func(cols, rows, histRows int, out ...string) *Terminal {
		term := newTerm(t, cols, rows, histRows, 1<<20)
		for _, o := range out {
			term.Write([]byte(o))
		}
		return term
	}
	wide := strings.Repeat("日本語テキスト、x", 9)
	m := map[string]*Terminal{
		"empty":         mk(20, 6, 100),
		"blank rows":    mk(20, 6, 100, "a\r\n\r\nccc\r\ndd  \r\n\r\n"),
		"screen full":   mk(20, 6, 100, string(seqData(1, 30)), "$ "),
		"end in hist":   mk(20, 6, 100, string(seqData(1, 30)), strings.Repeat("\r\n", 12)),
		"all blank":     mk(20, 6, 100, strings.Repeat("\r\n", 40), "\x1b[41m   \x1b[m\r\n"),
		"evicted":       mk(20, 6, 50, string(seqData(1, 300))),
		"evicted blank": mk(20, 6, 5, "x\r\n", strings.Repeat("\r\n", 30)),
		"epoch":         mk(20, 6, 100, string(seqData(1, 30)), "\x1b[3J", string(seqData(31, 33))),
		"alt":           mk(20, 6, 100, string(seqData(1, 30)), "\x1b[?1049hfull screen\x1b[3;5Hmid"),
		"alt blank":     mk(20, 6, 100, string(seqData(1, 30)), "\x1b[?1049h"),
		"wide":          mk(21, 6, 100, wide, "\r\n", wide, "\r\n日本"),
		"styled":        mk(20, 6, 100, "\x1b[1;31mred\x1b[m \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\r\n\x1b[44m\x1b[K\x1b[m\r\n"),
	}
	narrow := mk(40, 6, 100, string(seqData(1, 10)), "\x1b[20Cpast\r\n", strings.Repeat("ab", 20), "日本語テキストです日本語テキストです\r\n", "\x1b[12Conly", strings.Repeat("\r\n", 8))
	narrow.Resize(10, 6)
	m["narrowed"] = narrow
	released := mk(20, 6, 100, string(seqData(1, 30)), "\x1b[?1049hfull")
	released.Release()
	m["released"] = released
	m["restored"] = NewRestoredTerminal(20, 6, []string{"one", "", "three", "four", "", "", "", "", "nine", "", ""}, 3)
	pre := NewTerminal(Config{Cols: 20, Rows: 6, History: []string{"kept 1", "kept 2", "", ""}, Epoch: 2})
	t.Cleanup(pre.Close)
	m["preloaded"] = pre
	pre2 := NewTerminal(Config{Cols: 20, Rows: 6, History: []string{"kept 1", "kept 2"}, Epoch: 2})
	t.Cleanup(pre2.Close)
	pre2.Write([]byte("new\r\n"))
	m["preloaded+out"] = pre2
	m["random"] = mk(30, 8, 200, string(lineStream(3, 400)))
	return m
}

// TestTailMatchesCaptures compares Tail with the tail built from Capture
// calls, over terminals of every kind and limits that cut anywhere.
func TestTailMatchesCaptures(t *testing.T) {
	for name, term := range tailCases(t) {
		cols, _ := term.Size()
		for _, maxRows := range []int{-1, 0, 1, 2, 3, 5, 8, 40, 1000} {
			for _, maxBytes := range []int{-1, 0, 1, cols - 1, cols, cols + 1, 2*cols + 1, 3*cols + 2, 5 * cols, 7*cols - 1, 1 << 20} {
				got, want := term.Tail(maxRows, maxBytes), captureTail(t, term, maxRows, maxBytes)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, Tail(%d, %d):\n%+v\nwant\n%+v", name, maxRows, maxBytes, got, want)
				}
				n := 0
				for _, l := range got.Lines {
					n += len(l)
				}
				if n != got.Bytes || int64(len(got.Lines)) != got.End-got.Start || len(got.Lines) > max(maxRows, 0) || got.Bytes > max(maxBytes, 0) {
					t.Fatalf("%s, Tail(%d, %d): %d lines, %d bytes, rows [%d, %d)", name, maxRows, maxBytes, len(got.Lines), got.Bytes, got.Start, got.End)
				}
			}
		}
	}
}

// BenchmarkTail compares Tail with the tail built from Capture calls, on
// an 80×24 terminal with 10000 rows of history, ending on a prompt or with
// the screen cleared (the last text is in history).
func BenchmarkTail(b *testing.B) {
	for _, tc := range []struct{ name, end string }{{"prompt", "$ "}, {"cleared", strings.Repeat("\r\n", 24)}} {
		term := newTerm(b, 80, 24, DefaultHistoryRows, DefaultHistoryBytes)
		term.Write(seqData(1, 20000))
		term.Write([]byte(tc.end))
		b.Run(tc.name+"/Tail", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				term.Tail(200, 64<<10)
			}
		})
		b.Run(tc.name+"/Captures", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				captureTail(b, term, 200, 64<<10)
			}
		})
	}
}

// ---- Release ----

func TestReleaseKeepsCapture(t *testing.T) {
	for _, alt := range []bool{false, true} {
		term := newTerm(t, 30, 6, 100, 1<<20)
		term.Write(seqData(1, 40))
		term.Write([]byte("\x1b[1;31mred\x1b[m 日本\r\n$ "))
		if alt {
			term.Write([]byte("\x1b[?1049hfull screen"))
		}
		screen := capture(t, term, nil, nil)
		all := capture(t, term, i64(screen.Oldest), nil)
		tail := term.Tail(10, 1000)
		term.Release()
		if term.AltScreen() != alt {
			t.Fatalf("AltScreen after release")
		}
		term.Write([]byte("more output\r\n"))
		term.Resize(10, 3)
		if s := capture(t, term, nil, nil); !reflect.DeepEqual(s, screen) {
			t.Fatalf("screen changed by release:\n%+v\n%+v", screen, s)
		}
		if a := capture(t, term, i64(screen.Oldest), nil); !reflect.DeepEqual(a, all) {
			t.Fatalf("rows changed by release")
		}
		if tl := term.Tail(10, 1000); !reflect.DeepEqual(tl, tail) {
			t.Fatalf("tail changed by release:\n%+v\n%+v", tail, tl)
		}
		if cols, rows := term.Size(); cols != 30 || rows != 6 {
			t.Fatalf("size %dx%d", cols, rows)
		}
		term.mu.Lock()
		if term.emu != nil {
			t.Fatal("emulator kept")
		}
		term.mu.Unlock()
		term.Release()
		term.Close()
	}
}

// TestReleaseFreesEmulator: once released, the terminal holds no
// emulator: it is back in the pool, reset (shared.pool.go), or nothing keeps it
// (and its 4 MiB parser buffer) alive and its goroutines end.
func TestReleaseFreesEmulator(t *testing.T) {
	term := NewTerminal(Config{Cols: 80, Rows: 24, HistoryRows: 100, HistoryBytes: 1 << 20, Replies: io.Discard})
	term.Write([]byte("hello\x1b[6n"))
	freed := make(chan struct{})
	term.mu.Lock()
	h := term.host
	runtime.AddCleanup(term.emu, func(ch chan struct{}) { close(ch) }, freed)
	term.mu.Unlock()
	term.Release()
	term.mu.Lock()
	if term.emu != nil || term.host != nil {
		t.Fatal("released terminal holds its emulator")
	}
	term.mu.Unlock()
	if c := capture(t, term, nil, nil); !strings.HasPrefix(c.Lines[0], "hello") {
		t.Fatalf("after release: %q", c.Lines[0])
	}
	pooled := shared.pool.takeHost(h)
	if pooled {
		h.close() // pooled: what follows checks it can be freed
		h = nil
	} else {
		h = nil
	}
	for i := 0; ; i++ {
		runtime.GC()
		select {
		case <-freed:
			return
		default:
		}
		if i == 1000 {
			t.Fatal("emulator still reachable after Release", pooled)
		}
		runtime.Gosched()
	}
}

// ---- Resize ----

func TestResizeKeepsCursorRow(t *testing.T) {
	term := newTerm(t, 20, 10, 100, 1<<20)
	for i := 1; i <= 9; i++ {
		term.Write([]byte("line" + strconv.Itoa(i) + "\r\n"))
	}
	term.Write([]byte("$ cmd"))
	before := capture(t, term, nil, nil)
	term.Resize(20, 4)
	c := capture(t, term, nil, nil)
	if c.Rows != 4 || c.End != before.End || c.First != before.End-4 {
		t.Fatalf("after shrink %+v", c)
	}
	if got := strings.TrimRight(c.Lines[3], " "); got != "$ cmd" {
		t.Fatalf("cursor row lost: %q", c.Lines)
	}
	// The rows above moved into the history, numbering unchanged.
	all := capture(t, term, i64(0), nil)
	for i := 0; i < 9; i++ {
		if got := strings.TrimRight(all.Lines[i], " "); got != "line"+strconv.Itoa(i+1) {
			t.Fatalf("row %d = %q", i, got)
		}
	}
	// The cursor is still at the end of the prompt.
	term.Write([]byte("!"))
	if got := strings.TrimRight(capture(t, term, nil, nil).Lines[3], " "); got != "$ cmd!" {
		t.Fatalf("after typing: %q", got)
	}
	// Narrower: rows are cut to the new width, history included.
	term.Resize(3, 4)
	c = capture(t, term, i64(0), nil)
	checkWidths(t, c)
	if c.Lines[0] != "lin" {
		t.Fatalf("narrow history row %q", c.Lines[0])
	}
	term.Resize(8, 6)
	c = capture(t, term, i64(0), nil)
	checkWidths(t, c)
	if c.Lines[0] != "line1   " || c.Epoch != 0 {
		t.Fatalf("wider history row %q", c.Lines[0])
	}
	// A scroll region does not defeat the workaround.
	term2 := newTerm(t, 20, 10, 100, 1<<20)
	term2.Write([]byte("\x1b[2;8r\x1b[10;1Hbottom"))
	term2.Resize(20, 5)
	if got := strings.TrimRight(capture(t, term2, nil, nil).Lines[4], " "); got != "bottom" {
		t.Fatalf("with region: %q", got)
	}
}

func TestResizeWideRowInHistory(t *testing.T) {
	term := newTerm(t, 6, 2, 100, 1<<20)
	term.Write([]byte("ab日本\r\n\r\n"))
	term.Resize(3, 2)
	c := capture(t, term, i64(0), i64(1))
	checkWidths(t, c)
	if c.Lines[0] != "ab " {
		t.Fatalf("cut wide row %q", c.Lines[0])
	}
}

// ---- hostile output ----

func TestHostileSequences(t *testing.T) {
	term := newTerm(t, 33, 7, 100, 1<<20)
	// The library keeps a bottom margin below the screen and then indexes
	// out of range on the next scroll; we clamp it as xterm does.
	term.Write([]byte("\x1b[3;100r\x1b[Sa\x1b[7;1H\n\nb\x1b[?69h\x1b[2;90s\x1b[5;1Hc\x1b[M\x1b[L\x1b[?69l\x1b[r"))
	// Huge counts that make the library loop once per unit.
	term.Write([]byte("x\x1b[999999999X\x1b[999999999I\x1b[999999999Z\x1b[999999999b\r\n"))
	term.mu.Lock()
	panics := term.panics
	term.mu.Unlock()
	if panics != 0 {
		t.Fatalf("%d emulator panics", panics)
	}
	want := plainRows(t, []byte("\x1b[3;7r\x1b[Sa\x1b[7;1H\n\nb\x1b[?69h\x1b[2;33s\x1b[5;1Hc\x1b[M\x1b[L\x1b[?69l\x1b[r"+
		"x\x1b[33X\x1b[33I\x1b[33Z\x1b[65536b\r\n"), 33, 7, 4096)
	if got := allRows(t, term); !reflect.DeepEqual(got, want) {
		t.Fatalf("rows\n%q\nwant\n%q", got, want)
	}
	// Still usable.
	term.Write([]byte("\x1b[Hok"))
	if c := capture(t, term, nil, nil); !strings.HasPrefix(c.Lines[0], "ok") {
		t.Fatalf("after: %q", c.Lines[0])
	}
}

// TestConcurrentUse runs readers and resizes against a writer (go test -race).
func TestConcurrentUse(t *testing.T) {
	term := NewTerminal(Config{Cols: 40, Rows: 10, HistoryRows: 500, HistoryBytes: 1 << 20, Replies: io.Discard, OnEvent: func(Event) {}})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				c, err := term.Capture(CaptureRequest{})
				if err == nil && len(c.Lines) != c.Rows {
					t.Errorf("capture of %d lines, %d rows", len(c.Lines), c.Rows)
				}
				if tl := term.Tail(5, 500); int64(len(tl.Lines)) != tl.End-tl.Start || tl.Bytes > 500 {
					t.Errorf("tail of %d lines, rows [%d, %d), %d bytes", len(tl.Lines), tl.Start, tl.End, tl.Bytes)
				}
				term.AltScreen()
				term.Size()
				term.Resize(40+g, 10-g)
			}
		}()
	}
	data := append(seqData(1, 3000), "\x1b]2;t\x07\x1b[6n\x1b[?1049hx\x1b[?1049l\x1b[3J"...)
	for i := 0; i < 5; i++ {
		writeChunks(term, data, 1000)
	}
	close(stop)
	wg.Wait()
	term.Release()
	term.Capture(CaptureRequest{})
}

// ---- differential checks ----

// plainRows feeds data to a plain emulator with a huge scrollback, in writes
// of chunk bytes (made well-formed first), and returns the text of every row, history then screen,
// trailing spaces trimmed.
func plainRows(t testing.TB, data []byte, cols, rows, chunk int) []string {
	t.Helper()
	e := vt.NewEmulator(cols, rows)
	e.SetScrollbackSize(1 << 22)
	go func() { _, _ = io.Copy(io.Discard, e) }()
	defer e.InputPipe().(*io.PipeWriter).Close()
	for b := wellFormed(data); len(b) > 0; {
		n := min(chunk, len(b))
		_, _ = e.Write(b[:n])
		b = b[n:]
	}
	var out []string
	for _, l := range e.Scrollback().Lines() {
		out = append(out, cellsText(l))
	}
	for y := 0; y < rows; y++ {
		var l uv.Line
		for x := 0; x < cols; x++ {
			l = append(l, *e.CellAt(x, y))
		}
		out = append(out, cellsText(l))
	}
	return out
}

// cellsText is the plain text of cells, one column each: the cells a wide
// character covers are skipped, any other zero cell or lone mark in a cell
// of its own is a space; trailing spaces trimmed.
func cellsText(l uv.Line) string {
	var b strings.Builder
	covered := 0
	for _, c := range l {
		switch {
		case covered > 0 && c.IsZero():
			covered--
		case c.Width == 0:
			covered = 0
			b.WriteByte(' ')
		default:
			covered = c.Width - 1
			b.WriteString(c.Content)
		}
	}
	return strings.TrimRight(b.String(), " ")
}

func allRows(t testing.TB, term *Terminal) []string {
	t.Helper()
	c, err := term.Capture(CaptureRequest{Start: i64(0)})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(c.Lines))
	for i, l := range c.Lines {
		out[i] = strings.TrimRight(l, " ")
	}
	return out
}

// streams are byte streams that exercise the fast path and its edges.
func streams() map[string][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	s := map[string][]byte{}
	s["seq"] = seqData(1, 2000)
	var b []byte
	for i := 0; i < 400; i++ { // long lines that wrap, some exactly a multiple of the width
		n := []int{79, 80, 81, 160, 161, 200, 0, 1}[i%8]
		for j := 0; j < n; j++ {
			b = append(b, byte('a'+(i+j)%26))
		}
		b = append(b, "\r\n"...)
	}
	s["wrapped"] = b
	b = nil
	for i := 0; i < 600; i++ { // colors changing between and inside lines
		fmt.Fprintf((*bytesWriter)(&b), "\x1b[%dm%d\x1b[1;38;5;%dm word\x1b[m plain \x1b[4mu\r\n", 31+i%7, i, i%256)
		if i%50 == 0 {
			b = append(b, "\x1b[44m"...) // a background colour for a while
		}
		if i%50 == 10 {
			b = append(b, "\x1b[49m"...)
		}
	}
	s["colored"] = b
	b = nil
	for i := 0; i < 1500; i++ { // grep --color: SGR and EL; backgrounds across line ends
		fmt.Fprintf((*bytesWriter)(&b), "file%d.go:\x1b[01;31m\x1b[Kmatch\x1b[m\x1b[K rest %d\r\n", i, i)
		if i%100 == 0 {
			b = append(b, "\x1b[42mgreen background\r\nand on\x1b[K\r\n\x1b[0K\r\nstill\r\n\x1b[m"...)
		}
		if i%300 == 7 {
			b = append(b, "\x1b[44m"...) // a background left on for a while
		}
		if i%300 == 70 {
			b = append(b, "\x1b[49m"...)
		}
	}
	s["grep"] = b
	b = nil
	for i := 0; i < 1500; i++ { // progress bars: CR overwrites, backspaces
		fmt.Fprintf((*bytesWriter)(&b), "progress %d%%\rdone %d\b\bXY\r\n", i%100, i)
		if i%7 == 0 {
			b = append(b, "short\rlonger line\r\n"...)
		}
	}
	s["overwrite"] = b
	b = nil
	for i := 0; i < 1500; i++ { // tabs, bare LF (column kept), empty lines
		fmt.Fprintf((*bytesWriter)(&b), "%d\tcol\t\tx\t\t\t\t\t\t\t\t\tend\r\n", i)
		if i%5 == 0 {
			b = append(b, "a\nb\n\n   c\n"...)
		}
		if i%211 == 100 {
			b = append(b, "\x1b[3g"...) // clears tab stops: fast path must back off
		}
		if i%211 == 150 {
			b = append(b, "\x1b[?5W"...)
		}
	}
	s["tabs"] = b
	b = nil
	for i := 0; i < 2500; i++ { // random mix, including sequences and UTF-8
		switch r := rng.IntN(100); {
		case r < 60:
			for k := rng.IntN(100); k > 0; k-- {
				b = append(b, byte(0x20+rng.IntN(95)))
			}
			b = append(b, []string{"\r\n", "\n", "\r", "\b", "\t"}[rng.IntN(5)]...)
		case r < 70:
			b = append(b, []string{"日本", "é", "👍🏽", "\u0301", "\xe6\x97"}[rng.IntN(5)]...)
		case r < 80:
			b = append(b, []string{"\x1b[31m", "\x1b[m", "\x1b[7m", "\x1b[48;5;3m", "\x1b]8;;http://x\x1b\\", "\x1b]8;;\x1b\\"}[rng.IntN(6)]...)
		case r < 85:
			b = append(b, []string{"\x1b[2;5r", "\x1b[r", "\x1b[?7l", "\x1b[?7h", "\x1b(0", "\x1b(B", "\x0e", "\x0f"}[rng.IntN(8)]...)
		case r < 90:
			b = append(b, []string{"\x1b[H", "\x1b[5;5H", "\x1b[2K", "\x1b[K", "\x1b[3b", "\x1bM", "\x1b7", "\x1b8"}[rng.IntN(8)]...)
		case r < 95:
			b = append(b, bytes.Repeat([]byte("line of text\r\n"), rng.IntN(60))...)
		default:
			b = append(b, []string{"\x1b[20h", "\x1b[20l", "\x1b[2J", "\x1b[S", "\x1b[?1049h", "\x1b[?1049l", "\x1b[", "\x1b]0;t"}[rng.IntN(8)]...)
		}
	}
	s["random"] = b
	b = nil
	for i := 0; i < 3000; i++ { // lines stored from the input (fastlines.go) and what stops them
		switch i % 97 {
		case 10:
			b = append(b, "trailing spaces   \r\n   \r\n"...)
		case 20:
			b = append(b, strings.Repeat("w", 33)+"\r\n"+strings.Repeat("x", 34)+"\r\n"...) // 33 columns: exactly, one more
		case 30:
			b = append(b, strings.Repeat("y", 80)+"\r\n"+strings.Repeat("z", 81)+"\r\n"...)
		case 40:
			b = append(b, "bare line feed\n\r\n\r\n"...)
		case 50:
			b = append(b, "\x1b[31mred\x1b[m then plain\r\n\x1b[1mbold on\r\nstill bold\r\n\x1b[m"...)
		case 60:
			b = append(b, "\x1b[44mblue background\r\n\r\n\x1b[49m"...)
		case 70:
			b = append(b, "wide 日本語 line\r\nmark e\u0301\r\n"...)
		case 80:
			b = append(b, "a\ttab\r\nback\bspace\r\ncr\roverwrite\r\n"...)
		case 90:
			b = append(b, "no line end, then "...)
		}
		fmt.Fprintf((*bytesWriter)(&b), "%d plain line %s\r\n", i, strings.Repeat("-", i%40))
	}
	s["direct"] = b
	return s
}

type bytesWriter []byte

func (w *bytesWriter) Write(p []byte) (int, error) { *w = append(*w, p...); return len(p), nil }

// TestDifferentialPlainEmulator: history plus screen equal the rows of a
// plain emulator with an unbounded scrollback fed the same bytes (but for
// wide characters at the margin, which the Terminal wraps as xterm does:
// see excludeWideWrap).
func TestDifferentialPlainEmulator(t *testing.T) {
	for name, data := range streams() {
		for _, size := range [][2]int{{80, 24}, {33, 7}} {
			t.Run(fmt.Sprintf("%s/%dx%d", name, size[0], size[1]), func(t *testing.T) {
				data := excludeWideWrap(t, data, size[0], size[1])
				want := plainRows(t, data, size[0], size[1], len(data))
				for _, chunk := range []int{4096, 777} {
					term := newTerm(t, size[0], size[1], 1<<20, 1<<30)
					writeChunks(term, data, chunk)
					got := allRows(t, term)
					if len(got) != len(want) {
						t.Fatalf("chunk %d: %d rows, want %d", chunk, len(got), len(want))
					}
					for i := range got {
						if got[i] != want[i] {
							t.Fatalf("chunk %d: row %d = %q, want %q", chunk, i, got[i], want[i])
						}
					}
				}
			})
		}
	}
}

// TestDifferentialFastPath: with and without the fast path, every stored row
// (text and style runs), every screen cell, the cursor and the character REP
// repeats are the same.
func TestDifferentialFastPath(t *testing.T) {
	for name, data := range streams() {
		for _, size := range [][2]int{{80, 24}, {33, 7}, {2, 1}, {5, 2}} {
			t.Run(fmt.Sprintf("%s/%dx%d", name, size[0], size[1]), func(t *testing.T) {
				slow := newTerm(t, size[0], size[1], 1<<20, 1<<30)
				slow.fp.on = false
				fast := newTerm(t, size[0], size[1], 1<<20, 1<<30)
				// REP after the stream shows the last printed character.
				tail := []byte("\x1b[3b|")
				writeChunks(slow, append(append([]byte{}, data...), tail...), 4096)
				writeChunks(fast, append(append([]byte{}, data...), tail...), 4096)
				compareTerminals(t, slow, fast)
				if name != "random" && size[0] > 2 && fast.fp.runs == 0 {
					t.Fatalf("the fast path was never taken")
				}
				if (name == "seq" || name == "direct") && size[0] > 2 && fast.fp.directRows == 0 {
					t.Fatalf("no line was stored from the input")
				}
				t.Logf("%d fast runs, %d rows stored from the input", fast.fp.runs, fast.fp.directRows)
			})
		}
	}
}

// TestDifferentialFastPathShortRuns: writes of a few lines on big screens
// (a PTY read is at most 4 KiB: 20 lines of 200 columns) take the fast
// path's short-run mode; lines that wrap make a short run advance a whole
// screen and be simulated again as a long one; more distinct pens than the
// pen table holds, and more distinct SGR spellings than it caches, make it
// start afresh. Every stored row, cell and the cursor equal the emulator
// run alone, and the rows equal a plain emulator's.
func TestDifferentialFastPathShortRuns(t *testing.T) {
	sizes := [][2]int{{200, 50}, {80, 24}, {40, 30}}
	gen := map[string]func(cols int) []byte{
		"fullwidth": func(cols int) []byte {
			var b []byte
			for i := 0; i < 3000; i++ {
				line := fmt.Sprintf("%07d ", i)
				for k := i; len(line) < cols; k++ {
					line += string(rune('a' + k%26))
				}
				b = append(b, line[:cols]+"\r\n"...)
			}
			return b
		},
		"wrapping": func(cols int) []byte {
			var b []byte
			for i := 0; i < 1500; i++ {
				n := []int{cols - 1, cols, cols + 1, 3 * cols, 5*cols + 7, 0, 12, 12*cols + 3}[i%8]
				b = append(b, bytes.Repeat([]byte{byte('A' + i%26)}, n)...)
				b = append(b, "\r\n"...)
			}
			return b
		},
		"manypens": func(int) []byte {
			var b []byte
			for i := 0; i < 6000; i++ {
				// 256 x 216 colour pairs, several spellings of the reset, a
				// background now and then.
				fmt.Fprintf((*bytesWriter)(&b), "\x1b[38;5;%dm%d\x1b[%sm \x1b[38;2;%d;%d;0mx\x1b[0m y", i%256, i, strings.Repeat("0;", i%9), i%216, i%7)
				if i%97 == 0 {
					b = append(b, "\x1b[45m bg\x1b[K"...)
				}
				if i%97 == 5 {
					b = append(b, "\x1b[49m"...)
				}
				b = append(b, "\r\n"...)
			}
			return b
		},
	}
	for name, g := range gen {
		for _, size := range sizes {
			t.Run(fmt.Sprintf("%s/%dx%d", name, size[0], size[1]), func(t *testing.T) {
				data := append(g(size[0]), "\x1b[3b|"...)
				slow := newTerm(t, size[0], size[1], 1<<20, 1<<30)
				slow.fp.on = false
				fast := newTerm(t, size[0], size[1], 1<<20, 1<<30)
				rng := rand.New(rand.NewPCG(uint64(size[0]), 7))
				for b := data; len(b) > 0; {
					n := min(100+rng.IntN(12000), len(b))
					slow.Write(b[:n])
					fast.Write(b[:n])
					b = b[n:]
				}
				compareTerminals(t, slow, fast)
				if fast.fp.partialRuns == 0 {
					t.Fatalf("the short-run mode was never taken (%d fast runs)", fast.fp.runs)
				}
				if name == "wrapping" && fast.fp.fs.retries == 0 {
					t.Fatalf("no short run was simulated again as a long one")
				}
				if name == "manypens" && fast.fp.fs.penResets == 0 {
					t.Fatalf("the pen table never started afresh")
				}
				if got, want := allRows(t, fast), plainRows(t, data, size[0], size[1], len(data)); !reflect.DeepEqual(got, want) {
					for i := range min(len(got), len(want)) {
						if got[i] != want[i] {
							t.Fatalf("row %d = %q, want %q", i, got[i], want[i])
						}
					}
					t.Fatalf("%d rows, want %d", len(got), len(want))
				}
				t.Logf("%d fast runs, %d short, %d simulated again, %d pen table resets", fast.fp.runs, fast.fp.partialRuns, fast.fp.fs.retries, fast.fp.fs.penResets)
			})
		}
	}
}

// TestFastPathRetryNewPenTable: a short run simulated again as a long one
// after its SGR sequences filled the pen table starts in its own pen, looked
// up in the table started afresh.
func TestFastPathRetryNewPenTable(t *testing.T) {
	for _, first := range []string{"\x1b[1mstart\n", "start\n\x1b[1;41m", "\x1b[1mstart\r\n"} {
		t.Run(strconv.Quote(first), func(t *testing.T) {
			b := []byte(first + "x\r\n")
			for i := range maxTransitions + 100 {
				b = fmt.Appendf(b, "\x1b[38;2;%d;%d;7m", i%256, i/256)
			}
			b = append(b, "\x1b[1m"+strings.Repeat("y", 2100)+"\r\nz\r\n"...)
			slow := newTerm(t, 80, 24, 1000, 1<<24)
			slow.fp.on = false
			fast := newTerm(t, 80, 24, 1000, 1<<24)
			for _, term := range []*Terminal{slow, fast} {
				term.Write(seqData(1, 40))
				term.Write(b)
			}
			if fast.fp.fs.retries == 0 || fast.fp.fs.penResets == 0 {
				t.Fatalf("%d runs simulated again, %d pen table resets", fast.fp.fs.retries, fast.fp.fs.penResets)
			}
			compareTerminals(t, slow, fast)
		})
	}
}

// TestLazyEmulator: a terminal makes its emulator on the first output; until
// then its screen is blank, it can be resized, captured and released.
func TestLazyEmulator(t *testing.T) {
	term := newTerm(t, 20, 5, 100, 1<<20)
	term.mu.Lock()
	made := term.emu != nil
	term.mu.Unlock()
	if made {
		t.Fatal("emulator made before any output")
	}
	c := capture(t, term, nil, nil)
	checkWidths(t, c)
	if len(c.Lines) != 5 || strings.TrimSpace(strings.Join(c.Lines, "")) != "" || c.End != 5 {
		t.Fatalf("blank screen expected: %+v", c)
	}
	if tl := term.Tail(10, 1000); len(tl.Lines) != 0 || tl.Start != 0 || tl.End != 0 || tl.Oldest != 0 {
		t.Fatalf("tail %+v", tl)
	}
	term.Resize(30, 3)
	term.Write(nil) // nothing to show: still no emulator
	term.Write([]byte("abc\r\n" + strings.Repeat("x", 35)))
	c = capture(t, term, nil, nil)
	checkWidths(t, c)
	if c.Cols != 30 || c.Rows != 3 || strings.TrimRight(c.Lines[0], " ") != "abc" || c.Lines[1] != strings.Repeat("x", 30) ||
		strings.TrimRight(c.Lines[2], " ") != "xxxxx" {
		t.Fatalf("after the first output: %+v", c)
	}

	// Released before any output: a blank screen, and later writes do nothing.
	idle := NewTerminal(Config{Cols: 10, Rows: 2})
	idle.Release()
	idle.Write([]byte("late"))
	if c := capture(t, idle, nil, nil); len(c.Lines) != 2 || strings.TrimSpace(strings.Join(c.Lines, "")) != "" {
		t.Fatalf("released idle terminal: %+v", c)
	}
	idle.mu.Lock()
	defer idle.mu.Unlock()
	if idle.emu != nil || idle.host != nil {
		t.Fatal("released idle terminal made an emulator")
	}
}

// lineStream is mostly what the fast path takes (ASCII and UTF-8 text with
// wide characters and combining marks, CR, LF, BS, HT, SGR with
// backgrounds, EL), cut by state changes it must respect.
func lineStream(seed uint64, lines int) []byte {
	rng := rand.New(rand.NewPCG(seed, seed*7+1))
	sgr := []string{"\x1b[m", "\x1b[1m", "\x1b[31m", "\x1b[0;4;38;5;200m", "\x1b[41m", "\x1b[49m",
		"\x1b[38:2::1:2:3m", "\x1b[7;22m", "\x1b[39;49m", "\x1b[48;2;0;0;9m", "\x1b[K", "\x1b[0K"}
	other := []string{"\x1b[?7l", "\x1b[?7h", "\x1b[20h", "\x1b[20l", "\x1b[2;3r", "\x1b[r", "\x1b(0", "\x1b(B",
		"\x1b[?1049h", "\x1b[?1049l", "\x1b[H", "\x1b[3A", "\x1bM", "\x1b7", "\x1b8", "\x1b[2J", "\x1bH", "\x1b[3g",
		"\x1b[?5W", "\x1b]8;;http://l\x1b\\", "\x1b]8;;\x1b\\", "\x1b[5b", "\x1bc", "é", "日", "\x1b[4h", "\x1b[S"}
	utf := []string{"日本", "é", "e\u0301", "👍🏽", "👨\u200d👩\u200d👧", "🇯🇵", "\u0301", "├─", "ä", "\u200d", "x\u20dd", "語", "\ufe0f", "❤"}
	var b []byte
	for i := 0; i < lines; i++ {
		for k := rng.IntN(6); k > 0; k-- {
			switch r := rng.IntN(24); {
			case r < 12:
				for n := rng.IntN(40); n > 0; n-- {
					b = append(b, byte(0x20+rng.IntN(95)))
				}
			case r < 16:
				for n := rng.IntN(8); n > 0; n-- {
					b = append(b, utf[rng.IntN(len(utf))]...)
				}
			case r < 21:
				b = append(b, sgr[rng.IntN(len(sgr))]...)
			default:
				b = append(b, []string{"\r", "\b", "\t", "\b\b\b"}[rng.IntN(4)]...)
			}
		}
		switch r := rng.IntN(100); {
		case r < 70:
			b = append(b, "\r\n"...)
		case r < 85:
			b = append(b, '\n')
		case r < 97:
			b = append(b, strings.Repeat("x", rng.IntN(200))+"\r\n"...) // wraps
		default:
			b = append(b, other[rng.IntN(len(other))]...)
		}
	}
	return b
}

// TestDifferentialFastPathRandomized: random line output in random chunk
// sizes, with and without the fast path, and against a plain emulator.
func TestDifferentialFastPathRandomized(t *testing.T) {
	runs := 0
	for seed := uint64(1); seed <= 6; seed++ {
		data := lineStream(seed, 1200)
		for _, size := range [][2]int{{80, 24}, {20, 5}, {7, 3}} {
			slow := newTerm(t, size[0], size[1], 1<<20, 1<<30)
			slow.fp.on = false
			fast := newTerm(t, size[0], size[1], 1<<20, 1<<30)
			rng := rand.New(rand.NewPCG(seed, 99))
			for b := data; len(b) > 0; {
				n := min(1+rng.IntN(8192), len(b))
				slow.Write(b[:n])
				fast.Write(b[:n])
				b = b[n:]
			}
			slow.Write([]byte("\x1b[3b|"))
			fast.Write([]byte("\x1b[3b|"))
			t.Run(fmt.Sprintf("seed%d/%dx%d", seed, size[0], size[1]), func(t *testing.T) {
				compareTerminals(t, slow, fast)
				// One write: the library ends a cluster at the end of each write,
				// the Terminal holds it back.
				all := append(append([]byte{}, data...), "\x1b[3b|"...)
				got := allRows(t, fast)
				if excl := excludeWideWrap(t, all, size[0], size[1]); !bytes.Equal(excl, all) {
					// Wide characters at the margin wrap as in xterm: compare
					// the rest.
					all = excl
					term := newTerm(t, size[0], size[1], 1<<20, 1<<30)
					writeChunks(term, all, 4096)
					got = allRows(t, term)
				}
				want := plainRows(t, all, size[0], size[1], len(all))
				if !reflect.DeepEqual(got, want) {
					for i := range min(len(got), len(want)) {
						if got[i] != want[i] {
							t.Fatalf("row %d = %q, want %q (of %d/%d)", i, got[i], want[i], len(got), len(want))
						}
					}
					t.Fatalf("%d rows, want %d", len(got), len(want))
				}
			})
			runs += fast.fp.runs
		}
	}
	if runs < 50 {
		t.Fatalf("only %d fast runs", runs)
	}
	t.Logf("%d fast runs", runs)
}

func compareTerminals(t *testing.T, a, b *Terminal) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	if a.pushed != b.pushed || a.hist.Len() != b.hist.Len() || a.epoch != b.epoch {
		t.Fatalf("numbering: pushed %d/%d kept %d/%d", a.pushed, b.pushed, a.hist.Len(), b.hist.Len())
	}
	for i := 0; i < a.hist.Len(); i++ {
		if ra, rb := a.hist.At(i), b.hist.At(i); !reflect.DeepEqual(ra, rb) {
			t.Fatalf("history row %d:\n%+v\n%+v", i, ra, rb)
		}
	}
	if pa, pb := a.emu.CursorPosition(), b.emu.CursorPosition(); pa != pb {
		t.Fatalf("cursor %v / %v", pa, pb)
	}
	if a.emu.IsAltScreen() != b.emu.IsAltScreen() {
		t.Fatalf("alt screen differs")
	}
	for y := 0; y < a.rows; y++ {
		for x := 0; x < a.cols; x++ {
			if ca, cb := a.emu.CellAt(x, y), b.emu.CellAt(x, y); !ca.Equal(cb) {
				t.Fatalf("cell %d,%d: %+v / %+v", x, y, *ca, *cb)
			}
		}
	}
}

// ---- benchmark ----

// BenchmarkTerminalSeq feeds seq-style lines ("N\r\n") into an 80x24
// terminal in PTY-read-sized chunks.
func BenchmarkTerminalSeq(b *testing.B) {
	for _, bc := range []struct {
		name  string
		lines int
		chunk int
		slow  bool
	}{
		{"chunk64k", 1000000, 65536, false},
		{"chunk4k", 1000000, 4096, false},
		{"chunk4k-nofastpath", 20000, 4096, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			benchWrite(b, seqData(1, bc.lines), bc.chunk, bc.slow)
		})
	}
}

// BenchmarkTerminalOther covers output the fast path does not take (colors,
// UTF-8) and full-width lines.
func BenchmarkTerminalOther(b *testing.B) {
	var full, color, utf []byte
	for i := 0; i < 20000; i++ {
		full = append(full, fmt.Sprintf("%078d\r\n", i)...)
		color = append(color, fmt.Sprintf("\x1b[1;3%dm%6d\x1b[m \x1b[38;5;%dmsome colored words\x1b[m and \x1b[38;2;1;2;3mtruecolor\x1b[0m\r\n", i%8, i, i%256)...)
		utf = append(utf, fmt.Sprintf("%d: héllo wörld 日本語 ✓\r\n", i)...)
	}
	for name, data := range map[string][]byte{"full": full, "color": color, "utf8": utf} {
		b.Run(name, func(b *testing.B) { benchWrite(b, data, 4096, false) })
	}
}

func benchWrite(b *testing.B, data []byte, chunk int, slow bool) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		term := NewTerminal(Config{Cols: 80, Rows: 24, HistoryRows: DefaultHistoryRows, HistoryBytes: DefaultHistoryBytes})
		term.fp.on = !slow
		writeChunks(term, data, chunk)
		term.Close()
	}
}

// BenchmarkTerminalSizes feeds the compare suite's throughput inputs
// (tests/bench/compare) to 80×24 and 200×50 terminals: seq lines, lines
// exactly as wide as the screen, and SGR-coloured text, in writes of 4 KiB
// (what one read of a PTY master returns) and 64 KiB (what a pane joins
// when emulation falls behind).
func BenchmarkTerminalSizes(b *testing.B) {
	color := func(i int) string {
		return fmt.Sprintf("\x1b[1;34m%07d\x1b[0m \x1b[32mok\x1b[m  \x1b[38;5;%dmpkg/module%03d\x1b[0m \x1b[2m(%d.%03ds)\x1b[22m \x1b[38;2;255;%d;0mwarn\x1b[m: \x1b[1mx\x1b[0m\r\n",
			i, 16+i%216, i%1000, i%7, i%1000, i%256)
	}
	for _, sz := range [][2]int{{80, 24}, {200, 50}} {
		cols, rows := sz[0], sz[1]
		var full, col []byte
		for i := 0; len(full) < 2<<20; i++ {
			line := []byte(fmt.Sprintf("%09d ", i))
			for k := i; len(line) < cols; k++ {
				line = append(line, byte('a'+k%26))
			}
			full = append(append(full, line...), '\r', '\n')
		}
		for i := 0; len(col) < 2<<20; i++ {
			col = append(col, color(i)...)
		}
		for _, in := range []struct {
			name string
			data []byte
		}{{"seq", seqData(1, 250000)}, {"full", full}, {"color", col}} {
			for _, chunk := range []int{4 << 10, 64 << 10} {
				b.Run(fmt.Sprintf("%dx%d/%s/chunk%dk", cols, rows, in.name, chunk>>10), func(b *testing.B) {
					b.SetBytes(int64(len(in.data)))
					b.ReportAllocs()
					for b.Loop() {
						term := NewTerminal(Config{Cols: cols, Rows: rows, HistoryRows: DefaultHistoryRows, HistoryBytes: DefaultHistoryBytes})
						writeChunks(term, in.data, chunk)
						term.Close()
					}
				})
			}
		}
	}
}

package historyview

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// fakeSource is a pane whose rows are "line N", rows [oldest, end), a
// screen of rows rows; it counts its Range calls.
type fakeSource struct {
	oldest, end, rows, epoch int64
	ranges                   int
}

func (f *fakeSource) page(start, end int64) Page {
	p := Page{First: start, Oldest: f.oldest, End: f.end, Rows: f.rows, Epoch: f.epoch}
	for n := start; n < end; n++ {
		p.Lines = append(p.Lines, fmt.Sprintf("\x1b[32mline %d\x1b[m%s", n, strings.Repeat(" ", 20))) // padded as a pane's rows are
	}
	return p
}

func (f *fakeSource) Screen(ctx context.Context) (Page, error) {
	return f.page(f.end-f.rows, f.end), nil
}

func (f *fakeSource) Range(ctx context.Context, start, end, epoch int64) (Page, error) {
	f.ranges++
	if epoch != f.epoch {
		return Page{}, ErrEpoch
	}
	return f.page(max(start, f.oldest), min(end, f.end)), nil
}

func newView(t *testing.T, src *fakeSource, w, h int) *View {
	t.Helper()
	v, err := New(context.Background(), src, w, h)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// shown is the text of the rows the view draws.
func shown(t *testing.T, v *View) []string {
	t.Helper()
	var rows []string
	for i := 0; i < v.body(); i++ {
		line, ok, err := v.row(context.Background(), v.top+int64(i))
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			rows = append(rows, strings.TrimRight(Plain(line), " "))
		}
	}
	return rows
}

func key(t *testing.T, v *View, keys string) bool {
	t.Helper()
	quit, err := v.Key(context.Background(), []byte(keys))
	if err != nil {
		t.Fatal(err)
	}
	return quit
}

func TestViewOpensAtTheNewestRowsAndPageUpShowsEarlierOnes(t *testing.T) {
	src := &fakeSource{end: 5000, rows: 24}
	v := newView(t, src, 80, 25)
	if got := shown(t, v); got[len(got)-1] != "line 4999" || got[0] != "line 4976" {
		t.Fatalf("opened on %q … %q, want line 4976 … line 4999", got[0], got[len(got)-1])
	}
	key(t, v, "\x1b[5~")
	if got := shown(t, v); got[len(got)-1] != "line 4976" {
		t.Fatalf("after PageUp the bottom row is %q, want line 4976 (a page less one row)", got[len(got)-1])
	}
	if v.Behind() != 23 {
		t.Fatalf("Behind = %d, want 23", v.Behind())
	}
	src.end += 100 // the pane went on
	if err := v.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if v.Behind() != 123 {
		t.Fatalf("after 100 more rows Behind = %d, want 123", v.Behind())
	}
	if !strings.Contains(v.status(), "[123/5100]") {
		t.Fatalf("status %q does not say [123/5100]", v.status())
	}
	key(t, v, "G") // the newest rows now, the new ones included
	if got := shown(t, v); got[len(got)-1] != "line 5099" || v.Behind() != 0 {
		t.Fatalf("G shows %q last and is %d behind, want line 5099 and 0", got[len(got)-1], v.Behind())
	}
	if !key(t, v, "q") {
		t.Fatal("q did not leave the view")
	}
	if !key(t, newView(t, src, 80, 25), "\x1b") {
		t.Fatal("Escape did not leave the view")
	}
}

func TestScrollingTenThousandRowsFetchesPagesNotRows(t *testing.T) {
	src := &fakeSource{end: 10_000, rows: 24}
	v := newView(t, src, 80, 25)
	for v.Top() > 0 {
		key(t, v, "k") // one row at a time, to the oldest
		shown(t, v)
	}
	key(t, v, "G")
	shown(t, v)
	want := 10_000/PageRows + 1
	if src.ranges > want {
		t.Fatalf("scrolling 10,000 rows one by one made %d fetches, want at most %d (one per page)", src.ranges, want)
	}
	if got := shown(t, v); got[0] != "line 9976" {
		t.Fatalf("G shows %q first, want line 9976", got[0])
	}
	key(t, v, "g")
	if got := shown(t, v); got[0] != "line 0" {
		t.Fatalf("g shows %q first, want line 0", got[0])
	}
}

func TestSearchFindsARowInHistoryAndRepeatsAndSaysNoMatch(t *testing.T) {
	src := &fakeSource{end: 5000, rows: 24}
	v := newView(t, src, 80, 25)
	key(t, v, "?line 1234\r")
	if v.match != 1234 || v.Message() != "" {
		t.Fatalf("? found row %d (%q), want 1234", v.match, v.Message())
	}
	if got := shown(t, v); !contains(got, "line 1234") {
		t.Fatalf("the match is not shown: %q", got)
	}
	key(t, v, "n") // older: line 123 contains "line 123"? no: "line 1234" only matches itself
	if v.match != 1234 || v.Message() != "search wrapped" {
		t.Fatalf("n found %d (%q), want the same row after wrapping", v.match, v.Message())
	}
	key(t, v, "/re:^line 4[0-9]{3}$\r")
	if v.match != 4000 {
		t.Fatalf("/re: found %d, want 4000 (the first newer match)", v.match)
	}
	key(t, v, "n")
	if v.match != 4001 {
		t.Fatalf("n found %d, want 4001", v.match)
	}
	key(t, v, "N")
	if v.match != 4000 {
		t.Fatalf("N found %d, want 4000", v.match)
	}
	key(t, v, "/no such row\r")
	if v.Message() != "no match: no such row" || !strings.Contains(v.status(), "no match: no such row") {
		t.Fatalf("message %q, status %q: want no match said plainly", v.Message(), v.status())
	}
	key(t, v, "/re:(\r")
	if !strings.HasPrefix(v.Message(), "bad regular expression") {
		t.Fatalf("an invalid expression says %q", v.Message())
	}
}

func TestRenderDrawsMatchesReversedKeepingColoursAndThePosition(t *testing.T) {
	src := &fakeSource{end: 100, rows: 10}
	v := newView(t, src, 40, 11)
	key(t, v, "?line 95\r")
	out, err := v.Render(context.Background(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	if !strings.Contains(s, "\x1b[32m\x1b[7mline 95\x1b[m\x1b[7m") && !strings.Contains(s, "\x1b[32m\x1b[7mline 95") {
		t.Fatalf("the match is not reversed inside its colour: %q", s)
	}
	if !strings.Contains(s, "[0/100]") {
		t.Fatalf("no position [0/100] in %q", s)
	}
}

func TestHighlightReversesEveryMatchAndNothingElse(t *testing.T) {
	got := Highlight("ab \x1b[1mab\x1b[m ab", regexp.MustCompile("ab"))
	want := "\x1b[7mab\x1b[27m \x1b[1m\x1b[7mab\x1b[m\x1b[7m\x1b[27m \x1b[7mab\x1b[27m"
	if got != want {
		t.Fatalf("Highlight = %q, want %q", got, want)
	}
	if Plain(got) != "ab ab ab" {
		t.Fatalf("Plain(Highlight) = %q", Plain(got))
	}
}

func TestRenumberedRowsStartTheViewAgainAtTheNewest(t *testing.T) {
	src := &fakeSource{end: 3000, rows: 24}
	v := newView(t, src, 80, 25)
	key(t, v, "g")
	src.epoch, src.end = 1, 24
	if _, _, err := v.row(context.Background(), 0); err == nil {
		t.Fatal("a fetch in the old epoch did not fail")
	}
	if got := shown(t, v); got[0] != "line 0" || !strings.Contains(v.Message(), "renumbered") {
		t.Fatalf("after renumbering shows %q, says %q", got[0], v.Message())
	}
}

func contains(rows []string, s string) bool {
	for _, r := range rows {
		if r == s {
			return true
		}
	}
	return false
}

func TestMouseWheelScrollsThreeRows(t *testing.T) {
	src := &fakeSource{end: 1000, rows: 24}
	v := newView(t, src, 80, 25)
	top := v.Top()
	key(t, v, "\x1b[<64;10;5M\x1b[<64;10;5M")
	if v.Top() != top-6 {
		t.Fatalf("two wheel-ups moved the top from %d to %d, want %d", top, v.Top(), top-6)
	}
	key(t, v, "\x1b[<65;10;5M")
	if v.Top() != top-3 {
		t.Fatalf("a wheel-down moved the top to %d, want %d", v.Top(), top-3)
	}
	key(t, v, "\x1b[<0;10;5M\x1b[<0;10;5m") // a click does nothing
	if v.Top() != top-3 {
		t.Fatalf("a click moved the top to %d", v.Top())
	}
}

func TestSelectedRowsAreCopiedWithOSC52AndSavedToAFile(t *testing.T) {
	src := &fakeSource{end: 1000, rows: 24}
	v := newView(t, src, 80, 25)
	key(t, v, "?line 500\r")
	key(t, v, "Vjj")
	if from, to, ok := v.Selection(); !ok || from != 500 || to != 502 {
		t.Fatalf("selection %d-%d (%v), want 500-502", from, to, ok)
	}
	key(t, v, "y")
	out, err := v.Render(context.Background(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := string(Clipboard("line 500\nline 501\nline 502"))
	if !strings.HasPrefix(string(out), want) {
		t.Fatalf("the render does not start with the OSC 52 of the rows: %q", string(out)[:min(len(out), 80)])
	}
	if _, _, ok := v.Selection(); ok || v.Message() != "copied 3 rows to the clipboard" {
		t.Fatalf("after y: selecting %v, message %q", ok, v.Message())
	}
	if out, _ := v.Render(context.Background(), 0, 0); strings.Contains(string(out), "\x1b]52") {
		t.Fatal("the clipboard sequence was written twice")
	}

	path := t.TempDir() + "/rows.txt"
	key(t, v, "Vk")
	key(t, v, "s"+path+"\r")
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "line 501\nline 502\n" {
		t.Fatalf("saved %q (%v), want rows 501-502", got, err)
	}
	if v.Message() != "saved 2 rows to "+path {
		t.Fatalf("message %q", v.Message())
	}
	key(t, v, "y")
	if v.Message() != "nothing selected: v or Space starts a selection, V selects rows" {
		t.Fatalf("y without a selection says %q", v.Message())
	}
}

func TestTheCursorMovesWithinTheRowsShownAndScrollsAtTheirEdge(t *testing.T) {
	src := &fakeSource{end: 1000, rows: 24}
	v := newView(t, src, 80, 25)
	top := v.Top()
	key(t, v, "kkk")
	if v.Cursor() != 996 || v.Top() != top {
		t.Fatalf("k×3: cursor %d top %d, want 996 and the view unmoved (%d)", v.Cursor(), v.Top(), top)
	}
	for range 30 {
		key(t, v, "k")
	}
	if v.Cursor() != 966 || v.Top() != 966 {
		t.Fatalf("k×33: cursor %d top %d, want both 966", v.Cursor(), v.Top())
	}
	key(t, v, "\x1b[<65;1;1M") // wheel down: the cursor stays on a row shown
	if v.Cursor() < v.Top() {
		t.Fatalf("cursor %d above the top %d", v.Cursor(), v.Top())
	}
}

// clipboard is the text of the OSC 52 sequence the next render writes.
func clipboard(t *testing.T, v *View) string {
	t.Helper()
	out, err := v.Render(context.Background(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("\x1b\\]52;c;([A-Za-z0-9+/=]*)\x07").FindSubmatch(out)
	if m == nil {
		t.Fatalf("no OSC 52 in the render: %q", string(out)[:min(len(out), 80)])
	}
	b, err := base64.StdEncoding.DecodeString(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCharacterSelectionRunsFromOneCellToTheOtherInReadingOrder(t *testing.T) {
	src := &fakeSource{end: 1000, rows: 24}
	v := newView(t, src, 80, 25)
	key(t, v, "?line 500\r")
	if v.Cursor() != 500 || v.Column() != 0 {
		t.Fatalf("the search put the cursor at %d:%d, want 500:0", v.Cursor(), v.Column())
	}
	key(t, v, "lllll ") // column 5 ("500"), then Space begins
	key(t, v, "jj0l")   // row 502, column 1
	if v.SelectionMode() != Chars {
		t.Fatalf("mode %v, want characters", v.SelectionMode())
	}
	key(t, v, "y")
	if got := clipboard(t, v); got != "500\nline 501\nli" {
		t.Fatalf("copied %q, want the characters from 500:5 to 502:1", got)
	}
	// Backwards: the other end first.
	key(t, v, "$vkk0y")
	if got := clipboard(t, v); got != "line 500\nline 501\nline 502" {
		t.Fatalf("copied backwards %q", got)
	}
	if v.Message() != "copied 24 characters of 3 rows to the clipboard" {
		t.Fatalf("message %q", v.Message())
	}
}

func TestRectangleSelectionTakesTheSameColumnsOfEveryRow(t *testing.T) {
	src := &fakeSource{end: 1000, rows: 24}
	v := newView(t, src, 80, 25)
	key(t, v, "?line 500\r")
	key(t, v, "lllll\x16jjl") // C-v: a rectangle of columns 5-6, rows 500-502
	if v.SelectionMode() != Rectangle {
		t.Fatalf("mode %v after C-v, want a rectangle", v.SelectionMode())
	}
	key(t, v, "r") // back to characters, and r again to a rectangle
	if v.SelectionMode() != Chars {
		t.Fatalf("mode %v after r, want characters", v.SelectionMode())
	}
	key(t, v, "r\r") // Enter copies while selecting
	if got := clipboard(t, v); got != "50\n50\n50" {
		t.Fatalf("copied %q, want columns 5-6 of three rows", got)
	}
	if _, _, ok := v.Selection(); ok {
		t.Fatal("the copy did not end the selection")
	}
}

func TestSelectionIsDrawnReversedOnItsCellsOnly(t *testing.T) {
	src := &fakeSource{end: 1000, rows: 24}
	v := newView(t, src, 80, 25)
	key(t, v, "?line 990\r")
	key(t, v, "lllll\x16l")
	out, err := v.Render(context.Background(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "\x1b[32mline \x1b[7m99\x1b[27m0") {
		t.Fatalf("the selected cells are not reversed alone: %q", out)
	}
}

func TestMouseDragSelectsCharactersAndTheReleaseCopiesThem(t *testing.T) {
	src := &fakeSource{end: 1000, rows: 24}
	v := newView(t, src, 80, 25)
	if _, err := v.Render(context.Background(), 2, 10); err != nil { // the area's origin: row 3, column 11
		t.Fatal(err)
	}
	top := v.Top()
	// Press at the area's cell (5, 0), drag to (7, 1), release.
	key(t, v, "\x1b[<0;16;3M\x1b[<32;17;4M\x1b[<32;18;5M")
	if from, to, ok := v.Selection(); !ok || from != top || to != top+2 || v.SelectionMode() != Chars {
		t.Fatalf("drag: selection %d-%d %v mode %v, want rows %d-%d of characters", from, to, ok, v.SelectionMode(), top, top+2)
	}
	key(t, v, "\x1b[<0;18;5m")
	want := fmt.Sprintf("%d\nline %d\nline %d", top, top+1, top+2)
	if got := clipboard(t, v); got != want {
		t.Fatalf("the release copied %q, want %q", got, want)
	}
	// A click without a drag copies nothing and moves the cursor there
	// (the area was last drawn at the terminal's origin).
	key(t, v, "\x1b[<0;3;2M\x1b[<0;3;2m")
	if _, _, ok := v.Selection(); ok || v.Cursor() != top+1 || v.Column() != 2 {
		t.Fatalf("click: selecting %v, cursor %d:%d, want %d:2", ok, v.Cursor(), v.Column(), top+1)
	}
}

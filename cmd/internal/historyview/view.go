package historyview

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"unicode/utf8"
)

// PageRows is how many rows one fetch asks for.
const PageRows = 256

// maxScan bounds one search: at most this many rows are read (and fetched,
// PageRows a round trip) before it says "no match".
const maxScan = 200_000

// maxPages bounds the cache: past it the pages far from the view are
// dropped (history is bounded by the daemon's row budget anyway).
const maxPages = 512

// Page is what a Source returns: Lines are rows [First, First+len(Lines)),
// each with its SGR escapes (docs/rows.md, "Escapes"); Oldest and End are
// the pane's kept rows [Oldest, End) now, Rows its screen height, Epoch its
// numbering epoch.
type Page struct {
	First, Oldest, End, Epoch int64
	Rows                      int64
	Lines                     []string
}

// ErrEpoch is returned (wrapped or as is) by a Source whose pane's
// numbering restarted since the epoch it was given (conflict.epoch).
var ErrEpoch = errors.New("the pane's row numbering restarted")

// Source reads a pane's rows: Screen returns its screen rows and the pane's
// numbers; Range returns rows [start, end) of the given epoch, clamped to
// the rows kept (Mux.CaptureRows with escapes and clamp).
type Source interface {
	Screen(ctx context.Context) (Page, error)
	Range(ctx context.Context, start, end, epoch int64) (Page, error)
}

// View is the state of one history view. It is not safe for concurrent
// use.
type View struct {
	src    Source
	width  int   // terminal columns
	height int   // rows of the area, status line included
	top    int64 // row number of the first row shown
	bottom int64 // one past the newest row the view shows (the pane's end on entry)
	oldest int64
	live   int64 // the pane's end, as last read
	rows   int64 // the pane's screen height, as last read
	epoch  int64
	pages  map[int64][]string // page number (row / PageRows) → its rows
	msg    string

	prompt *string // the search or file name being typed, nil when none
	kind   byte    // what the prompt is for: '/', '?' or 's' (save to a file)
	query  string
	re     *regexp.Regexp // the last search's expression (plain text quoted)
	up     bool           // the last search went towards older rows
	match  int64          // row of the last match, -1 when none

	cur     int64  // the cursor's row
	col     int    // the cursor's column (a cell of the row's text, 0-based)
	sel     int64  // the selection's other end's row, -1 when not selecting
	selCol  int    // the selection's other end's column
	mode    Mode   // how the selection is shaped, while selecting
	press   *cell  // where the mouse's left button went down, nil when up
	dragged bool   // the mouse moved with the button down: a selection
	row0    int    // the area's top row on the terminal, 0-based, as last rendered
	col0    int    // the area's left column on the terminal
	out     []byte // sequences for the terminal, written with the next Render (OSC 52)
}

// Mode is a selection's shape, as tmux's copy mode has them: Chars from
// one end to the other in reading order, whole Lines, or a Rectangle of
// the columns between the two ends on every row between them.
type Mode byte

const (
	Chars Mode = iota
	Lines
	Rectangle
)

// cell is a row and a column of the view's rows.
type cell struct {
	row int64
	col int
}

// New opens the view at the pane's newest rows (its screen as it is now)
// in an area of width×height cells, the last row of which is the status
// line. Errors: the Source's.
func New(ctx context.Context, src Source, width, height int) (*View, error) {
	v := &View{src: src, width: max(width, 1), height: max(height, 2), pages: map[int64][]string{}, match: -1, sel: -1}
	p, err := src.Screen(ctx)
	if err != nil {
		return nil, err
	}
	v.at(p)
	v.bottom = p.End
	v.top = v.clampTop(v.bottom - int64(v.body()))
	v.cur = max(v.bottom-1, v.oldest)
	return v, nil
}

// FromScreen shows the rows where the live pane showed them (its last
// row under the status line), the cursor at the screen's bottom: a mouse
// report that entered the view then points at the cell the user saw.
func (v *View) FromScreen() {
	v.top = v.clampTop(v.bottom - v.rows)
	v.keepCursor()
}

// at takes a page's numbers.
func (v *View) at(p Page) {
	v.oldest, v.live, v.epoch, v.rows = p.Oldest, p.End, p.Epoch, p.Rows
}

// newest goes to the pane's newest rows as last read: the view's bottom
// becomes the pane's end, and the pages holding rows that were on the
// screen (which may have changed since they were fetched) are fetched
// again.
func (v *View) newest() {
	if v.live != v.bottom {
		for pg := max(v.bottom-v.rows, 0) / PageRows; pg <= v.bottom/PageRows; pg++ {
			delete(v.pages, pg)
		}
		v.bottom = v.live
	}
	v.moveCursor(v.bottom - v.cur)
}

// body is the number of rows drawn above the status line.
func (v *View) body() int { return v.height - 1 }

// Resize changes the area's size.
func (v *View) Resize(width, height int) {
	v.width, v.height = max(width, 1), max(height, 2)
	v.top = v.clampTop(v.top)
}

// clampTop keeps the first row shown within [oldest, bottom - body].
func (v *View) clampTop(top int64) int64 {
	top = min(top, v.bottom-int64(v.body()))
	return max(top, v.oldest)
}

// Top is the row number of the first row shown; Behind is how many rows
// the pane has below the view's bottom row now.
func (v *View) Top() int64    { return v.top }
func (v *View) Behind() int64 { return max(v.live-min(v.top+int64(v.body()), v.bottom), 0) }

// Message is what the status line says, "" for nothing.
func (v *View) Message() string { return v.msg }

// Refresh reads the pane's numbers again so that the status line says how
// far behind the view is; after the numbering restarted the view starts
// again at the newest rows and says so.
func (v *View) Refresh(ctx context.Context) error {
	p, err := v.src.Screen(ctx)
	if err != nil {
		return err
	}
	if p.Epoch != v.epoch {
		v.restart(p)
		return nil
	}
	v.at(p)
	v.top = v.clampTop(v.top)
	return nil
}

// restart drops everything fetched and shows the newest rows of the new
// numbering.
func (v *View) restart(p Page) {
	v.pages = map[int64][]string{}
	v.at(p)
	v.bottom = p.End
	v.top = v.clampTop(v.bottom - int64(v.body()))
	v.cur, v.sel = max(v.bottom-1, v.oldest), -1
	v.match = -1
	v.msg = "the pane's rows were renumbered (history cleared or pane relaunched)"
}

// row returns row n's line, fetching its page if it is not kept; ok is
// false for a row that is not kept (before oldest, at or past bottom).
func (v *View) row(ctx context.Context, n int64) (string, bool, error) {
	if n < v.oldest || n >= v.bottom {
		return "", false, nil
	}
	pg := n / PageRows
	lines, ok := v.pages[pg]
	if !ok {
		start := pg * PageRows
		p, err := v.src.Range(ctx, start, min(start+PageRows, v.bottom), v.epoch)
		if errors.Is(err, ErrEpoch) {
			if p, err := v.src.Screen(ctx); err == nil {
				v.restart(p)
			}
			return "", false, err
		}
		if err != nil {
			return "", false, err
		}
		v.oldest, v.live = p.Oldest, p.End
		if len(v.pages) >= maxPages {
			for k := range v.pages {
				if k < pg-maxPages/4 || k > pg+maxPages/4 {
					delete(v.pages, k)
				}
			}
		}
		// Rows before First were dropped since (clamp raised the start):
		// they are kept as "" and shown blank.
		lines = make([]string, min(start+PageRows, v.bottom)-start)
		for i, l := range p.Lines {
			if j := p.First + int64(i) - start; j >= 0 && j < int64(len(lines)) {
				lines[j] = l
			}
		}
		v.pages[pg] = lines
	}
	i := n - pg*PageRows
	if i >= int64(len(lines)) {
		return "", false, nil
	}
	return lines[i], true, nil
}

// Scroll moves the view and the cursor by n rows (negative: towards older
// rows).
func (v *View) Scroll(n int64) {
	v.top = v.clampTop(v.top + n)
	v.cur += n
	v.keepCursor()
}

// keepCursor keeps the cursor on a row shown.
func (v *View) keepCursor() {
	v.cur = max(min(v.cur, v.top+int64(v.body())-1, v.bottom-1), v.top)
}

// moveCursor moves the cursor by n rows, scrolling when it leaves the rows
// shown.
func (v *View) moveCursor(n int64) {
	v.cur = max(min(v.cur+n, v.bottom-1), v.oldest)
	if v.cur < v.top {
		v.top = v.clampTop(v.cur)
	} else if v.cur >= v.top+int64(v.body()) {
		v.top = v.clampTop(v.cur - int64(v.body()) + 1)
	}
	v.keepCursor()
}

// Cursor is the cursor's row; Column its column; Selection the selected
// rows [from, to] (ok false when not selecting), SelectionMode its shape.
func (v *View) Cursor() int64       { return v.cur }
func (v *View) Column() int         { return v.col }
func (v *View) SelectionMode() Mode { return v.mode }
func (v *View) Selection() (from, to int64, ok bool) {
	if v.sel < 0 {
		return 0, 0, false
	}
	return min(v.sel, v.cur), max(v.sel, v.cur), true
}

// span is the columns [c0, c1] (inclusive; c1 -1 for none, a huge c1 for
// the whole row) that the selection takes of row n, which it covers.
func (v *View) span(n int64) (c0, c1 int) {
	const all = 1 << 30
	a, b := cell{v.sel, v.selCol}, cell{v.cur, v.col}
	if b.row < a.row || b.row == a.row && b.col < a.col {
		a, b = b, a
	}
	switch v.mode {
	case Lines:
		return 0, all
	case Rectangle:
		return min(v.selCol, v.col), max(v.selCol, v.col)
	}
	c0, c1 = 0, all
	if n == a.row {
		c0 = a.col
	}
	if n == b.row {
		c1 = b.col
	}
	return c0, c1
}

// toggleSelect starts a selection of shape m at the cursor, or ends the one
// under way when it has that shape already (Chars: any shape).
func (v *View) toggleSelect(m Mode) {
	switch {
	case v.sel < 0:
		v.sel, v.selCol, v.mode = v.cur, v.col, m
	case m == Chars || v.mode == m:
		v.sel = -1
	default:
		v.mode = m
	}
}

// rectangle toggles the selection between a rectangle and characters,
// starting a rectangle when there is none.
func (v *View) rectangle() {
	switch {
	case v.sel < 0:
		v.sel, v.selCol, v.mode = v.cur, v.col, Rectangle
	case v.mode == Rectangle:
		v.mode = Chars
	default:
		v.mode = Rectangle
	}
}

// moveColumn moves the cursor's column by n cells, within the area.
func (v *View) moveColumn(n int) {
	v.col = max(min(v.col+n, v.width-1), 0)
}

// lineEnd puts the cursor on its row's last character (trailing spaces
// not counted).
func (v *View) lineEnd(ctx context.Context) error {
	line, _, err := v.row(ctx, v.cur)
	if err != nil {
		return err
	}
	v.col = max(min(len([]rune(strings.TrimRight(Plain(line), " ")))-1, v.width-1), 0)
	return nil
}

// mouse handles an SGR mouse report: the wheel scrolls three rows; the
// left button puts the cursor on the cell pressed, a drag with it selects
// characters from there and its release copies them (as tmux's copy mode
// does with the mouse).
func (v *View) mouse(ctx context.Context, seq string) error {
	var btn, x, y int
	var fin byte
	if _, err := fmt.Sscanf(seq, "[<%d;%d;%d%c", &btn, &x, &y, &fin); err != nil {
		return nil
	}
	at := cell{v.top + int64(y-1-v.row0), x - 1 - v.col0}
	inside := at.row >= v.top && at.row < v.top+int64(v.body()) && at.row < v.bottom && at.col >= 0 && at.col < v.width
	switch b := btn &^ 0x1c; { // without shift, meta, control
	case fin == 'M' && b == 64:
		v.Scroll(-3)
	case fin == 'M' && b == 65:
		v.Scroll(3)
	case fin == 'M' && b == 0 && inside:
		v.press, v.dragged = &at, false
		v.sel = -1
		v.cur, v.col = at.row, at.col
	case fin == 'M' && b == 32 && v.press != nil: // motion with the left button down
		if !v.dragged {
			v.dragged = true
			v.sel, v.selCol, v.mode = v.press.row, v.press.col, Chars
		}
		switch {
		case y-1-v.row0 < 0:
			v.Scroll(-1)
			at.row = v.top
		case y-1-v.row0 >= v.body():
			v.Scroll(1)
			at.row = min(v.top+int64(v.body()), v.bottom) - 1
		}
		v.cur, v.col = max(at.row, v.oldest), max(min(at.col, v.width-1), 0)
		v.keepCursor()
	case fin == 'm' && v.press != nil:
		v.press = nil
		if v.dragged {
			v.dragged = false
			return v.copy(ctx)
		}
	}
	return nil
}

// Key handles one read of the terminal's input (keys, SGR mouse reports).
// quit is true when the user left the view. Errors: a Source's, from a
// search.
func (v *View) Key(ctx context.Context, b []byte) (quit bool, err error) {
	for len(b) > 0 {
		n, q, err := v.key(ctx, b)
		if q || err != nil {
			return q, err
		}
		b = b[n:]
	}
	return false, nil
}

// key handles the key at the start of b and returns how many bytes it took.
func (v *View) key(ctx context.Context, b []byte) (int, bool, error) {
	if v.prompt != nil {
		return v.promptKey(ctx, b)
	}
	page := int64(max(v.body()-1, 1))
	if b[0] == 0x1b {
		seq, n := escape(b)
		switch {
		case seq == "":
			return 1, true, nil // Escape alone
		case seq == "[A" || seq == "OA":
			v.moveCursor(-1)
		case seq == "[B" || seq == "OB":
			v.moveCursor(1)
		case seq == "[D" || seq == "OD":
			v.moveColumn(-1)
		case seq == "[C" || seq == "OC":
			v.moveColumn(1)
		case seq == "[5~":
			v.Scroll(-page)
		case seq == "[6~":
			v.Scroll(page)
		case seq == "[H" || seq == "OH" || seq == "[1~":
			v.moveCursor(v.oldest - v.cur)
		case seq == "[F" || seq == "OF" || seq == "[4~":
			v.newest()
		case strings.HasPrefix(seq, "[<"): // SGR mouse: ESC [ < button ; x ; y M|m
			return n, false, v.mouse(ctx, seq)
		}
		return n, false, nil
	}
	v.msg = ""
	switch b[0] {
	case 'q', 0x03: // q, C-c
		return 1, true, nil
	case 'k':
		v.moveCursor(-1)
	case 'j':
		v.moveCursor(1)
	case 0x19: // C-y
		v.Scroll(-1)
	case 0x05: // C-e
		v.Scroll(1)
	case 'h':
		v.moveColumn(-1)
	case 'l':
		v.moveColumn(1)
	case '0', '^':
		v.col = 0
	case '$':
		return 1, false, v.lineEnd(ctx)
	case 'v', ' ':
		v.toggleSelect(Chars)
	case 'V':
		v.toggleSelect(Lines)
	case 0x16, 'r': // C-v, r
		v.rectangle()
	case 'y', '\r':
		if v.sel < 0 {
			if b[0] == '\r' {
				v.moveCursor(1)
			} else {
				v.msg = "nothing selected: v or Space starts a selection, V selects rows"
			}
			return 1, false, nil
		}
		return 1, false, v.copy(ctx)
	case 's':
		s := ""
		v.prompt, v.kind = &s, 's'
	case 0x02: // C-b
		v.Scroll(-page)
	case 0x06: // C-f
		v.Scroll(page)
	case 0x15: // C-u
		v.Scroll(-page / 2)
	case 0x04: // C-d
		v.Scroll(page / 2)
	case 'g':
		v.moveCursor(v.oldest - v.cur)
	case 'G':
		v.newest()
	case '/', '?':
		s := ""
		v.prompt, v.kind = &s, b[0]
	case 'n':
		return 1, false, v.next(ctx, v.up)
	case 'N':
		return 1, false, v.next(ctx, !v.up)
	}
	return 1, false, nil
}

// escape splits off the escape sequence at the start of b (which starts
// with ESC): seq is what follows ESC ("" for ESC alone), n its length.
func escape(b []byte) (seq string, n int) {
	if len(b) < 2 {
		return "", 1
	}
	switch b[1] {
	case '[':
		for i := 2; i < len(b); i++ {
			if b[i] >= 0x40 && b[i] <= 0x7e {
				return string(b[1 : i+1]), i + 1
			}
		}
		return string(b[1:]), len(b)
	case 'O':
		if len(b) >= 3 {
			return string(b[1:3]), 3
		}
	}
	return "", 1 // ESC then another key: Escape
}

// promptKey handles a key while a search is typed: characters add to it,
// Backspace removes the last, Enter searches, Escape or C-c gives up.
func (v *View) promptKey(ctx context.Context, b []byte) (int, bool, error) {
	c := b[0]
	switch {
	case c == '\r' || c == '\n':
		q := *v.prompt
		v.prompt = nil
		if v.kind == 's' {
			return 1, false, v.save(ctx, q)
		}
		if q == "" {
			q = v.query
		}
		if q == "" {
			return 1, false, nil
		}
		return 1, false, v.Search(ctx, q, v.kind == '?')
	case c == 0x1b || c == 0x03:
		v.prompt = nil
		if c == 0x1b {
			_, n := escape(b)
			return n, false, nil
		}
	case c == 0x7f || c == 0x08:
		r := []rune(*v.prompt)
		if len(r) > 0 {
			s := string(r[:len(r)-1])
			v.prompt = &s
		}
	case c >= 0x20:
		s := *v.prompt + string(c)
		v.prompt = &s
	}
	return 1, false, nil
}

// Search finds q (plain text, or a regular expression after "re:") from
// the view's position towards older rows (up) or newer ones, wrapping
// around once, and shows the row it is on. Nothing found: the status line
// says "no match". An invalid expression says why. Errors: the Source's.
func (v *View) Search(ctx context.Context, q string, up bool) error {
	var re *regexp.Regexp
	if expr, ok := strings.CutPrefix(q, "re:"); ok {
		var err error
		if re, err = regexp.Compile(expr); err != nil {
			v.msg = "bad regular expression: " + err.Error()
			return nil
		}
	} else {
		re = regexp.MustCompile(regexp.QuoteMeta(q))
	}
	v.query, v.re, v.up = q, re, up
	v.match = -1
	return v.next(ctx, up)
}

// next finds the last search's next match towards older rows (up) or
// newer ones.
func (v *View) next(ctx context.Context, up bool) error {
	if v.re == nil {
		v.msg = "no search yet: / or ? starts one"
		return nil
	}
	from := v.match
	if from < 0 { // first search: from the rows shown
		if up {
			from = min(v.top+int64(v.body()), v.bottom)
		} else {
			from = v.top - 1
		}
	}
	step := int64(1)
	if up {
		step = -1
	}
	total := v.bottom - v.oldest
	wrapped := false
	n := from
	for i := int64(0); i < min(total, maxScan); i++ {
		n += step
		if n >= v.bottom {
			n, wrapped = v.oldest, true
		} else if n < v.oldest {
			n, wrapped = v.bottom-1, true
		}
		line, ok, err := v.row(ctx, n)
		if err != nil {
			return err
		}
		text := strings.TrimRight(Plain(line), " ")
		if loc := v.re.FindStringIndex(text); ok && loc != nil {
			v.match, v.cur = n, n
			v.col = min(utf8.RuneCountInString(text[:loc[0]]), v.width-1)
			if n < v.top || n >= v.top+int64(v.body()) {
				v.top = v.clampTop(n - int64(v.body())/2)
			}
			v.keepCursor()
			v.msg = ""
			if wrapped {
				v.msg = "search wrapped"
			}
			return nil
		}
	}
	v.msg = "no match: " + v.query
	return nil
}

// Render returns the bytes that draw the view in the area whose top-left
// cell is (row0, col0), 0-based, on a terminal with autowrap off: each row
// shown, the matches of the last search in reverse video, and the status
// line in reverse video. Errors: the Source's (the rows it could not
// fetch are drawn blank).
func (v *View) Render(ctx context.Context, row0, col0 int) ([]byte, error) {
	var b strings.Builder
	b.Write(v.out)
	v.out = nil
	v.row0, v.col0 = row0, col0
	var ferr error
	from, to, selecting := v.Selection()
	clear := "\x1b[K"
	if col0 > 0 {
		clear = strings.Repeat(" ", v.width) // not past the area
	}
	for i := 0; i < v.body(); i++ {
		fmt.Fprintf(&b, "\x1b[%d;%dH\x1b[m", row0+i+1, col0+1)
		line, ok, err := v.row(ctx, v.top+int64(i))
		if err != nil && ferr == nil {
			ferr = err
		}
		if col0 > 0 {
			b.WriteString(clear)
			fmt.Fprintf(&b, "\x1b[%d;%dH", row0+i+1, col0+1)
		}
		if n := v.top + int64(i); ok && selecting && n >= from && n <= to {
			c0, c1 := v.span(n)
			line = highlight(line, [][]int{cells(Plain(line), c0, c1)})
		} else if ok && v.re != nil {
			line = Highlight(line, v.re)
		}
		if ok {
			b.WriteString(cut(line, v.width))
		}
		b.WriteString("\x1b[m")
		if col0 == 0 {
			b.WriteString(clear)
		}
	}
	fmt.Fprintf(&b, "\x1b[%d;%dH\x1b[m\x1b[7m%s\x1b[m", row0+v.height, col0+1, v.status())
	if v.prompt == nil { // the cursor, at its row's start
		fmt.Fprintf(&b, "\x1b[%d;%dH\x1b[?25h", row0+int(v.cur-v.top)+1, col0+v.col+1)
	}
	return []byte(b.String()), ferr
}

// status is the status line: the prompt or message on the left, the
// position on the right, exactly width cells (ASCII but for the message).
func (v *View) status() string {
	left := " " + v.msg
	if from, to, ok := v.Selection(); ok && v.msg == "" {
		shape := map[Mode]string{Chars: "characters", Lines: "rows", Rectangle: "a rectangle"}[v.mode]
		left = fmt.Sprintf(" %s of rows %d-%d selected: y copies, s saves to a file, v stops", shape, from, to)
	}
	if v.prompt != nil {
		switch v.kind {
		case 's':
			left = "save to: " + *v.prompt
		default:
			left = string(v.kind) + *v.prompt
		}
	}
	right := fmt.Sprintf("[%d/%d]", v.Behind(), max(v.live-v.oldest, 0))
	lr, rr := []rune(left), len(right)
	if len(lr)+rr+1 > v.width {
		if rr >= v.width {
			return right[:v.width]
		}
		lr = lr[:v.width-rr-1]
	}
	return string(lr) + strings.Repeat(" ", v.width-len(lr)-rr) + right
}

// Say puts msg on the status line (until the next key).
func (v *View) Say(msg string) { v.msg = msg }

// Sequences around the view on the user's terminal: entering turns
// autowrap and the cursor off and mouse reports (button events, SGR) on,
// for the wheel and drags;
// Leave turns them back and clears the screen, for the pane to be drawn
// again from a blank terminal.
const (
	Enter = "\x1b[?7l\x1b[?25l\x1b[?1002h\x1b[?1006h"
	Leave = "\x1b[?1002l\x1b[?1000l\x1b[?1006l\x1b[?7h\x1b[?25h\x1b[m\x1b[H\x1b[2J"
)

// maxCopy bounds what is copied to the clipboard, in bytes of text
// (terminals cap OSC 52; tmux's input buffer holds about 1 MB).
const maxCopy = 1 << 20

// text is the selection's text, each row's part without its trailing
// spaces, one a line; without a selection, the cursor's row.
func (v *View) text(ctx context.Context) (string, int64, error) {
	from, to, ok := v.Selection()
	if !ok {
		from, to = v.cur, v.cur
	}
	var b strings.Builder
	for n := from; n <= to; n++ {
		line, _, err := v.row(ctx, n)
		if err != nil {
			return "", 0, err
		}
		text := Plain(line)
		if ok {
			c0, c1 := v.span(n)
			sp := cells(text, c0, c1)
			text = text[sp[0]:sp[1]]
		}
		b.WriteString(strings.TrimRight(text, " "))
		b.WriteByte('\n')
		if b.Len() > maxCopy {
			return "", 0, fmt.Errorf("the selection is over %d bytes: save it to a file (s)", maxCopy)
		}
	}
	return b.String(), to - from + 1, nil
}

// copy sends the selection's text to the terminal's clipboard with OSC 52
// (written with the next Render), as tmux does with set-clipboard, and
// ends the selection.
func (v *View) copy(ctx context.Context) error {
	text, n, err := v.text(ctx)
	if err != nil {
		v.msg = err.Error()
		return nil
	}
	v.out = append(v.out, Clipboard(strings.TrimSuffix(text, "\n"))...)
	v.sel = -1
	v.msg = fmt.Sprintf("copied %d rows to the clipboard", n)
	if v.mode != Lines {
		v.msg = fmt.Sprintf("copied %d characters of %s to the clipboard", utf8.RuneCountInString(text)-int(n), rows(n))
	}
	return nil
}

// save writes the selection's text (or the cursor's row) to the file at
// path (created 0600, or truncated), one row a line.
func (v *View) save(ctx context.Context, path string) error {
	if path == "" {
		return nil
	}
	text, n, err := v.text(ctx)
	if err == nil {
		err = os.WriteFile(path, []byte(text), 0o600)
	}
	if err != nil {
		v.msg = "cannot save: " + err.Error()
		return nil
	}
	v.sel = -1
	v.msg = fmt.Sprintf("saved %d rows to %s", n, path)
	return nil
}

// rows is "1 row" or "N rows".
func rows(n int64) string {
	if n == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", n)
}

// Clipboard is the OSC 52 sequence that puts text on the terminal's
// clipboard ("c"), base64 as the sequence has it.
func Clipboard(text string) []byte {
	return []byte("\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\x07")
}

package historyview

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
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

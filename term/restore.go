package term

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/signaltty/signaltty/term/rowstore"
)

// NewRestoredTerminal returns a terminal without an emulator whose rows are
// lines (rows saved before a restart, oldest first, in the saved form of
// TailStyled: plain text, or text with SGR and OSC 8 sequences; see
// parseSavedRow): the last min(rows, len(lines)) of them form the screen
// and the others its history, numbered 0, 1, … in the given epoch
// (numbering restarted, so the caller passes an epoch the rows' earlier
// numbering did not use). The rows keep their colours: a capture with
// escapes and a frame draw them as the program did. Write and Resize do
// nothing on it.
func NewRestoredTerminal(cols, rows int, lines []string, epoch int64) *Terminal {
	cols, rows = clampDim(cols), clampDim(rows)
	t := &Terminal{cols: cols, rows: rows, hist: rowstore.NewRing(max(len(lines), 1), DefaultHistoryBytes), epoch: epoch}
	t.link()
	n := min(rows, len(lines))
	t.preloadLocked(lines[:len(lines)-n])
	t.frozen = make([]rowstore.Row, rows)
	copy(t.frozen, savedRows(lines[len(lines)-n:]))
	return t
}

// preloadLocked puts rows in the saved form into history ahead of anything
// the terminal shows (a relaunched pane keeps its earlier rows above the
// new output); t.mu is held or t is not shared yet.
func (t *Terminal) preloadLocked(lines []string) {
	for _, r := range savedRows(lines) {
		t.hist.Push(r)
	}
	t.pushed += int64(len(lines))
}

// textRow makes a stored row of plain text: control characters become
// spaces, trailing spaces go, no style runs.
func textRow(s string) rowstore.Row {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimRight(s, " ")
	return rowstore.Row{Text: s, Cells: int32(ansi.StringWidth(s))}
}

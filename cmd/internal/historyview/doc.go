// Package historyview is the history view of an attached pane
// (docs/attach.md, "History view"): a client-side view of the pane's
// numbered rows (docs/rows.md) that the user scrolls and searches while the
// pane keeps running.
//
// The view reads rows from a Source in pages of PageRows rows, keeps the
// pages it fetched (keyed by row number, for one numbering epoch) and draws
// them, colours and attributes included, in an area of the terminal with a
// status line at its bottom: a message or the search prompt on the left,
// and on the right the position as "[B/T]", B the rows between the view's
// bottom and the pane's last row now (how far behind the live pane the view
// is) and T the rows kept. Scrolling through any number of rows costs one
// round trip per page, never one per row.
//
// Keys (cmd/internal/keytable, table "history", lists them all): Up/k
// and Down/j move the cursor's row, scrolling at the edge, Left/h and
// Right/l its column, 0 and $ to the row's start and end; C-y and C-e
// scroll one row, PageUp/C-b and PageDown/C-f a page, C-u and C-d half a
// page; g/Home the oldest row, G/End the pane's newest (rows printed since
// the view opened included). / searches towards newer rows and ? towards
// older ones, n repeats the search in its direction and N in the other; q
// or Escape leaves the view. A query is plain text; one that starts with
// "re:" is a regular expression (RE2 syntax, as Go's regexp package takes
// it). Matches are drawn in reverse video on every row shown; a search
// that finds nothing says "no match". A selection has one of tmux's copy
// mode's shapes (Mode): v or Space selects characters from the cursor, V
// whole rows, C-v or r toggles a rectangle; y (or Enter) copies it to the
// terminal's clipboard (OSC 52, written with the next Render) and s saves
// it to a file. SGR mouse reports: the wheel scrolls three rows, a press
// moves the cursor, a drag selects characters and its release copies them.
package historyview

// Package term renders a program's output with a terminal emulator
// (github.com/charmbracelet/x/vt) into a bounded, numbered row store, and
// reports what the output says about itself: titles, the working directory,
// shell-integration marks, the bell, the alternate screen.
//
// A Terminal knows nothing of processes or PTYs: package pty feeds it a
// pane's output (Write, from one goroutine) and passes its replies to
// queries back to the program; Capture, Tail and the other methods may be
// called from any goroutine.
//
// Rows are numbered as docs/rows.md describes: every physical row a
// terminal ever showed has a number, counted from 0 since the terminal was
// made (or since its numbering last restarted, which changes the epoch).
// Rows that scroll off the top of the primary screen move into the row
// store (text plus style runs), bounded by a row count and a byte budget
// that drop the oldest rows first; the screen rows follow them.
//
// Terminals share a Memory: the pool their emulators come from and go
// back to, and the watch that returns the memory a burst of output leaves
// to the system once output is quiet (docs/limits.md, "Memory handed
// back"). Config.Memory nil is the process's shared Memory.
//
// Some defects of the emulator are worked around (see Terminal), and long
// runs of line output skip its per-line scrolling with the
// same result, which differential tests against the emulator alone check
// cell by cell.
package term

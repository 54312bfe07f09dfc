// Package rowstore owns a terminal's stored rows (docs/rows.md): a row as
// text plus style runs (Row, StyleRun) and its forms (padded, trimmed,
// styled), the history ring that bounds them by count and bytes (Ring:
// push, reading by index, dropping the oldest), and the byte budget shared
// by several rings (Budget), which drops rows through each member's
// trimmer. It knows nothing of emulators or cells.
package rowstore

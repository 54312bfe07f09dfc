// Package journal keeps signaltty's event journal (docs/events.md,
// "Journal"): durable sequence reservations, the journaled state events in
// size-bounded segment files, and the evidence of what the retained history
// can prove.
//
// Files, in the journal's directory ($XDG_STATE_HOME/signaltty/events/):
//
//   - sequence: the upper bound of the numbers reserved so far, as decimal
//     text. No number above it is ever issued before a larger bound was
//     written (temporary file, fsync, rename, directory fsync), and at start
//     the stored bound becomes the base: numbers are never reused after a
//     crash, at the price of a gap. On a full file system the file's first
//     64 bytes are overwritten in place instead, and "lost_from <seq>"
//     follows the bound while a lost range is not yet in the evidence.
//   - segment-<first seq>.jsonl: one event per line, {"seq", "source",
//     "type", "resource", "time", "data"}, appended in seq order and synced
//     (fdatasync) per batch before the batch's events are published.
//   - evidence.json: what the journal can prove: retained_after (events up
//     to it were rotated away), broken_through (a cursor below it cannot be
//     proven complete: a torn tail, a segment missing or of the wrong length
//     or checksum, corrupt evidence; once broken, always broken for that
//     range), lost (ranges of events issued but not written: a full file
//     system; docs/events.md, "A full disk"), and each closed segment's
//     first and last seq, length and SHA-256. Rewritten durably at every rotation and whenever a problem is
//     found; never "repaired" by dropping what it records.
//
// A Journal is not safe for concurrent use: its owner serialises calls.
package journal

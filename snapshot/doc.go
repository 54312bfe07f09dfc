// Package snapshot persists signaltty's structure and resume metadata and
// reads it back: the snapshot schema (schema.go, documented field by field
// in SCHEMA.md), crash-safe saves, rotation of older snapshots, and loading
// with recovery from corrupt or truncated files.
//
// Processes never survive a restart: a snapshot holds what is needed to
// rebuild workspaces, tabs and panes as tombstones, never PTY descriptors,
// process ids or secrets (docs/persistence.md, "What is saved" and "Crash
// safety").
//
// Files under the state directory ($XDG_STATE_HOME/signaltty):
//
//	snapshot.json                 the current snapshot
//	history/<pane>.tail           the last rendered rows of each pane (≤ 64 KiB)
//	snapshots/snapshot-<ts>.json  older snapshots (≤ 48, ≥ 15 min apart)
//	snapshot.corrupt-<ts>.json    a snapshot that could not be read, set aside
package snapshot

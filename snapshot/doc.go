// Package snapshot will hold signaltty's persisted state: the snapshot
// schema, atomic saves, rotation, loading and restore. It is empty for now.
package snapshot

// Package request owns the bounds of every request the daemon accepts and
// the checks of a request's values that need no daemon state: sizes,
// commands, working directories, signals and grace periods, session ids
// reported by agents, run keys and wait timeouts, and the bounds of the
// settings (the runs' limits, history rows, and the save, output save and
// emulator release intervals). Each check takes plain values and returns
// nil or an *errcode.Error with an invalid_params code (docs/limits.md,
// "Panes, input, events, captures and rows"; docs/run-wait.md, "Start"),
// except the emulator release delay's, which is set only from the
// daemon's environment and fails with a plain error. The bounds are exported constants so that
// the adapters, the command-line help and the MCP schema state the same
// numbers the checks enforce.
package request

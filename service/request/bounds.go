package request

import "time"

// Size limits of a pane, in cells.
const (
	MinSize     = 1
	MaxSize     = 1000
	DefaultCols = 80
	DefaultRows = 24
)

// Bounds of a run request (docs/run-wait.md, "Start"): the shell text in
// bytes, the deadline in ms, the output kept in rows and bytes.
const (
	MaxShell           = 65536
	MaxDeadlineMs      = 86400000
	MaxOutputRows      = 1000
	MaxOutputBytes     = 262144
	DefaultOutputRows  = 100
	DefaultOutputBytes = 65536
)

// Bounds of a wait (Run.Wait, Mux.WaitPane, Mux.WaitOutput), in ms: a wait
// without a timeout of its own waits DefaultWaitMs; none waits longer than
// MaxWaitMs (24 h).
const (
	DefaultWaitMs = 3600000
	MaxWaitMs     = 86400000
)

// Bounds of one MCP tool call's wait, in ms (docs/mcp.md, "Long waits"):
// MCPWaitCapMs is the default and longest run_wait and pane_wait of one
// call, under the 2 minutes after which Claude Code moves a call of its
// main conversation to the background and under Codex's default tool
// timeout of 300 s; MaxMCPWaitCapMs is the largest --wait-cap-ms, under the
// 30 minutes after which Claude Code gives up on a stdio call.
const (
	MCPWaitCapMs    = 110000
	MaxMCPWaitCapMs = 25 * 60 * 1000
)

// MaxGrace is the longest grace period of a termination (docs/termination.md).
const MaxGrace = 60 * time.Second

// MaxRef is the longest branch name or start point of a worktree, in bytes.
const MaxRef = 1024

// Limits of reported identity, in bytes.
const (
	MaxSessionID = 256
	MaxModel     = 256
)

// Command signaltty-mcp is signaltty's Model Context Protocol server
// (docs/mcp.md): one tool per varlink call of the signaltty CLI, served on
// standard input and output. Users and agents start it as `signaltty mcp`,
// which replaces itself with this program; it is a program of its own so
// that the MCP SDK is not linked into the CLI.
//
//	signaltty-mcp [--address ADDRESS] [--wait-cap-ms MS]
//
// --address is the daemon address (default $SIGNALTTY_ADDRESS, else the
// user's socket); --wait-cap-ms sets the longest run_wait and pane_wait of
// one call (default 110000 ms, at most 1500000; docs/mcp.md, "Long
// waits"). $MAX_MCP_OUTPUT_TOKENS (default 25,000) sets the budget every
// result is kept under (docs/mcp.md, "Result size"). Exit status: 0 when the client goes away, 2 for a bad flag, 1
// when serving fails.
package main

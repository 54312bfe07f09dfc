// Package daemon is the client side of signalttyd shared by the signaltty
// CLI and the signaltty-mcp server: dialing an address (local, or remote
// through ssh), starting a daemon when none answers (docs/systemd.md,
// "Autostart"), making calls, and turning failures into the CLI's errors
// (docs/errors.md, "In the CLI").
package daemon

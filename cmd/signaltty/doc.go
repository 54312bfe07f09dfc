// Command signaltty is the command line client of signalttyd. Most
// subcommands make one varlink call (dev.signaltty.Server, .Mux, .Run,
// .Events) and print its reply for humans, or with --json exactly the reply
// object (or {"error":{"code","message","data"}}) on one line; a few work
// on this machine instead (agent setup, skill, hook), and attach --tab and
// mcp replace themselves with signaltty-attach and signaltty-mcp. The exit
// status of a failure is its error class's: invalid_params 2, not_found 3,
// denied 4, conflict 5, unavailable 6, timeout 7, cancelled 8,
// unsupported 10, other 1 (docs/errors.md, "In the CLI").
package main

// Command signaltty is the command line client of signalttyd. Each
// subcommand makes one varlink call (dev.signaltty.Server, .Mux, .Events)
// and prints its reply for humans, or with --json exactly the reply object
// (or {"error":{"code","message","data"}}) on one line. The exit status of a
// failure is its error class's: invalid_params 2, not_found 3, denied 4,
// conflict 5, unavailable 6, timeout 7, cancelled 8, unsupported 10, other 1.
package main

import (
	"os"
)

func main() {
	os.Exit(execute(os.Args[1:]))
}

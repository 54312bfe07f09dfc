//go:build signaltty_testhooks

package main

import (
	"net"
	"net/http"
	_ "net/http/pprof" // the profiles, on the socket below only
	"os"
	"path/filepath"
	"strconv"
)

// Test builds serve Go's profiles (net/http/pprof: /debug/pprof/profile,
// /debug/pprof/trace, …) on the unix socket <pid>.sock in the directory
// $SIGNALTTY_PPROF names, for profiling a daemon under a benchmark's load
// (tests/bench).
func init() {
	dir := os.Getenv("SIGNALTTY_PPROF")
	if dir == "" {
		return
	}
	path := filepath.Join(dir, strconv.Itoa(os.Getpid())+".sock")
	os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return
	}
	go http.Serve(ln, nil)
}

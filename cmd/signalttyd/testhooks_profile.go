//go:build signaltty_testhooks

package main

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"time"
)

// profileHook serves "profile-<n>" files in the test hooks directory: for
// each, after a garbage collection, it writes the live heap profile to
// "heap-<n>.pprof" and the number of goroutines to "goroutines-<n>", then
// removes "profile-<n>" (the load test reads both; go tool pprof reads the
// heap). Only test builds have it.
func profileHook(dir string) {
	for {
		matches, _ := filepath.Glob(filepath.Join(dir, "profile-*"))
		for _, m := range matches {
			n := filepath.Base(m)[len("profile-"):]
			runtime.GC()
			if f, err := os.Create(filepath.Join(dir, "heap-"+n+".pprof")); err == nil {
				pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
			os.WriteFile(filepath.Join(dir, "goroutines-"+n+".tmp"), []byte(strconv.Itoa(runtime.NumGoroutine())), 0o600)
			os.Rename(filepath.Join(dir, "goroutines-"+n+".tmp"), filepath.Join(dir, "goroutines-"+n))
			os.Remove(m)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

//go:build signaltty_testhooks

package main

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
)

// profileHook serves "profile-<n>" files in the test hooks directory: for
// each, after a garbage collection, it writes the live heap profile to
// "heap-<n>.pprof" and the number of goroutines to "goroutines-<n>", then
// removes "profile-<n>" (the load test reads both; go tool pprof reads the
// heap). For each "cpuprofile-<n>" it profiles the CPU for the seconds the
// file holds (default 10) into "cpu-<n>.pprof", then removes it. Only test
// builds have it.
func profileHook(dir string) {
	for {
		cpus, _ := filepath.Glob(filepath.Join(dir, "cpuprofile-*"))
		for _, m := range cpus {
			n := filepath.Base(m)[len("cpuprofile-"):]
			secs := 10
			if b, err := os.ReadFile(m); err == nil {
				if v, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && v > 0 {
					secs = v
				}
			}
			os.Remove(m)
			go func() {
				f, err := os.Create(filepath.Join(dir, "cpu-"+n+".pprof.tmp"))
				if err != nil {
					return
				}
				if pprof.StartCPUProfile(f) == nil {
					time.Sleep(time.Duration(secs) * time.Second)
					pprof.StopCPUProfile()
				}
				f.Close()
				os.Rename(filepath.Join(dir, "cpu-"+n+".pprof.tmp"), filepath.Join(dir, "cpu-"+n+".pprof"))
			}()
		}
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

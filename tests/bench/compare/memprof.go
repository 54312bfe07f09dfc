package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
)

// memProfDir is -memprof: where the memory workloads save the daemon's heap
// profiles and memory statistics ("" for none).
var memProfDir string

// memProfEnv is what the daemon is given for -memprof: its profile socket
// in that directory (served by test builds only, docs/scale.md).
func memProfEnv() []string {
	if memProfDir == "" {
		return nil
	}
	return []string{"SIGNALTTY_PPROF=" + memProfDir}
}

// memProfile saves, for -memprof, the daemon's heap profile and statistics
// as <workload>-<pid>-<what>: heap.txt (runtime.MemStats at the end:
// HeapAlloc, HeapInuse, HeapReleased, …), heap.prof (as of the last
// collection), goroutine.txt, and heap-gc.txt, heap-gc.prof after a
// collection (the live heap).
func memProfile(d *daemon, name string) {
	memProfileOf(d, name, []profQuery{
		{"/debug/pprof/heap?debug=1", "heap.txt"},
		{"/debug/pprof/heap", "heap.prof"},
		{"/debug/pprof/goroutine?debug=1", "goroutine.txt"},
		{"/debug/pprof/heap?gc=1&debug=1", "heap-gc.txt"},
		{"/debug/pprof/heap?gc=1", "heap-gc.prof"},
	})
}

// memHeapProfile saves, for -memprof, heap.txt and heap.prof only: no
// collection is forced, so the figures measured after it are not moved.
func memHeapProfile(d *daemon, name string) {
	memProfileOf(d, name, []profQuery{
		{"/debug/pprof/heap?debug=1", "heap.txt"},
		{"/debug/pprof/heap", "heap.prof"},
	})
}

type profQuery struct{ path, file string }

func memProfileOf(d *daemon, name string, qs []profQuery) {
	if memProfDir == "" {
		return
	}
	sock := filepath.Join(memProfDir, strconv.Itoa(d.pid())+".sock")
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	for _, q := range qs {
		if err := saveURL(c, q.path, filepath.Join(memProfDir, fmt.Sprintf("%s-%d-%s", name, d.pid(), q.file))); err != nil {
			fmt.Fprintf(os.Stderr, "memprof: %v (a daemon built with -tags signaltty_testhooks serves profiles)\n", err)
			return
		}
	}
}

func saveURL(c *http.Client, path, file string) error {
	r, err := c.Get("http://x" + path)
	if err != nil {
		return err
	}
	defer r.Body.Close()
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

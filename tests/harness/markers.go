package harness

// Marker files (a command appends a line each time it runs, so a test
// counts how often it ran) and the seam files of signalttyd built with
// the test hooks (StartHooks, cmd/signalttyd/testhooks.go): while
// barrier-PHASE-KEY exists (PHASE before or after), a start with that key
// waits at that phase after creating reached-PHASE-KEY; while hold-PID
// exists, the reap of that exited process waits.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Mark is the shell command appending a line to marker file name in dir.
func Mark(dir, name string) string {
	return `echo >> '` + filepath.Join(dir, name) + `'`
}

// MarkCount is how many lines marker file name in dir holds (0 when absent).
func MarkCount(dir, name string) int {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "\n")
}

// WaitMarker polls until marker file name in dir was written.
func WaitMarker(t testing.TB, dir, name string) {
	t.Helper()
	Eventually(t, PollTimeout, "marker "+name+" written", func() (bool, string) {
		return MarkCount(dir, name) > 0, ""
	})
}

// Touch creates an empty file (a seam file, a gate a command waits on).
func Touch(t testing.TB, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

// RemoveFile removes path; a missing file is no error.
func RemoveFile(t testing.TB, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

// Exists reports whether path exists.
func Exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// WaitFile polls until path exists.
func WaitFile(t testing.TB, path string) {
	t.Helper()
	Eventually(t, PollTimeout, path+" exists", func() (bool, string) {
		return Exists(path), ""
	})
}

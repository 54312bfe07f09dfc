package harness

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Goroutines asks a daemon started with StartHooks for its goroutine count
// (cmd/signalttyd/testhooks_profile.go), which also writes its live heap
// profile to hooks/heap-<name>.pprof. It waits for the answer up to
// 30×PollTimeout: a daemon under load (a thousand panes printing, on a
// busy machine) took minutes to collect its heap.
func Goroutines(t testing.TB, hooks, name string) int {
	t.Helper()
	out := filepath.Join(hooks, "goroutines-"+name)
	os.Remove(out)
	if err := os.WriteFile(filepath.Join(hooks, "profile-"+name), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	Eventually(t, 30*PollTimeout, out+" written", func() (bool, string) {
		_, err := os.Stat(out)
		return err == nil, ""
	})
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("harness: goroutine count %q: %v", b, err)
	}
	return n
}

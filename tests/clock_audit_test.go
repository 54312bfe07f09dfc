package tests

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// wallClockPattern finds times that carry no monotonic reading: times made
// from numbers or text, wall readings as numbers, and readings stripped of
// their monotonic part. A deadline built from one of these, or compared with
// one, moves when the system clock is set (docs/limits.md, "Clock jumps").
var wallClockPattern = regexp.MustCompile(`time\.Unix(Milli|Micro)?\(|\.Unix(Milli|Micro|Nano)?\(\)|\.Round\(0\)|time\.Parse(InLocation)?\(`)

// wallClockAllowed are the uses the audit found and why each is no deadline.
var wallClockAllowed = map[string]string{
	"pty/spawn.go: time.Unix(1, 0)":            "a deadline in the past: wakes a blocked read or write at once",
	"varlink/readloop.go: time.Unix(1, 0)":     "a deadline in the past: wakes a blocked read or write at once",
	"varlink/serve.go: time.Unix(1, 0)":        "a deadline in the past: wakes a blocked read at once",
	"service/runs/ids.go: .UnixMicro()":        "the first run id after a damaged id file: a number above any id a lease reached, no deadline",
	"snapshot/rotate.go: time.Parse(":          "the time in a kept snapshot's file name: spacing of kept copies, which treats a clock set back as due",
	"cmd/signalttyd/statelock.go: time.Parse(": "a previous daemon's start and last-seen times in the lock record: reported to the user, no deadline",
}

// The daemon's deadlines (run deadlines, Wait timeouts, grace periods, the
// request timeout, save debounce, backoff) are built from time.Now() and
// durations, which Go measures on the monotonic clock, so setting the
// system clock moves none of them. This test keeps it so: every time without
// a monotonic reading in the daemon's code is listed with its reason.
func TestDeadlinesUseTheMonotonicClock(t *testing.T) {
	t.Parallel()
	root := ".."
	for _, dir := range []string{"service", "pty", "term", "snapshot", "logind", "varlink", "cmd/signalttyd", "journal", "cgroup", "gitws"} {
		filepath.WalkDir(filepath.Join(root, dir), func(path string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			rel, _ := filepath.Rel(root, path)
			if strings.HasPrefix(rel, "varlink/devsignaltty") || strings.HasPrefix(rel, "varlink/mcpschema") {
				return nil // generated bindings
			}
			f, err := os.Open(path)
			if err != nil {
				t.Error(err)
				return nil
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			for n := 1; sc.Scan(); n++ {
				line := sc.Text()
				if strings.HasPrefix(strings.TrimSpace(line), "//") {
					continue
				}
				for _, m := range wallClockPattern.FindAllString(line, -1) {
					key := rel + ": " + m
					if m == "time.Unix(" && strings.Contains(line, "time.Unix(1, 0)") {
						key = rel + ": time.Unix(1, 0)"
					}
					if _, ok := wallClockAllowed[key]; !ok {
						t.Errorf("%s:%d: %s: a time without a monotonic reading; a deadline must come from time.Now() and a duration (or add it to wallClockAllowed with the reason)\n\t%s", rel, n, m, strings.TrimSpace(line))
					}
				}
			}
			return nil
		})
	}
}

package pty

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/signaltty/signaltty/term"
	"golang.org/x/sys/unix"
)

// The mark is the child's hard RLIMIT_RTTIME from its first instruction
// on, what it starts inherits it, and the child is not left traced.
func TestMarkedChildAndItsChildren(t *testing.T) {
	var l unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_RTTIME, &l); err != nil || l.Max < 1000 {
		t.Skipf("RLIMIT_RTTIME hard limit %d: no room for a mark", l.Max)
	}
	mark := l.Max - 7
	p, err := startTerm(Config{Argv: []string{"sh", "-c", `grep "^Max realtime timeout" /proc/$$/limits; (grep "^Max realtime timeout" /proc/self/limits); grep TracerPid /proc/$$/status`},
		Dir: "/", Env: testEnv, Cols: 200, Rows: 24, Mark: mark}, term.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	waitDone(t, p, 10*time.Second)
	want := strconv.FormatUint(mark, 10)
	n := 0
	for _, line := range strings.Split(history(t, p), "\n") {
		if rest, ok := strings.CutPrefix(line, "Max realtime timeout"); ok {
			n++
			if f := strings.Fields(rest); len(f) < 2 || f[1] != want {
				t.Errorf("limits line %q, want hard limit %s", line, want)
			}
		}
	}
	if !regexp.MustCompile(`(?m)^TracerPid:\s+0\s*$`).MatchString(history(t, p)) {
		t.Errorf("the child is still traced:\n%s", history(t, p))
	}
	if n != 2 {
		t.Fatalf("%d limits lines, want 2:\n%s", n, history(t, p))
	}
}

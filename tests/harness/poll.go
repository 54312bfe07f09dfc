package harness

import (
	"testing"
	"time"
)

// wait is the back-off between two polls of a condition (never used to let
// something happen: every caller re-checks a condition with a deadline).
func wait(d time.Duration) { time.Sleep(d) }

// Eventually polls cond until it returns true, with a short back-off, and
// fails the test with what and cond's last detail when timeout passes first.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() (ok bool, detail string)) {
	t.Helper()
	if !Poll(timeout, cond) {
		_, detail := cond()
		t.Fatalf("timed out after %v waiting until %s; last state:\n%s", timeout, what, indent(detail))
	}
}

// Poll polls cond until it returns true (true) or timeout passes (false).
func Poll(timeout time.Duration, cond func() (bool, string)) bool {
	deadline := time.Now().Add(timeout)
	for delay := 5 * time.Millisecond; ; delay = min(delay*2, 100*time.Millisecond) {
		if ok, _ := cond(); ok {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		wait(delay)
	}
}

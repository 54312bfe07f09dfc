package pty

import (
	"os"
	"os/signal"
	"syscall"
	"testing"
)

// TestMain gives the panes the tests start the default SIGHUP action,
// which the hangup tests (TestTerminateByHangup, TestConcurrentTerminateJoins)
// rely on. A program started with SIGHUP ignored (under nohup, as CI
// systems and `ssh host cmd &` start it) passes that on through exec, and
// a pane's sleep would then outlive its hangup. With a handler installed
// here, exec resets it to the default in every child.
func TestMain(m *testing.M) {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
	os.Exit(m.Run())
}

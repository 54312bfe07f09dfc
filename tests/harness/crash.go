package harness

import (
	"syscall"
	"testing"
)

// Crash kills the daemon with SIGKILL (nothing saved at exit, its socket
// file left behind) and waits until it is gone. Its panes' leaders get
// SIGKILL from the kernel (their parent-death signal) and their terminals
// hang up; whatever of theirs is still running at cleanup is killed then. Start a new daemon on d.Dir to restart it.
func (d *Daemon) Crash(t testing.TB) {
	t.Helper()
	kids := Children(d.Pid())
	d.mu.Lock()
	d.crashed = true
	d.mu.Unlock()
	if err := d.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("SIGKILL to signalttyd: %v", err)
	}
	d.WaitExit(t, StopTimeout)
	t.Cleanup(func() {
		for _, p := range kids {
			syscall.Kill(-p.Pid, syscall.SIGKILL)
			syscall.Kill(p.Pid, syscall.SIGKILL)
		}
	})
}

package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Test seams of the run feature exist only in signalttyd built with
// -tags signaltty_testhooks (cmd/signalttyd/testhooks.go). HooksBin builds
// that variant once per test binary; StartHooks runs it with
// SIGNALTTY_TEST_HOOKS pointing at a fresh directory for the seam files.

var (
	hooksOnce sync.Once
	hooksPath string
	hooksErr  error
)

// HooksBin returns the path of signalttyd built with the signaltty_testhooks
// tag (and -race with SIGNALTTY_TEST_RACE=1), building it on first use next
// to the normal programs (removed with them). A build failure fails the test.
func HooksBin(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(BinDir(t), "testhooks")
	hooksOnce.Do(func() {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			hooksErr = err
			return
		}
		goBin, err := exec.LookPath("go")
		if err != nil {
			goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		args := []string{"build", "-tags", "signaltty_testhooks", "-o", dir + string(os.PathSeparator)}
		env := os.Environ()
		if os.Getenv("SIGNALTTY_TEST_RACE") == "1" {
			args = append(args, "-race")
			env = append(env, "CGO_ENABLED=1")
		}
		args = append(args, module+"/cmd/signalttyd")
		cmd := exec.Command(goBin, args...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			hooksErr = fmt.Errorf("%s %s: %v\n%s", goBin, strings.Join(args, " "), err, out)
			return
		}
		hooksPath = filepath.Join(dir, "signalttyd")
	})
	if hooksErr != nil {
		t.Fatalf("harness: building signalttyd with -tags signaltty_testhooks failed:\n%v", hooksErr)
	}
	return hooksPath
}

// StartHooks starts a signalttyd built with the test seams, with
// SIGNALTTY_TEST_HOOKS set to a new directory, which it returns. Everything
// else is as Start (cleanup included).
func StartHooks(t testing.TB, opts ...Options) (*Daemon, string) {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	hooks := TempDir(t)
	o.Env = append(append([]string{}, o.Env...), "SIGNALTTY_TEST_HOOKS="+hooks)
	return StartWithBinary(t, HooksBin(t), o), hooks
}

// StartWithBinary is Start with another signalttyd binary.
func StartWithBinary(t testing.TB, bin string, opts ...Options) *Daemon {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	d := prepare(t, o)
	cmd := exec.Command(bin)
	cmd.Env = d.DaemonEnv()
	cmd.Dir = d.Home
	cmd.Stdout = d.stderr
	cmd.Stderr = d.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("harness: starting %s: %v", bin, err)
	}
	d.cmd = cmd
	d.done = make(chan struct{})
	go func() {
		d.waitErr = cmd.Wait()
		d.state = cmd.ProcessState
		close(d.done)
	}()
	t.Cleanup(func() { d.cleanup(t) })
	d.WaitReady(t)
	return d
}

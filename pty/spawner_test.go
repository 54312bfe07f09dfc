package pty

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/signaltty/signaltty/term"
	"golang.org/x/sys/unix"
)

// A pane started from a goroutine whose thread then ends keeps running:
// the parent-death signal follows the forking thread, and the fork did not
// run on the caller's thread.
func TestLeaderOutlivesTheThreadThatStartedIt(t *testing.T) {
	type started struct {
		p   *Process
		tid int
		err error
	}
	ch := make(chan started, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		p, err := startTerm(Config{Argv: []string{"sleep", "600"}, Dir: "/", Env: testEnv, Cols: 80, Rows: 24}, term.Config{})
		ch <- started{p, unix.Gettid(), err}
	}()
	s := <-ch
	if s.err != nil {
		t.Fatal(s.err)
	}
	t.Cleanup(s.p.Close)
	task := fmt.Sprintf("/proc/self/task/%d", s.tid)
	poll(t, 10*time.Second, "the starting goroutine's thread to end", func() bool {
		_, err := os.Stat(task)
		return os.IsNotExist(err)
	})
	// The kernel sends the parent-death signal at the thread's exit, which
	// is over once its task is gone; the leader got nothing.
	if why := dying(s.p.Pid()); why != "" {
		t.Fatalf("the leader was killed when the starting thread ended: %s", why)
	}
	select {
	case <-s.p.Done():
		st, _ := s.p.Status()
		t.Fatalf("the leader exited after the starting thread ended: %+v", st)
	default:
	}
}

// When the process that started a pane dies by SIGKILL, the kernel kills
// the pane's leader (the parent-death signal), though a killed process
// closes nothing gracefully and the leader ignores SIGHUP.
func TestLeaderDiesWithItsStarter(t *testing.T) {
	if os.Getenv("PTY_TEST_STARTER") == "1" {
		return // the helper run below
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLeaderDiesWithItsStarterHelper$")
	cmd.Env = append(os.Environ(), "PTY_TEST_STARTER=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	f := strings.Fields(string(buf[:n]))
	if len(f) < 2 || f[0] != "leader" {
		cmd.Process.Kill()
		t.Fatalf("helper said %q", buf[:n])
	}
	leader, _ := strconv.Atoi(f[1])
	t.Cleanup(func() { syscall.Kill(-leader, syscall.SIGKILL) }) // its group: the sleep too
	poll(t, 10*time.Second, "the leader to ignore SIGHUP and start its sleep", func() bool {
		return sigIgnored(leader, syscall.SIGHUP) && len(childrenOf(leader)) > 0
	})
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	poll(t, 10*time.Second, "the leader to die with its starter", func() bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", leader))
		return err != nil || strings.Contains(string(b), ") Z ")
	})
}

// TestLeaderDiesWithItsStarterHelper is the starter of
// TestLeaderDiesWithItsStarter: it starts a pane whose leader ignores
// SIGHUP, from a thread that ends, prints the leader's pid and waits to be
// killed.
func TestLeaderDiesWithItsStarterHelper(t *testing.T) {
	if os.Getenv("PTY_TEST_STARTER") != "1" {
		t.Skip("run by TestLeaderDiesWithItsStarter")
	}
	ch := make(chan *Process, 1)
	go func() {
		runtime.LockOSThread()
		p, err := startTerm(Config{Argv: []string{"sh", "-c", "trap '' HUP; sleep 600; echo never"}, Dir: "/", Env: testEnv, Cols: 80, Rows: 24}, term.Config{})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		ch <- p
	}()
	p := <-ch
	fmt.Printf("leader %d\n", p.Pid())
	<-p.Done()
}

// dying says why pid is dead or about to die ("" when it is not): gone, a
// zombie, or SIGKILL pending.
func dying(pid int) string {
	st, err := procStatus(pid)
	if err != nil {
		return "gone"
	}
	if s := st["State"]; strings.HasPrefix(s, "Z") || strings.HasPrefix(s, "X") {
		return "state " + s
	}
	for _, k := range []string{"SigPnd", "ShdPnd"} {
		if hasSignal(st[k], syscall.SIGKILL) {
			return "SIGKILL pending"
		}
	}
	return ""
}

// sigIgnored reports whether pid ignores sig (SigIgn of /proc/PID/status).
func sigIgnored(pid int, sig syscall.Signal) bool {
	st, err := procStatus(pid)
	return err == nil && hasSignal(st["SigIgn"], sig)
}

// hasSignal reports whether the hexadecimal signal mask holds sig.
func hasSignal(mask string, sig syscall.Signal) bool {
	m, err := strconv.ParseUint(mask, 16, 64)
	return err == nil && m&(1<<(uint(sig)-1)) != 0
}

// procStatus is /proc/PID/status as key → value.
func procStatus(pid int) (map[string]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			out[k] = strings.TrimSpace(v)
		}
	}
	return out, nil
}

// childrenOf lists pid's children (/proc/PID/task/PID/children).
func childrenOf(pid int) []string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	return strings.Fields(string(b))
}

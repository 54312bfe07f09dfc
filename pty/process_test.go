package pty

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/signaltty/signaltty/term"
)

var testEnv = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/", "TERM=xterm-256color", "LC_ALL=C"}

// startIn starts argv in dir on an 80×24 pane that is closed when the test ends.
func startIn(t testing.TB, dir string, argv ...string) *Process {
	t.Helper()
	p, err := startTerm(Config{Argv: argv, Dir: dir, Env: testEnv, Cols: 80, Rows: 24}, term.Config{})
	if err != nil {
		t.Fatalf("Start(%q): %v", argv, err)
	}
	t.Cleanup(p.Close)
	return p
}

func start(t testing.TB, argv ...string) *Process { t.Helper(); return startIn(t, "/", argv...) }

// waitDone waits for the pane's exit and returns its status.
func waitDone(t testing.TB, p *Process, d time.Duration) ExitStatus {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(d):
		t.Fatalf("pane did not exit within %v; screen:\n%s", d, screen(t, p))
	}
	st, ok := p.Status()
	if !ok {
		t.Fatal("Status not ok after Done")
	}
	return st
}

// poll checks cond every few milliseconds until it holds or d passed.
func poll(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		<-tick.C
	}
}

// screen returns the visible screen, rows trimmed, joined with newlines.
func screen(t testing.TB, p *Process) string {
	t.Helper()
	c, err := terminal(p).Capture(term.CaptureRequest{})
	if err != nil {
		t.Fatalf("Capture: %v", err)
	}
	lines := make([]string, len(c.Lines))
	for i, l := range c.Lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// history returns every row kept (history and screen), trimmed, joined with newlines.
func history(t testing.TB, p *Process) string {
	t.Helper()
	c, err := terminal(p).Capture(term.CaptureRequest{})
	if err != nil {
		t.Fatalf("Capture: %v", err)
	}
	if c, err = terminal(p).Capture(term.CaptureRequest{Start: &c.Oldest, End: &c.End}); err != nil {
		t.Fatalf("Capture: %v", err)
	}
	lines := make([]string, len(c.Lines))
	for i, l := range c.Lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

func waitScreen(t testing.TB, p *Process, substr string) {
	t.Helper()
	poll(t, 5*time.Second, "screen to show "+strconv.Quote(substr), func() bool { return strings.Contains(screen(t, p), substr) })
}

// fdCount counts the test process's open descriptors.
func fdCount(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents) - 1 // the ReadDir's own descriptor
}

// children lists the test process's child processes (zombies included) as "pid state".
func children(t testing.TB) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	self := strconv.Itoa(os.Getpid())
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // state ppid ...
		if len(f) > 1 && f[1] == self {
			out = append(out, e.Name()+" "+f[0])
		}
	}
	return out
}

// warmUp runs one pane so that lazily created runtime descriptors (netpoller) exist.
func warmUp(t testing.TB) {
	t.Helper()
	p := start(t, "true")
	waitDone(t, p, 5*time.Second)
	p.Close()
}

// killPidFile kills the process whose pid a child wrote into file, if any.
func killPidFile(file string) {
	b, err := os.ReadFile(file)
	if err != nil {
		return
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 1 {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

func TestEchoViaSend(t *testing.T) {
	p := start(t, "cat")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	msg := []byte("hello-pane\r")
	if n, err := p.Send(ctx, msg); err != nil || n != len(msg) {
		t.Fatalf("Send = %d, %v", n, err)
	}
	// The tty echoes the line, then cat prints it again.
	poll(t, 5*time.Second, "echo and cat output", func() bool { return strings.Count(screen(t, p), "hello-pane") == 2 })
	if p.Pid() <= 0 || p.Terminating() {
		t.Fatalf("Pid %d Terminating %v", p.Pid(), p.Terminating())
	}
	if _, ok := p.Status(); ok {
		t.Fatal("Status ok on a live pane")
	}
}

func TestLargeOutputNothingLost(t *testing.T) {
	// About 1 MB of output, then a last line, then exit: the last line must be
	// on the screen after Done.
	for name, script := range map[string]string{
		"scrolling":   `seq 1 150000; printf 'last-line-%s' done`,
		"overwriting": `head -c 1000000 /dev/zero | tr '\0' x | fold -w 79 | tr '\n' '\r'; printf '\n150000\nlast-line-%s' done`,
	} {
		t.Run(name, func(t *testing.T) {
			p := start(t, "sh", "-c", script)
			st := waitDone(t, p, 60*time.Second)
			if st.Code == nil || *st.Code != 0 {
				t.Fatalf("status %+v", st)
			}
			if s := strings.TrimRight(screen(t, p), "\n"); !strings.HasSuffix(s, "\n150000\nlast-line-done") {
				t.Fatalf("output lost; screen:\n%s", s)
			}
		})
	}
}

func TestExitCode(t *testing.T) {
	p := start(t, "sh", "-c", "exit 7")
	st := waitDone(t, p, 5*time.Second)
	if st.Code == nil || *st.Code != 7 || st.Signal != "" || st.At.IsZero() {
		t.Fatalf("status %+v", st)
	}
}

func TestKilledBySignal(t *testing.T) {
	p := start(t, "sleep", "100")
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	st := waitDone(t, p, 5*time.Second)
	if st.Code != nil || st.Signal != "SIGKILL" {
		t.Fatalf("status %+v", st)
	}
	ctx := context.Background()
	if err := p.Signal(syscall.SIGTERM); err != ErrExited {
		t.Fatalf("Signal after exit: %v", err)
	}
	if _, err := p.Send(ctx, []byte("x")); err != ErrExited {
		t.Fatalf("Send after exit: %v", err)
	}
	if err := p.Resize(100, 30); err != ErrExited {
		t.Fatalf("Resize after exit: %v", err)
	}
	if err := p.Terminate(ctx, 0, 0, 0); err != nil {
		t.Fatalf("Terminate after exit: %v", err)
	}
	if p.Terminating() {
		t.Fatal("Terminate of an exited pane marked it terminating")
	}
}

func TestKilledBySegv(t *testing.T) {
	p := start(t, "sh", "-c", "kill -SEGV $$")
	st := waitDone(t, p, 5*time.Second)
	if st.Code != nil || st.Signal != "SIGSEGV" {
		t.Fatalf("status %+v", st)
	}
}

func TestResize(t *testing.T) {
	// wait returns early for a trapped signal; the trap prints the new size.
	p := start(t, "sh", "-c", `trap 'stty size' WINCH; echo ready; sleep 100 & while :; do wait; done`)
	waitScreen(t, p, "ready")
	if err := p.Resize(100, 30); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, p, "30 100")
	if c, r := terminal(p).Size(); c != 100 || r != 30 {
		t.Fatalf("Terminal size %dx%d", c, r)
	}
	if !panics(func() { p.Resize(0, 30) }) {
		t.Fatal("Resize(0, 30) did not panic")
	}
}

// panics reports whether f panics.
func panics(f func()) (did bool) {
	defer func() { did = recover() != nil }()
	f()
	return false
}

func TestSpawnErrors(t *testing.T) {
	warmUp(t)
	dir := t.TempDir()
	noexec := filepath.Join(dir, "noexec")
	if err := os.WriteFile(noexec, []byte("#!/bin/sh\necho hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	noshebang := filepath.Join(dir, "noshebang")
	if err := os.WriteFile(noshebang, []byte("echo hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	pathEnv := append([]string{"PATH=" + dir}, testEnv[1:]...)
	for _, tc := range []struct {
		name, reason string
		argv         []string
		env          []string
		dir          string
	}{
		{"missing in PATH", "not_found", []string{"no-such-program-xyz"}, testEnv, "/"},
		{"missing path", "not_found", []string{"/no/such/program"}, testEnv, "/"},
		{"not executable", "permission", []string{noexec}, testEnv, "/"},
		{"not executable in PATH", "permission", []string{"noexec"}, pathEnv, "/"},
		{"script without #!", "exec_format", []string{noshebang}, testEnv, "/"},
		{"missing cwd", "cwd", []string{"true"}, testEnv, filepath.Join(dir, "nodir")},
		{"cwd is a file", "cwd", []string{"true"}, testEnv, noexec},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fds := fdCount(t)
			p, err := startTerm(Config{Argv: tc.argv, Env: tc.env, Dir: tc.dir, Cols: 80, Rows: 24}, term.Config{})
			var se *SpawnError
			if !errors.As(err, &se) || se.Reason != tc.reason {
				if p != nil {
					p.Close()
				}
				t.Fatalf("Start = %v (%T), want SpawnError %s", err, err, tc.reason)
			}
			if n := fdCount(t); n != fds {
				t.Fatalf("fd count %d, was %d", n, fds)
			}
			if c := children(t); len(c) != 0 {
				t.Fatalf("children left: %v", c)
			}
		})
	}
}

// An invalid Config is a programming error of the caller: Start panics.
func TestInvalidConfigPanics(t *testing.T) {
	ok := Config{Argv: []string{"true"}, Env: testEnv, Dir: "/", Cols: 80, Rows: 24}
	for name, mod := range map[string]func(*Config){
		"empty argv":  func(c *Config) { c.Argv = nil },
		"empty argv0": func(c *Config) { c.Argv = []string{""} },
		"NUL in argv": func(c *Config) { c.Argv = []string{"true", "a\x00b"} },
		"NUL in env":  func(c *Config) { c.Env = []string{"A=\x00"} },
		"NUL in dir":  func(c *Config) { c.Dir = "/\x00" },
		"zero cols":   func(c *Config) { c.Cols = 0 },
		"rows > 1000": func(c *Config) { c.Rows = 1001 },
	} {
		cfg := ok
		mod(&cfg)
		if !panics(func() {
			if p, err := startTerm(cfg, term.Config{}); err == nil {
				p.Close()
			}
		}) {
			t.Errorf("%s: Start did not panic", name)
		}
	}
	if !panics(func() {
		if p, err := Start(ok, nil); err == nil {
			p.Close()
		}
	}) {
		t.Error("nil Output: Start did not panic")
	}
}

func TestOnlyStdioInherited(t *testing.T) {
	p := start(t, "sleep", "100")
	// A descriptor the daemon leaked stays open in the child for good; one
	// the program opens itself while starting (sleep reads its locale files)
	// is closed again moments later. So the set must settle at 0,1,2.
	dir := "/proc/" + strconv.Itoa(p.Pid()) + "/fd"
	var names []string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		names = names[:0]
		for _, e := range ents {
			target, _ := os.Readlink(dir + "/" + e.Name())
			names = append(names, e.Name()+"->"+target)
		}
		if len(ents) == 3 && ents[0].Name() == "0" && ents[1].Name() == "1" && ents[2].Name() == "2" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("child fds after 5 s: %v", names)
		}
	}
}

func TestBackgroundHolderDoesNotDelayExit(t *testing.T) {
	dir := t.TempDir()
	quiet := filepath.Join(dir, "quiet.pid")
	chatty := filepath.Join(dir, "chatty.pid")
	t.Cleanup(func() { killPidFile(quiet); killPidFile(chatty) })

	// The leader waits until the grandchild is in its own session (else the
	// hang-up at the leader's exit would kill it), then exits.
	const wait = ` while [ ! -s %[1]s ]; do sleep 0.01; done; echo hi-there`
	for _, tc := range []struct{ name, script string }{
		// A grandchild in its own session keeps the slave open and prints nothing.
		{"quiet", `setsid sh -c 'echo $$ > quiet.pid; exec sleep 100' &` + fmt.Sprintf(wait, "quiet.pid")},
		// One that keeps printing: the drain is capped.
		{"chatty", `setsid sh -c 'echo $$ > chatty.pid; while :; do echo spam; sleep 0.01; done' &` + fmt.Sprintf(wait, "chatty.pid")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startIn(t, dir, "sh", "-c", tc.script)
			st := waitDone(t, p, 10*time.Second)
			if d := time.Since(st.At); d > 3*time.Second {
				t.Fatalf("exit published %v after the reap", d)
			}
			if st.Code == nil || *st.Code != 0 || !st.HeldOpen {
				t.Fatalf("status %+v (HeldOpen must report the grandchild holding the PTY)", st)
			}
			if s := history(t, p); !strings.Contains(s, "hi-there") {
				t.Fatalf("output lost; rows:\n%s", s)
			}
		})
	}
}

func TestNotHeldOpen(t *testing.T) {
	p := start(t, "sh", "-c", "echo alone")
	if st := waitDone(t, p, 10*time.Second); st.HeldOpen {
		t.Fatalf("HeldOpen set for a leader that left nobody behind: %+v", st)
	}
}

func TestTerminateByHangup(t *testing.T) {
	p := start(t, "sleep", "100")
	t0 := time.Now()
	if err := p.Terminate(context.Background(), 0, 5*time.Second, time.Second); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d > 2*time.Second {
		t.Fatalf("Terminate took %v", d)
	}
	if st := waitDone(t, p, 5*time.Second); st.Signal != "SIGHUP" {
		t.Fatalf("status %+v", st)
	}
	if !p.Terminating() {
		t.Fatal("Terminating false after Terminate")
	}
}

func TestTerminateNeedsKill(t *testing.T) {
	p := start(t, "sh", "-c", `trap '' HUP; echo ready; sleep 100`)
	waitScreen(t, p, "ready")
	t0 := time.Now()
	if err := p.Terminate(context.Background(), 0, 200*time.Millisecond, time.Second); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d < 200*time.Millisecond {
		t.Fatalf("Terminate returned after %v, before the grace", d)
	}
	if st := waitDone(t, p, 5*time.Second); st.Signal != "SIGKILL" {
		t.Fatalf("status %+v", st)
	}
}

func TestTerminateTimeout(t *testing.T) {
	// A 1 ns kill-wait: the SIGKILLed leader cannot be reaped that fast.
	p := start(t, "sh", "-c", `trap '' HUP; echo ready; sleep 100`)
	waitScreen(t, p, "ready")
	err := p.Terminate(context.Background(), 0, time.Nanosecond, time.Nanosecond)
	if err == nil {
		t.Skip("the reap beat a 1 ns kill-wait")
	}
	if err != ErrTerminateTimeout {
		t.Fatalf("Terminate: %v", err)
	}
	if !p.Terminating() {
		t.Fatal("not terminating after a timeout")
	}
	// The reap still happens and is published.
	if st := waitDone(t, p, 5*time.Second); st.Signal != "SIGKILL" {
		t.Fatalf("status %+v", st)
	}
}

func TestConcurrentTerminateJoins(t *testing.T) {
	dir := t.TempDir()
	// The shell runs a trap only once a foreground command ended, and a
	// sleep that the SIGHUP reached between fork and exec (in the shell's
	// inherited handler) outlives the grace; the wait builtin returns at
	// once for a trapped signal.
	p := startIn(t, dir, "sh", "-c", `trap 'echo hup >> hups' HUP; echo ready; while :; do sleep 100 & wait; done`)
	waitScreen(t, p, "ready")

	// A caller with a short ctx gives up; the termination goes on.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := p.Terminate(ctx, 0, 500*time.Millisecond, time.Second); err != context.DeadlineExceeded {
		t.Fatalf("Terminate with short ctx: %v", err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { errs[i] = p.Terminate(context.Background(), syscall.SIGTERM, 10*time.Second, time.Second) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Terminate %d: %v", i, err)
		}
	}
	if st := waitDone(t, p, 5*time.Second); st.Signal != "SIGKILL" {
		t.Fatalf("status %+v", st)
	}
	b, err := os.ReadFile(filepath.Join(dir, "hups"))
	if err != nil || string(b) != "hup\n" {
		t.Fatalf("hups file %q, %v: want exactly one SIGHUP", b, err)
	}
}

func TestSendWhileTerminating(t *testing.T) {
	p := start(t, "sh", "-c", `trap '' HUP; echo ready; sleep 100`)
	waitScreen(t, p, "ready")
	res := make(chan error, 1)
	go func() { res <- p.Terminate(context.Background(), 0, time.Minute, time.Second) }()
	poll(t, 5*time.Second, "Terminating", p.Terminating)
	if _, err := p.Send(context.Background(), []byte("x")); err != ErrTerminating {
		t.Fatalf("Send while terminating: %v", err)
	}
	p.Close() // SIGKILL: the pending Terminate sees the reap
	select {
	case err := <-res:
		if err != nil {
			t.Fatalf("Terminate: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Terminate did not return after Close")
	}
}

func TestSendContext(t *testing.T) {
	// The child never reads: a large Send fills the input queue and blocks.
	p := start(t, "sh", "-c", `stty raw -echo; echo ready; sleep 100`)
	waitScreen(t, p, "ready")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	n, err := p.Send(ctx, make([]byte, 1<<20))
	if err != context.DeadlineExceeded || n >= 1<<20 {
		t.Fatalf("Send = %d, %v", n, err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	go func() { <-time.After(50 * time.Millisecond); cancel2() }()
	if _, err := p.Send(ctx2, make([]byte, 1<<20)); err != context.Canceled {
		t.Fatalf("Send with canceled ctx: %v", err)
	}
}

func TestConcurrentSendsNotInterleaved(t *testing.T) {
	dir := t.TempDir()
	p := startIn(t, dir, "sh", "-c", `stty raw -echo; printf READY; exec cat > out`)
	waitScreen(t, p, "READY")
	const n, size = 8, 64 << 10
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			data := bytes.Repeat([]byte{byte('a' + i)}, size)
			if w, err := p.Send(ctx, data); err != nil || w != size {
				t.Errorf("Send %d = %d, %v", i, w, err)
			}
		})
	}
	wg.Wait()
	out := filepath.Join(dir, "out")
	poll(t, 10*time.Second, "cat to write everything", func() bool {
		st, err := os.Stat(out)
		return err == nil && st.Size() >= n*size
	})
	b, err := os.ReadFile(out)
	if err != nil || len(b) != n*size {
		t.Fatalf("out: %d bytes, %v", len(b), err)
	}
	seen := map[byte]bool{}
	for off := 0; off < len(b); off += size {
		block := b[off : off+size]
		if c := block[0]; seen[c] || bytes.Count(block, block[:1]) != size {
			t.Fatalf("payloads interleaved at offset %d", off)
		}
		seen[block[0]] = true
	}
}

func TestQueryReply(t *testing.T) {
	p := start(t, "bash", "-c", `stty raw -echo; printf '\033[6n'; IFS= read -r -d R x; printf 'got:%s\r\n' "${x#?}"`)
	st := waitDone(t, p, 10*time.Second)
	if st.Code == nil || *st.Code != 0 {
		t.Fatalf("status %+v", st)
	}
	if s := screen(t, p); !regexp.MustCompile(`got:\[\d+;\d+`).MatchString(s) {
		t.Fatalf("no cursor position reply; screen:\n%s", s)
	}
}

func TestOnExitBeforeDone(t *testing.T) {
	got := make(chan ExitStatus, 1)
	p, err := startTerm(Config{Argv: []string{"sh", "-c", "exit 3"}, Env: testEnv, Cols: 80, Rows: 24,
		OnExit: func(st ExitStatus) { got <- st }}, term.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	<-p.Done()
	select {
	case st := <-got:
		if st.Code == nil || *st.Code != 3 {
			t.Fatalf("OnExit got %+v", st)
		}
	default:
		t.Fatal("Done closed before OnExit was called")
	}
}

// TestNoLeaks starts and kills 200 panes (half by Close, half by Terminate)
// and checks that no goroutine, descriptor, child or zombie is left.
func TestNoLeaks(t *testing.T) {
	warmUp(t)
	runtime.GC()
	goroutines, fds := runtime.NumGoroutine(), fdCount(t)

	const total, batch = 200, 20
	for i := 0; i < total; i += batch {
		panes := make([]*Process, batch)
		for j := range panes {
			p, err := startTerm(Config{Argv: []string{"sleep", "100"}, Env: testEnv, Dir: "/", Cols: 80, Rows: 24}, term.Config{})
			if err != nil {
				t.Fatal(err)
			}
			panes[j] = p
		}
		var wg sync.WaitGroup
		for j, p := range panes {
			wg.Go(func() {
				if j%2 == 0 {
					if err := p.Terminate(context.Background(), syscall.SIGTERM, time.Second, time.Second); err != nil {
						t.Error(err)
					}
				}
				p.Close()
			})
		}
		wg.Wait()
	}
	poll(t, 10*time.Second, "goroutines and descriptors back to baseline", func() bool {
		return runtime.NumGoroutine() <= goroutines && fdCount(t) == fds
	})
	if c := children(t); len(c) != 0 {
		t.Fatalf("children left: %v", c)
	}
}

// BenchmarkStartTrue measures Start of `true` until Done, plus Close.
func BenchmarkStartTrue(b *testing.B) {
	for b.Loop() {
		p, err := startTerm(Config{Argv: []string{"true"}, Env: testEnv, Dir: "/", Cols: 80, Rows: 24}, term.Config{})
		if err != nil {
			b.Fatal(err)
		}
		<-p.Done()
		p.Close()
	}
}

// BenchmarkPaneCat measures the whole output path of a pane: `cat` of 4 MB
// of seq lines through a real PTY (reader, backlog, emulation, row store)
// until the pane is done, on 80×24 and 200×50.
func BenchmarkPaneCat(b *testing.B) {
	var data []byte
	for i := 1; len(data) < 4<<20; i++ {
		data = strconv.AppendInt(data, int64(i), 10)
		data = append(data, '\n')
	}
	file := filepath.Join(b.TempDir(), "seq")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		b.Fatal(err)
	}
	for _, sz := range [][2]int{{80, 24}, {200, 50}} {
		b.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				p, err := startTerm(Config{Argv: []string{"cat", file}, Env: testEnv, Dir: "/", Cols: sz[0], Rows: sz[1]}, term.Config{})
				if err != nil {
					b.Fatal(err)
				}
				<-p.Done()
				p.Close()
			}
		})
	}
}

// A pane's foreground process group is its leader's until a job-control
// shell runs a program in the foreground; 0 once reaped.
func TestForegroundGroup(t *testing.T) {
	p := start(t, "sleep", "100")
	if fg := p.ForegroundGroup(); fg != p.Pid() {
		t.Fatalf("foreground group %d, want the leader's %d", fg, p.Pid())
	}
	p.Close()
	if fg := p.ForegroundGroup(); fg != 0 {
		t.Fatalf("foreground group %d after the reap, want 0", fg)
	}
}

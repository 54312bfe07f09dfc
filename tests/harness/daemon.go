package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	vl "github.com/varlink/go/varlink"
)

// Deadlines. The machine running the suite may be small and busy (two
// cores, a dozen tests at once, daemons built with -race): these are upper
// bounds that only keep a hung test from holding the run, never sleeps,
// and a condition that holds ends the wait at once.
const (
	ReadyTimeout = 60 * time.Second // daemon start until it answers
	StopTimeout  = 60 * time.Second // SIGTERM until exit (panes get 2 s grace)
	PollTimeout  = 30 * time.Second // default for "wait until X"
	CallTimeout  = 60 * time.Second // one CLI or varlinkctl run
)

// Options configure a daemon.
type Options struct {
	// Env is added to the daemon's environment (after the harness's own
	// variables, so it can override them).
	Env []string
	// Dir is the daemon's private directory (runtime, state, home); a new
	// temporary one when empty. Two daemons given the same Dir use the same socket.
	Dir string
	// WithoutRace runs a signalttyd, and has the CLI calls made through
	// this Daemon run a signaltty, built without the race detector, even
	// with SIGNALTTY_TEST_RACE=1: for tests of the daemon's resident size
	// (the detector's shadow memory is never handed back), of volumes and
	// of loops of hundreds of starts that the detector makes take minutes
	// on a loaded machine.
	WithoutRace bool
}

// Daemon is one running signalttyd with a private runtime directory,
// state directory, home directory and socket.
type Daemon struct {
	Dir     string // private root: run/, state/, home/
	Socket  string // socket path
	Address string // "unix:" + Socket
	Home    string

	bin     string // the signalttyd it runs
	cli     string // the signaltty its CLI calls run (CLIProgram)
	cmd     *exec.Cmd
	stderr  *syncBuffer
	done    chan struct{} // closed when the process was waited for
	state   *os.ProcessState
	waitErr error

	mu       sync.Mutex
	stopped  bool // Stop (or an explicit wait) already checked the exit
	crashed  bool // Crash killed it: its socket file stays behind
	log      []string
	extraEnv []string
}

// Start starts a daemon, waits until it answers on its socket and registers
// its shutdown with t.Cleanup: SIGTERM, then the test fails unless it exits 0
// and removes its socket. On failure its stderr and the harness's call log
// go to the test log.
func Start(t testing.TB, opts ...Options) *Daemon {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	d := prepare(t, o)
	d.launch(t)
	d.WaitReady(t)
	return d
}

// prepare makes the daemon's directories and environment without starting it.
func prepare(t testing.TB, o Options) *Daemon {
	t.Helper()
	dir := o.Dir
	if dir == "" {
		dir = TempDir(t)
	}
	d := &Daemon{Dir: dir, stderr: &syncBuffer{}, extraEnv: o.Env, bin: Bin(t, "signalttyd"), cli: Bin(t, "signaltty")}
	if o.WithoutRace {
		d.bin, d.cli = plainProgram(t, "signalttyd"), plainProgram(t, "signaltty")
	}
	d.Socket = filepath.Join(dir, "run", "signaltty", "dev.signaltty")
	if len(d.Socket) >= 108 {
		t.Fatalf("harness: socket path %q is too long for a unix socket", d.Socket)
	}
	d.Address = "unix:" + d.Socket
	d.Home = filepath.Join(dir, "home")
	for _, sub := range []string{"run", "state", "home"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// TempDir makes a short temporary directory (socket paths must stay under
// 108 bytes, which t.TempDir's long names can exceed), removed at cleanup.
func TempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "stt-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// baseEnv is the test process's environment minus everything that could
// point a daemon or CLI at another instance or service manager, and minus
// the markers of a CI job.
func baseEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "SIGNALTTY_"), strings.HasPrefix(k, "LISTEN_"), strings.HasPrefix(k, "WATCHDOG_"),
			strings.HasPrefix(k, "XDG_"), k == "NOTIFY_SOCKET", k == "INVOCATION_ID", k == "JOURNAL_STREAM",
			k == "HOME", k == "TERM", k == "LESS", k == "PS1", k == "PROMPT_COMMAND":
			continue
		case k == "CI", k == "CONTINUOUS_INTEGRATION", k == "BUILD_NUMBER", k == "RUN_ID",
			strings.HasPrefix(k, "CI_"), strings.HasPrefix(k, "GITHUB_"):
			// A CI job's markers make the real agents in panes act as in
			// a pipeline (Gemini CLI goes headless on CI=true); a pane is
			// a person's terminal.
			continue
		}
		out = append(out, kv)
	}
	if os.Getenv("SIGNALTTY_TEST_RACE") == "1" && os.Getenv("GORACE") == "" {
		// Race-enabled programs sleep 1 s at exit by default; a race still
		// makes them exit 66, which fails the test.
		out = append(out, "GORACE=atexit_sleep_ms=0")
	}
	return out
}

// DaemonEnv is the environment the daemon runs with.
func (d *Daemon) DaemonEnv() []string {
	env := append(baseEnv(),
		"HOME="+d.Home,
		"XDG_RUNTIME_DIR="+filepath.Join(d.Dir, "run"),
		"XDG_STATE_HOME="+filepath.Join(d.Dir, "state"),
		"SIGNALTTY_ADDRESS="+d.Address,
		"SIGNALTTY_LOGIND=0",
		"SIGNALTTY_DBUS=0", // never on a session bus the test process may have
	)
	return append(env, d.extraEnv...)
}

// ClientEnv is the environment the CLI runs with: the daemon's address and
// no autostart.
func (d *Daemon) ClientEnv() []string {
	return append(baseEnv(),
		"HOME="+d.Home,
		"XDG_RUNTIME_DIR="+filepath.Join(d.Dir, "run"),
		"XDG_STATE_HOME="+filepath.Join(d.Dir, "state"),
		"SIGNALTTY_ADDRESS="+d.Address,
		"SIGNALTTY_NO_AUTOSTART=1",
	)
}

// CLIProgram is the path of the signaltty that d's CLI calls run (built
// without -race for Options.WithoutRace).
func (d *Daemon) CLIProgram() string { return d.cli }

func (d *Daemon) launch(t testing.TB) {
	t.Helper()
	cmd := exec.Command(d.bin)
	cmd.Env = d.DaemonEnv()
	cmd.Dir = d.Home
	cmd.Stdout = d.stderr
	cmd.Stderr = d.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("harness: starting signalttyd: %v", err)
	}
	d.cmd = cmd
	d.done = make(chan struct{})
	go func() {
		d.waitErr = cmd.Wait()
		d.state = cmd.ProcessState
		close(d.done)
	}()
	t.Cleanup(func() { d.cleanup(t) })
}

// Pid is the daemon's process id.
func (d *Daemon) Pid() int { return d.cmd.Process.Pid }

// Stderr returns what the daemon wrote to stderr and stdout so far.
func (d *Daemon) Stderr() string { return d.stderr.String() }

// Exited reports whether the daemon process has ended.
func (d *Daemon) Exited() bool {
	select {
	case <-d.done:
		return true
	default:
		return false
	}
}

// WaitReady polls the socket until the daemon answers Server.GetStatus, and
// fails the test if it exits first or does not answer within ReadyTimeout.
func (d *Daemon) WaitReady(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(ReadyTimeout)
	var last error
	for delay := 2 * time.Millisecond; ; delay = min(delay*2, 100*time.Millisecond) {
		if d.Exited() {
			t.Fatalf("harness: signalttyd exited before answering (%v); stderr:\n%s", d.state, d.Stderr())
		}
		if last = d.ping(); last == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("harness: signalttyd did not answer on %s within %v (last error: %v); stderr:\n%s",
				d.Socket, ReadyTimeout, last, d.Stderr())
		}
		wait(delay)
	}
}

// ping makes one WhoAmI call (open to every principal, so a daemon whose
// outside callers hold no grants answers too).
func (d *Daemon) ping() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c, err := vl.NewConnection(ctx, d.Address)
	if err != nil {
		return err
	}
	defer c.Close()
	var out struct{}
	return c.Call(ctx, "dev.signaltty.Server.WhoAmI", nil, &out)
}

// WaitExit waits up to timeout for the daemon to exit on its own and returns
// its exit code (-1 for a signal). It fails the test on timeout. The cleanup
// then only checks that the socket is gone.
func (d *Daemon) WaitExit(t testing.TB, timeout time.Duration) int {
	t.Helper()
	select {
	case <-d.done:
	case <-time.After(timeout):
		t.Fatalf("signalttyd (pid %d) did not exit within %v; stderr:\n%s", d.Pid(), timeout, d.Stderr())
	}
	d.mu.Lock()
	d.stopped = true
	d.mu.Unlock()
	return d.state.ExitCode()
}

// Stop sends SIGTERM and checks the daemon exits with status 0 within
// StopTimeout and removed its socket file. It returns how long that took.
func (d *Daemon) Stop(t testing.TB) time.Duration {
	t.Helper()
	d.mu.Lock()
	already := d.stopped
	d.stopped = true
	d.mu.Unlock()
	if already {
		return 0
	}
	start := time.Now()
	if !d.Exited() {
		if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
			t.Errorf("SIGTERM to signalttyd: %v", err)
		}
	}
	select {
	case <-d.done:
	case <-time.After(StopTimeout):
		t.Errorf("signalttyd (pid %d) did not exit within %v of SIGTERM", d.Pid(), StopTimeout)
		d.kill()
		<-d.done
	}
	took := time.Since(start)
	if code := d.state.ExitCode(); code != 0 {
		t.Errorf("signalttyd exited with %v after SIGTERM, want exit status 0", d.state)
	}
	d.CheckSocketRemoved(t)
	return took
}

// CheckSocketRemoved fails the test if the daemon's socket file still exists.
func (d *Daemon) CheckSocketRemoved(t testing.TB) {
	t.Helper()
	if _, err := os.Lstat(d.Socket); err == nil {
		t.Errorf("socket %s still exists after signalttyd exited", d.Socket)
	} else if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket %s: %v", d.Socket, err)
	}
}

// kill SIGKILLs the daemon and every process it left (its children would
// otherwise outlive the test).
func (d *Daemon) kill() {
	kids := Children(d.Pid())
	d.cmd.Process.Kill()
	for _, p := range kids {
		syscall.Kill(-p.Pid, syscall.SIGKILL) // each pane leader leads its own process group
		syscall.Kill(p.Pid, syscall.SIGKILL)
	}
}

func (d *Daemon) cleanup(t testing.TB) {
	d.mu.Lock()
	stopped := d.stopped
	d.mu.Unlock()
	if !stopped {
		d.Stop(t)
	} else if d.Exited() && !d.crashed {
		d.CheckSocketRemoved(t)
	} else { // WaitExit timed out
		d.kill()
		<-d.done
	}
	if t.Failed() || os.Getenv("SIGNALTTY_TEST_LOG") == "1" {
		t.Logf("signalttyd (pid %d, %s) stderr:\n%s", d.Pid(), d.Address, indent(d.Stderr()))
		d.mu.Lock()
		calls := strings.Join(d.log, "\n")
		d.mu.Unlock()
		if calls != "" {
			t.Logf("calls made by the harness (most recent last):\n%s", indent(calls))
		}
	}
}

// record keeps a short transcript of calls for the failure log.
func (d *Daemon) record(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	if len(line) > 2000 {
		line = line[:2000] + "…"
	}
	d.mu.Lock()
	d.log = append(d.log, line)
	if len(d.log) > 300 {
		d.log = d.log[len(d.log)-300:]
	}
	d.mu.Unlock()
}

// Dial returns a raw varlink connection to the daemon, closed at cleanup.
func (d *Daemon) Dial(t testing.TB) *vl.Connection {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := vl.NewConnection(ctx, d.Address)
	if err != nil {
		t.Fatalf("connecting to %s: %v", d.Address, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// DialUnix returns a plain unix socket connection to the daemon (for
// hand-made messages), closed at cleanup.
func (d *Daemon) DialUnix(t testing.TB) *net.UnixConn {
	t.Helper()
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: d.Socket, Net: "unix"})
	if err != nil {
		t.Fatalf("connecting to %s: %v", d.Socket, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return "    (empty)"
	}
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Unstarted prepares a daemon's directories and environment without
// starting anything: for tests that start signalttyd some other way (CLI
// autostart) or need a socket nobody listens on.
func Unstarted(t testing.TB) *Daemon {
	t.Helper()
	return prepare(t, Options{})
}

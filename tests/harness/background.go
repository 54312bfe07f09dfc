package harness

// Clients running in the background (a wait that blocks, a start whose
// connection is dropped, many starts at once), and single raw varlink
// calls.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	vl "github.com/varlink/go/varlink"
)

// Background is a client process running in the background.
type Background struct {
	// Via is the transport whose output it prints ("cli", "varlinkctl",
	// or "" for another program).
	Via    string
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr bytes.Buffer
	done   chan struct{}
	res    Result
	start  time.Time
}

// StartBackground starts name with args and env; it is killed at cleanup
// if still running.
func StartBackground(t testing.TB, env []string, name string, args ...string) *Background {
	t.Helper()
	p := &Background{cmd: exec.Command(name, args...), done: make(chan struct{}), start: time.Now()}
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() {
		err := p.cmd.Wait()
		p.res = Result{Args: append([]string{name}, args...), Stdout: p.stdout.String(), Stderr: p.stderr.String(), Duration: time.Since(p.start)}
		if ee, ok := err.(*exec.ExitError); ok {
			p.res.Code = ee.ExitCode()
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// BackgroundCLI runs `signaltty --json args…` in the background.
func (d *Daemon) BackgroundCLI(t testing.TB, args ...string) *Background {
	t.Helper()
	p := StartBackground(t, d.ClientEnv(), d.cli, append([]string{"--json"}, args...)...)
	p.Via = "cli"
	return p
}

// BackgroundVarlinkctl runs `varlinkctl call --json=short ADDRESS method
// params` in the background.
func (d *Daemon) BackgroundVarlinkctl(t testing.TB, method string, params any) *Background {
	t.Helper()
	b, _ := json.Marshal(params)
	p := StartBackground(t, append(os.Environ(), "SYSTEMD_COLORS=0", "SYSTEMD_PAGER=cat"), Varlinkctl(t),
		"--no-pager", "call", "--json=short", d.Address, method, string(b))
	p.Via = "varlinkctl"
	return p
}

// BackgroundStart makes the Run.Start call of s through tr in the background.
func (tr Transport) BackgroundStart(t testing.TB, s RunSpec) *Background {
	t.Helper()
	if tr.Name == "cli" {
		return tr.d.BackgroundCLI(t, s.CLIArgs()...)
	}
	return tr.d.BackgroundVarlinkctl(t, "dev.signaltty.Run.Start", s.Params())
}

// BackgroundWait makes the Run.Wait call of run (no timeout) through tr in
// the background.
func (tr Transport) BackgroundWait(t testing.TB, run string) *Background {
	t.Helper()
	if tr.Name == "cli" {
		return tr.d.BackgroundCLI(t, "run", "wait", "--run", run)
	}
	return tr.d.BackgroundVarlinkctl(t, "dev.signaltty.Run.Wait", map[string]any{"run": run})
}

// Pid is the client's process id.
func (p *Background) Pid() int { return p.cmd.Process.Pid }

// Result waits up to timeout for the process to end.
func (p *Background) Result(t testing.TB, timeout time.Duration) Result {
	t.Helper()
	select {
	case <-p.done:
		return p.res
	case <-time.After(timeout):
		t.Fatalf("%s did not finish within %v; stdout %q stderr %q", p.cmd.Path, timeout, p.stdout.String(), p.stderr.String())
	}
	return Result{}
}

// Reply waits for the process and decodes its output as its transport's.
func (p *Background) Reply(t testing.TB, timeout time.Duration) Reply {
	t.Helper()
	r := p.Result(t, timeout)
	switch p.Via {
	case "cli":
		return ParseCLIReply(t, r)
	case "varlinkctl":
		return ParseVarlinkctlReply(t, r)
	}
	t.Fatalf("%s prints no reply of a transport", p.cmd.Path)
	return Reply{}
}

// Ended reports whether the process has ended.
func (p *Background) Ended() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Signal sends sig to the process (which this test started).
func (p *Background) Signal(sig syscall.Signal) { p.cmd.Process.Signal(sig) }

// WaitBlocked polls until the client process holds a connected socket and
// all its threads sleep, on two polls in a row: its request was written and
// it waits for the reply.
func (p *Background) WaitBlocked(t testing.TB) {
	t.Helper()
	pid := p.Pid()
	streak := 0
	Eventually(t, PollTimeout, fmt.Sprintf("pid %d waits on its connection", pid), func() (bool, string) {
		if p.Ended() {
			t.Fatalf("client ended early: %s", p.res)
		}
		ok := hasSocket(pid) && allSleeping(pid)
		if ok {
			streak++
		} else {
			streak = 0
		}
		return streak >= 2, fmt.Sprintf("socket=%v sleeping=%v", hasSocket(pid), allSleeping(pid))
	})
}

func hasSocket(pid int) bool {
	ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, e := range ents {
		if l, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, e.Name())); strings.HasPrefix(l, "socket:") {
			return true
		}
	}
	return false
}

func allSleeping(pid int) bool {
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if len(tasks) == 0 {
		return false
	}
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
		if err != nil {
			return false
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || i+2 >= len(s) || s[i+2] != 'S' {
			return false
		}
	}
	return true
}

// --- raw varlink ---------------------------------------------------------------------

// SendOnly writes one call on a new raw connection without reading its
// reply and returns the connection (closed at cleanup, or earlier by the
// caller to hang up).
func (d *Daemon) SendOnly(t testing.TB, method string, params any) *vl.Connection {
	t.Helper()
	c := d.Dial(t)
	if _, err := c.Send(context.Background(), method, params, 0); err != nil {
		t.Fatalf("sending %s: %v", method, err)
	}
	return c
}

// CallOnce makes one call on a new raw connection, closed afterwards, and
// decodes the reply into out (if not nil); see Call.
func (d *Daemon) CallOnce(t testing.TB, method string, params any, out any) *CallError {
	t.Helper()
	c := d.Dial(t)
	defer c.Close()
	return Call(t, c, method, params, out)
}

// RawStart makes the Run.Start call of s on a new raw connection.
func (d *Daemon) RawStart(t testing.TB, s RunSpec) Reply {
	t.Helper()
	var body json.RawMessage
	err := d.CallOnce(t, "dev.signaltty.Run.Start", s.Params(), &body)
	if err != nil {
		return Reply{Via: "raw", Err: &err.ErrorReply, ErrName: err.Name, Raw: err.Error()}
	}
	if body == nil {
		body = json.RawMessage("{}")
	}
	return Reply{Via: "raw", Body: body, Raw: string(body)}
}

// HandMadeCall sends one hand-written varlink message on a plain unix
// connection and returns the reply's error parameters (nil on success).
func (d *Daemon) HandMadeCall(t testing.TB, method string, params any) *ErrorReply {
	t.Helper()
	c := d.DialUnix(t)
	defer c.Close()
	b, _ := json.Marshal(map[string]any{"method": method, "parameters": params})
	if _, err := c.Write(append(b, 0)); err != nil {
		t.Fatalf("write: %v", err)
	}
	c.SetReadDeadline(time.Now().Add(CallTimeout))
	var buf []byte
	one := make([]byte, 4096)
	for !bytes.Contains(buf, []byte{0}) {
		n, err := c.Read(one)
		buf = append(buf, one[:n]...)
		if err != nil {
			break
		}
	}
	msg, _, _ := bytes.Cut(buf, []byte{0})
	var r struct {
		Error      string     `json:"error"`
		Parameters ErrorReply `json:"parameters"`
	}
	if err := json.Unmarshal(msg, &r); err != nil {
		t.Fatalf("undecodable reply %q: %v", msg, err)
	}
	if r.Error == "" {
		return nil
	}
	return &r.Parameters
}

// CancelAtEnd cancels, at cleanup, the runs listed in *runs by then that
// still run (a test's own runs only; the daemon's shutdown would stop them
// too, but slower).
func (d *Daemon) CancelAtEnd(t testing.TB, runs *[]string) {
	t.Cleanup(func() {
		var wg sync.WaitGroup
		for _, r := range *runs {
			wg.Add(1)
			go func(r string) {
				defer wg.Done()
				c, err := vl.NewConnection(context.Background(), d.Address)
				if err != nil {
					return
				}
				defer c.Close()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				var out json.RawMessage
				c.Call(ctx, "dev.signaltty.Run.Cancel", map[string]any{"run": r, "grace_ms": 200}, &out)
			}(r)
		}
		wg.Wait()
	})
}

// WaitSeen polls the events the stream received (without consuming them)
// until one matches, and returns the first match.
func (s *Stream) WaitSeen(t testing.TB, what string, match func(Event) bool) Event {
	t.Helper()
	var found Event
	Eventually(t, PollTimeout, "event "+what, func() (bool, string) {
		seen := s.Seen()
		for _, e := range seen {
			if match(e) {
				found = e
				return true, ""
			}
		}
		return false, DumpEvents(seen)
	})
	return found
}

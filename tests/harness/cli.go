package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Result is the outcome of running a program.
type Result struct {
	Args     []string
	Stdout   string
	Stderr   string
	Code     int // exit status; -1 when killed by a signal
	Duration time.Duration
}

func (r Result) String() string {
	return fmt.Sprintf("%s\n  exit status %d (after %v)\n  stdout: %q\n  stderr: %q",
		strings.Join(r.Args, " "), r.Code, r.Duration.Round(time.Millisecond), clip(r.Stdout), clip(r.Stderr))
}

func clip(s string) string {
	if len(s) > 4000 {
		return s[:4000] + "…"
	}
	return s
}

// Run runs a program with env and args, with a CallTimeout deadline.
func Run(t testing.TB, env []string, name string, args ...string) Result {
	t.Helper()
	return RunTimeout(t, CallTimeout, env, name, args...)
}

// RunTimeout runs a program with env and args; the test fails if it does
// not finish within timeout (it is killed then).
func RunTimeout(t testing.TB, timeout time.Duration, env []string, name string, args ...string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := Result{Args: append([]string{name}, args...), Stdout: stdout.String(), Stderr: stderr.String(), Duration: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	default:
		t.Fatalf("running %s: %v", name, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish within %v:\n%s", name, timeout, r)
	}
	return r
}

// CLI runs signaltty with args against the daemon (SIGNALTTY_NO_AUTOSTART=1).
func (d *Daemon) CLI(t testing.TB, args ...string) Result {
	t.Helper()
	r := Run(t, d.ClientEnv(), d.cli, args...)
	d.record("signaltty %s → exit %d stdout=%q stderr=%q", quoteArgs(args), r.Code, clip(r.Stdout), clip(r.Stderr))
	return r
}

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$;|&<>(){}*?!#") {
			q[i] = fmt.Sprintf("%q", a)
		} else {
			q[i] = a
		}
	}
	return strings.Join(q, " ")
}

// JSON runs `signaltty --json args...`, requires exit status 0 and exactly
// one line of JSON on stdout, and decodes it into out (if not nil). It
// returns the raw line.
func (d *Daemon) JSON(t testing.TB, out any, args ...string) string {
	t.Helper()
	r := d.CLI(t, append([]string{"--json"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("want exit status 0:\n%s", r)
	}
	line := checkOneLine(t, r)
	if out != nil {
		if err := json.Unmarshal([]byte(line), out); err != nil {
			t.Fatalf("cannot decode the reply of %s: %v", quoteArgs(args), err)
		}
	}
	return line
}

func checkOneLine(t testing.TB, r Result) string {
	t.Helper()
	if !strings.HasSuffix(r.Stdout, "\n") || strings.Count(r.Stdout, "\n") != 1 {
		t.Fatalf("--json must print exactly one line:\n%s", r)
	}
	line := strings.TrimSuffix(r.Stdout, "\n")
	if !json.Valid([]byte(line)) {
		t.Fatalf("--json printed invalid JSON:\n%s", r)
	}
	return line
}

// Fail runs `signaltty --json args...` and requires that it fails with
// error code code (a trailing "*" matches any rest, for codes the contract
// leaves open, e.g. "invalid_params.*") and exit status exit, printing {"error":{"code",
// "message","data"}} on one line. It returns the error.
func (d *Daemon) Fail(t testing.TB, code string, exit int, args ...string) ErrorReply {
	t.Helper()
	r := d.CLI(t, append([]string{"--json"}, args...)...)
	return CheckFail(t, r, code, exit)
}

// CheckFail checks a --json CLI result that must be an error (see Fail).
func CheckFail(t testing.TB, r Result, code string, exit int) ErrorReply {
	t.Helper()
	line := checkOneLine(t, r)
	var reply struct {
		Error *ErrorReply `json:"error"`
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &reply); err != nil || reply.Error == nil {
		t.Fatalf("want {\"error\":{...}}, got:\n%s", r)
	}
	_ = json.Unmarshal([]byte(line), &struct {
		Error *map[string]json.RawMessage `json:"error"`
	}{&fields})
	for _, f := range []string{"code", "message", "data"} {
		if _, ok := fields[f]; !ok {
			t.Errorf("error object lacks %q:\n%s", f, r)
		}
	}
	if d := fields["data"]; len(d) == 0 || d[0] != '{' {
		t.Errorf("error data must be an object, got %s:\n%s", d, r)
	}
	if !CodeMatches(reply.Error.Code, code) {
		t.Errorf("error code %q, want %q:\n%s", reply.Error.Code, code, r)
	}
	if reply.Error.Message == "" {
		t.Errorf("error without message:\n%s", r)
	}
	if r.Code != exit {
		t.Errorf("exit status %d, want %d (class of %s):\n%s", r.Code, exit, code, r)
	}
	return *reply.Error
}

// --- convenience wrappers around single CLI calls ---

// CreateWorkspace runs `workspace create --name name` (name "" omits it).
func (d *Daemon) CreateWorkspace(t testing.TB, name string) Workspace {
	t.Helper()
	args := []string{"workspace", "create", "--cwd", d.Home}
	if name != "" {
		args = append(args, "--name", name)
	}
	var r struct {
		Workspace Workspace `json:"workspace"`
	}
	d.JSON(t, &r, args...)
	if r.Workspace.ID == "" {
		t.Fatalf("workspace create returned no id")
	}
	return r.Workspace
}

// GetWorkspace runs `workspace get`.
func (d *Daemon) GetWorkspace(t testing.TB, ref string) (Workspace, []Tab, []Pane) {
	t.Helper()
	var r struct {
		Workspace Workspace `json:"workspace"`
		Tabs      []Tab     `json:"tabs"`
		Panes     []Pane    `json:"panes"`
	}
	d.JSON(t, &r, "workspace", "get", "--workspace", ref)
	return r.Workspace, r.Tabs, r.Panes
}

// Spawn runs `pane spawn flags... -- argv...` and returns the new pane.
func (d *Daemon) Spawn(t testing.TB, flags []string, argv ...string) Pane {
	t.Helper()
	var r struct {
		Pane Pane `json:"pane"`
	}
	args := append(append([]string{"pane", "spawn"}, flags...), "--")
	d.JSON(t, &r, append(args, argv...)...)
	if r.Pane.ID == "" || r.Pane.State != "live" || r.Pane.PID() <= 0 {
		t.Fatalf("spawn returned a pane that is not live with a pid: %+v", r.Pane)
	}
	return r.Pane
}

// GetPane runs `pane get`.
func (d *Daemon) GetPane(t testing.TB, id string) Pane {
	t.Helper()
	var r struct {
		Pane Pane `json:"pane"`
	}
	d.JSON(t, &r, "pane", "get", "--pane", id)
	return r.Pane
}

// ListPanes runs `pane list` with optional filter flags.
func (d *Daemon) ListPanes(t testing.TB, flags ...string) []Pane {
	t.Helper()
	var r struct {
		Panes []Pane `json:"panes"`
	}
	d.JSON(t, &r, append([]string{"pane", "list"}, flags...)...)
	return r.Panes
}

// Status runs `status --json`.
func (d *Daemon) Status(t testing.TB) Status {
	t.Helper()
	var r struct {
		Status Status `json:"status"`
	}
	d.JSON(t, &r, "status")
	return r.Status
}

// Send runs `pane send --text text` (text uses the CLI's backslash escapes).
func (d *Daemon) Send(t testing.TB, pane, text string) {
	t.Helper()
	var r struct {
		Written *int `json:"written"`
	}
	d.JSON(t, &r, "pane", "send", "--pane", pane, "--text", text)
	if r.Written == nil {
		t.Fatalf("send reply has no written count")
	}
}

// Capture runs `pane capture --json` (the visible screen, or rows with flags).
func (d *Daemon) Capture(t testing.TB, pane string, flags ...string) Capture {
	t.Helper()
	var c Capture
	d.JSON(t, &c, append([]string{"pane", "capture", "--pane", pane}, flags...)...)
	return c
}

// Kill runs `pane kill` with flags and returns the exited pane.
func (d *Daemon) Kill(t testing.TB, pane string, flags ...string) Pane {
	t.Helper()
	var r struct {
		Pane Pane `json:"pane"`
	}
	d.JSON(t, &r, append([]string{"pane", "kill", "--pane", pane}, flags...)...)
	return r.Pane
}

// WaitCapture polls the pane's screen until cond holds (PollTimeout).
func (d *Daemon) WaitCapture(t testing.TB, pane, what string, cond func(Capture) bool) Capture {
	t.Helper()
	var c Capture
	Eventually(t, PollTimeout, what, func() (bool, string) {
		c = d.Capture(t, pane)
		return cond(c), c.Dump()
	})
	return c
}

// WaitLine polls the pane's screen until one of its lines, without trailing
// spaces, equals line.
func (d *Daemon) WaitLine(t testing.TB, pane, line string) Capture {
	t.Helper()
	return d.WaitCapture(t, pane, fmt.Sprintf("pane %s shows a line %q", pane, line), func(c Capture) bool {
		return c.HasLine(line)
	})
}

// WaitExited polls the pane until its state is "exited".
func (d *Daemon) WaitExited(t testing.TB, pane string) Pane {
	t.Helper()
	var p Pane
	Eventually(t, PollTimeout, "pane "+pane+" has exited", func() (bool, string) {
		p = d.GetPane(t, pane)
		return p.State == "exited", fmt.Sprintf("%+v", p)
	})
	return p
}

// HasLine reports whether a line of the capture, without trailing spaces, equals line.
func (c Capture) HasLine(line string) bool {
	for _, l := range c.Lines {
		if strings.TrimRight(l, " ") == line {
			return true
		}
	}
	return false
}

// Contains reports whether some line contains s.
func (c Capture) Contains(s string) bool {
	for _, l := range c.Lines {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// Trimmed returns the lines without trailing spaces and without trailing empty lines.
func (c Capture) Trimmed() []string {
	out := make([]string, len(c.Lines))
	for i, l := range c.Lines {
		out[i] = strings.TrimRight(l, " ")
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// Dump renders a capture for failure messages.
func (c Capture) Dump() string {
	var b strings.Builder
	fmt.Fprintf(&b, "screen=%s cols=%d rows=%d epoch=%d oldest=%d first=%d end=%d\n", c.Screen, c.Cols, c.Rows, c.Epoch, c.Oldest, c.First, c.End)
	for i, l := range c.Lines {
		fmt.Fprintf(&b, "%3d|%s|\n", i, l)
	}
	return b.String()
}

// CodeMatches reports whether code equals want, or starts with want's part
// before a trailing "*".
func CodeMatches(code, want string) bool {
	if p, ok := strings.CutSuffix(want, "*"); ok {
		return strings.HasPrefix(code, p) && len(code) > len(p)
	}
	return code == want
}

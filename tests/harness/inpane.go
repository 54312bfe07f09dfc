package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// InPane is a pane whose shell runs commands the test hands it, so that a
// test can call the CLI (or varlinkctl) as that pane's principal: the
// daemon resolves the connection from the calling process, inside the pane.
type InPane struct {
	D    *Daemon
	Pane Pane
	dir  string
	n    int
}

// NewInPane spawns a pane (pane spawn flags..., e.g. --workspace W and
// --grant) running a loop that executes each request script the test writes
// (req-N, then req-N.go) and records its output and status.
func (d *Daemon) NewInPane(t testing.TB, flags ...string) *InPane {
	t.Helper()
	return d.NewInPaneBy(t, func(argv []string) Pane { return d.Spawn(t, flags, argv...) })
}

// NewInPaneBy is NewInPane with the pane started by spawn (given the
// loop's argv), e.g. by another pane's principal or by workspace create.
func (d *Daemon) NewInPaneBy(t testing.TB, spawn func(argv []string) Pane) *InPane {
	t.Helper()
	ip := NewInPaneWith(t, spawn)
	ip.D = d
	return ip
}

// NewInPaneWith is NewInPaneBy for a daemon the harness did not start
// (D is nil), e.g. a user manager's.
func NewInPaneWith(t testing.TB, spawn func(argv []string) Pane) *InPane {
	t.Helper()
	dir := TempDir(t)
	p := spawn([]string{"/bin/sh", "-c", requestLoop(dir)})
	return &InPane{Pane: p, dir: dir}
}

// requestLoop is the shell loop that runs the request scripts in dir.
func requestLoop(dir string) string {
	return fmt.Sprintf(`export SIGNALTTY_NO_AUTOSTART=1; i=0; while :; do i=$((i+1)); f='%s'/req-$i; `+
		`while [ ! -e "$f.go" ]; do sleep 0.05; done; sh "$f" > "$f.out" 2> "$f.err"; echo $? > "$f.rc.tmp"; mv "$f.rc.tmp" "$f.rc"; done`, dir)
}

// Escape starts, from inside the pane, a copy of the request loop that
// leaves it as far as an unprivileged process can: it double-forks (its
// parent exits, so it is reparented to init or the nearest subreaper) and
// calls setsid (a session and process group of its own), with no
// terminal. The returned InPane runs requests in that escapee (Pane is
// still the pane it left); Pid is its pid. It is killed at cleanup.
func (ip *InPane) Escape(t testing.TB) (*InPane, int) {
	t.Helper()
	dir := TempDir(t)
	pidFile := filepath.Join(dir, "pid")
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	loop := "echo $$ > " + q(pidFile+".tmp") + "; mv " + q(pidFile+".tmp") + " " + q(pidFile) + "; trap '' HUP; " + requestLoop(dir)
	if r := ip.Sh(t, "( setsid /bin/sh -c "+q(loop)+" </dev/null >/dev/null 2>&1 & ) ; exit 0"); r.Code != 0 {
		t.Fatalf("starting the escapee: %s", r)
	}
	var pid int
	Eventually(t, PollTimeout, "the escapee wrote its pid", func() (bool, string) {
		b, err := os.ReadFile(pidFile)
		if err != nil {
			return false, ""
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0, string(b)
	})
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	return &InPane{D: ip.D, Pane: ip.Pane, dir: dir}, pid
}

// Spawn runs `pane spawn flags... -- argv...` as the pane's principal and
// returns the new pane.
func (ip *InPane) Spawn(t testing.TB, flags []string, argv ...string) Pane {
	t.Helper()
	var r struct {
		Pane Pane `json:"pane"`
	}
	ip.JSON(t, &r, append(append(append([]string{"pane", "spawn"}, flags...), "--"), argv...)...)
	if r.Pane.ID == "" || r.Pane.State != "live" {
		t.Fatalf("spawn in pane %s returned a pane that is not live: %+v", ip.Pane.ID, r.Pane)
	}
	return r.Pane
}

// StartMCP starts `signaltty mcp` inside the pane, in the background, with
// its stdin and stdout on FIFOs the test's MCP client uses; the server is
// a process of the pane (its principal). It ends at cleanup.
func (ip *InPane) StartMCP(t testing.TB) *MCP {
	t.Helper()
	dir := TempDir(t)
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	for _, f := range []string{in, out} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// O_RDWR opens a FIFO without waiting for its other end.
	w, err := os.OpenFile(in, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenFile(out, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	if res := ip.Sh(t, q(Bin(t, "signaltty"))+" mcp < "+q(in)+" > "+q(out)+" 2> "+q(filepath.Join(dir, "err"))+" &"); res.Code != 0 {
		t.Fatalf("starting signaltty mcp in the pane: %s", res)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "signaltty-tests", Version: "0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), CallTimeout)
	defer cancel()
	s, err := client.Connect(ctx, &mcp.IOTransport{Reader: r, Writer: w}, nil)
	if err != nil {
		t.Fatalf("connecting to signaltty mcp in pane %s: %v", ip.Pane.ID, err)
	}
	t.Cleanup(func() { s.Close() })
	return &MCP{Session: s, d: ip.D}
}

// Sh runs a shell script inside the pane and returns its result.
func (ip *InPane) Sh(t testing.TB, script string) Result {
	t.Helper()
	ip.n++
	f := filepath.Join(ip.dir, "req-"+strconv.Itoa(ip.n))
	if err := os.WriteFile(f, []byte(script+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	Touch(t, f+".go")
	start := time.Now()
	var rc []byte
	Eventually(t, CallTimeout, "the pane ran "+script, func() (bool, string) {
		var err error
		rc, err = os.ReadFile(f + ".rc")
		return err == nil, ""
	})
	out, _ := os.ReadFile(f + ".out")
	errb, _ := os.ReadFile(f + ".err")
	code, _ := strconv.Atoi(strings.TrimSpace(string(rc)))
	r := Result{Args: []string{"(in pane " + ip.Pane.ID + ")", script}, Stdout: string(out), Stderr: string(errb), Code: code, Duration: time.Since(start)}
	if ip.D != nil {
		ip.D.record("in pane %s: %s → exit %d stdout=%q stderr=%q", ip.Pane.ID, script, r.Code, clip(r.Stdout), clip(r.Stderr))
	}
	return r
}

// CLI runs `signaltty args...` inside the pane (prefix, e.g. "setsid" or
// "env SIGNALTTY_PANE=x", goes before the program).
func (ip *InPane) CLI(t testing.TB, prefix string, args ...string) Result {
	t.Helper()
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return ip.Sh(t, strings.TrimSpace(prefix+" '"+Bin(t, "signaltty")+"' "+strings.Join(q, " ")))
}

// JSON runs `signaltty --json args...` in the pane, requires exit status 0
// and decodes its one line into out.
func (ip *InPane) JSON(t testing.TB, out any, args ...string) {
	t.Helper()
	r := ip.CLI(t, "", append([]string{"--json"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("want exit status 0:\n%s", r)
	}
	DecodeLine(t, r, out)
}

// Fail runs `signaltty --json args...` in the pane and requires the error
// code and exit status (see Daemon.Fail).
func (ip *InPane) Fail(t testing.TB, code string, exit int, args ...string) ErrorReply {
	t.Helper()
	return CheckFail(t, ip.CLI(t, "", append([]string{"--json"}, args...)...), code, exit)
}

// DecodeLine requires exactly one line of JSON on stdout and decodes it into out.
func DecodeLine(t testing.TB, r Result, out any) {
	t.Helper()
	line := checkOneLine(t, r)
	if out != nil {
		if err := json.Unmarshal([]byte(line), out); err != nil {
			t.Fatalf("cannot decode %q: %v", line, err)
		}
	}
}

// WhoAmI is the reply of Server.WhoAmI.
type WhoAmI struct {
	Principal string  `json:"principal"`
	Pane      *string `json:"pane"`
	Pid       int     `json:"pid"`
	Grants    []struct {
		Right string `json:"right"`
		Scope string `json:"scope"`
	} `json:"grants"`
	Reason *string `json:"reason"`
}

// Varlinkctl runs `varlinkctl call ADDRESS method params` inside the pane.
func (ip *InPane) Varlinkctl(t testing.TB, method, params string) Result {
	t.Helper()
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	return ip.Sh(t, "SYSTEMD_PAGER=cat SYSTEMD_COLORS=0 "+q(Varlinkctl(t))+" --no-pager call --json=short "+q(ip.D.Address)+" "+q(method)+" "+q(params))
}

package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
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
	dir := TempDir(t)
	loop := fmt.Sprintf(`export SIGNALTTY_NO_AUTOSTART=1; i=0; while :; do i=$((i+1)); f='%s'/req-$i; `+
		`while [ ! -e "$f.go" ]; do sleep 0.05; done; sh "$f" > "$f.out" 2> "$f.err"; echo $? > "$f.rc.tmp"; mv "$f.rc.tmp" "$f.rc"; done`, dir)
	p := d.Spawn(t, flags, "/bin/sh", "-c", loop)
	return &InPane{D: d, Pane: p, dir: dir}
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
	ip.D.record("in pane %s: %s → exit %d stdout=%q stderr=%q", ip.Pane.ID, script, r.Code, clip(r.Stdout), clip(r.Stderr))
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
}

// Varlinkctl runs `varlinkctl call ADDRESS method params` inside the pane.
func (ip *InPane) Varlinkctl(t testing.TB, method, params string) Result {
	t.Helper()
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	return ip.Sh(t, "SYSTEMD_PAGER=cat SYSTEMD_COLORS=0 "+q(Varlinkctl(t))+" --no-pager call --json=short "+q(ip.D.Address)+" "+q(method)+" "+q(params))
}

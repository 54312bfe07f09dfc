package harness

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Varlinkctl returns the path of varlinkctl from $VARLINKCTL. A missing or
// unusable varlinkctl fails the test: tests/run installs it (see
// tests/harness/get-varlinkctl.sh); these tests never skip.
func Varlinkctl(t testing.TB) string {
	t.Helper()
	p := os.Getenv("VARLINKCTL")
	if p == "" {
		t.Fatal("VARLINKCTL is not set: run the suite with tests/run, or install varlinkctl " +
			"(bash tests/harness/get-varlinkctl.sh DIR) and export VARLINKCTL=DIR/bin/varlinkctl")
	}
	if _, err := exec.LookPath(p); err != nil {
		t.Fatalf("VARLINKCTL=%s is not an executable: %v", p, err)
	}
	return p
}

// VarlinkctlRun runs varlinkctl with args (no daemon needed, e.g. validate-idl).
func VarlinkctlRun(t testing.TB, args ...string) Result {
	t.Helper()
	return Run(t, append(baseEnv(), "SYSTEMD_PAGER=cat", "PAGER=cat", "SYSTEMD_COLORS=0"), Varlinkctl(t), args...)
}

// Varlinkctl runs `varlinkctl VERB ADDRESS args...` against the daemon,
// e.g. d.Varlinkctl(t, "call", "dev.signaltty.Mux.ListPanes", "{}").
func (d *Daemon) Varlinkctl(t testing.TB, verb string, args ...string) Result {
	t.Helper()
	all := append([]string{"--no-pager", verb, d.Address}, args...)
	r := VarlinkctlRun(t, all...)
	d.record("varlinkctl %s → exit %d stdout=%q stderr=%q", quoteArgs(all), r.Code, clip(r.Stdout), clip(r.Stderr))
	return r
}

// VarlinkCall runs `varlinkctl call ADDRESS method params` (params marshalled
// to JSON), requires success and decodes the reply into out (if not nil).
func (d *Daemon) VarlinkCall(t testing.TB, method string, params any, out any) {
	t.Helper()
	b, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	r := d.Varlinkctl(t, "call", "--json=short", method, string(b))
	if r.Code != 0 {
		t.Fatalf("varlinkctl call %s failed:\n%s", method, r)
	}
	if out != nil {
		if err := json.Unmarshal([]byte(strings.TrimSpace(r.Stdout)), out); err != nil {
			t.Fatalf("cannot decode varlinkctl's reply of %s: %v\n%s", method, err, r)
		}
	}
}

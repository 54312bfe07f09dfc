package harness

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"testing"
)

// CLIInput runs signaltty with args against the daemon with stdin as its
// standard input.
func (d *Daemon) CLIInput(t testing.TB, stdin []byte, args ...string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), CallTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, Bin(t, "signaltty"), args...)
	cmd.Env = d.ClientEnv()
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := Result{Args: append([]string{"signaltty"}, args...), Stdout: stdout.String(), Stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	default:
		t.Fatalf("running signaltty: %v", err)
	}
	d.record("signaltty %s <%d bytes> → exit %d stdout=%q stderr=%q", quoteArgs(args), len(stdin), r.Code, clip(r.Stdout), clip(r.Stderr))
	return r
}

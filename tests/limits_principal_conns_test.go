package tests

// Connections are accounted per principal and a silent connection is
// closed (docs/limits.md, "Connections"): a pane's processes cannot take
// the owner's share, and the owner always gets in.

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// holdConnections has a process inside ip open n connections to the daemon
// and keep them open without sending anything; it writes how many it
// opened to a file and returns once all are open.
func holdConnections(t *testing.T, ip *harness.InPane, n int) {
	t.Helper()
	done := filepath.Join(harness.TempDir(t), "opened")
	perl := `use IO::Socket::UNIX; my ($path, $n, $out) = @ARGV; my @c; ` +
		`for (1..$n) { my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => $path) or die "connect: $!"; push @c, $s } ` +
		`open(my $f, ">", "$out.tmp") or die; print $f scalar(@c), "\n"; close $f; rename("$out.tmp", $out); sleep 600;`
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	r := ip.Sh(t, fmt.Sprintf(`ulimit -n %d; perl -e %s "${SIGNALTTY_ADDRESS#unix:}" %d %s </dev/null >/dev/null 2>%s & echo $! > %s`,
		n+64, q(perl), n, q(done), q(done+".err"), q(done+".pid")))
	if r.Code != 0 {
		t.Fatalf("starting the connection holder: %s", r)
	}
	harness.Eventually(t, harness.CallTimeout, fmt.Sprintf("%d connections are open", n), func() (bool, string) {
		b, err := os.ReadFile(done)
		e, _ := os.ReadFile(done + ".err")
		return err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(n), string(b) + string(e)
	})
	t.Cleanup(func() {
		if b, err := os.ReadFile(done + ".pid"); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
}

func TestAPanesConnectionsCannotLockTheOwnerOut(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "flood").ID
	flooder := d.NewInPane(t, "--workspace", ws)
	holdConnections(t, flooder, 1030)
	// Past its share, the pane's own next connection is refused, naming it
	// (once the daemon has told the flood's refused connections why: it
	// tells at most 64 at a time and closes others at once).
	var er harness.ErrorReply
	harness.Eventually(t, harness.CallTimeout, "the pane's own connection is refused with unavailable.connections", func() (bool, string) {
		r := flooder.CLI(t, "", "--json", "whoami")
		if r.Code != 6 || !strings.Contains(r.Stdout, `"unavailable.connections"`) {
			return false, r.String()
		}
		er = harness.CheckFail(t, r, "unavailable.connections", 6)
		return true, ""
	})
	if er.Data["principal"] != "pane:"+flooder.Pane.ID {
		t.Errorf("the refusal does not name the principal whose share is used up: %+v", er)
	}
	// The owner, and another pane, still get in.
	var w harness.WhoAmI
	d.JSON(t, &w, "whoami")
	if w.Principal != "owner" {
		t.Errorf("the owner's CLI resolves to %+v", w)
	}
	d.JSON(t, nil, "status")
	other := d.NewInPane(t, "--workspace", ws)
	other.JSON(t, &w, "whoami")
	if w.Principal != "pane:"+other.Pane.ID {
		t.Errorf("another pane's CLI resolves to %+v", w)
	}
}

func TestASilentConnectionIsClosedAfterTheTimeout(t *testing.T) {
	t.Parallel()
	d := harness.Start(t, harness.Options{Env: []string{"SIGNALTTY_IDLE_CONNECTION_TIMEOUT_MS=300"}})
	c := d.DialUnix(t)
	defer c.Close()
	rd := bufio.NewReader(c)
	r, msg, err := readRaw(c, rd, harness.CallTimeout)
	if err != nil || r.Parameters.Code != "timeout.idle" {
		t.Fatalf("a connection that sent nothing got %q %v, want timeout.idle", msg, err)
	}
	if rest, err := io.ReadAll(rd); len(rest) != 0 || err != nil {
		t.Errorf("after timeout.idle: %q %v, want the connection closed", rest, err)
	}
	// One that speaks is served, and may then stay quiet between messages.
	c2 := d.DialUnix(t)
	defer c2.Close()
	c2.Write([]byte(`{"method":"dev.signaltty.Server.WhoAmI"}` + "\x00"))
	rd2 := bufio.NewReader(c2)
	if r, msg, err := readRaw(c2, rd2, harness.CallTimeout); err != nil || r.Error != "" {
		t.Fatalf("WhoAmI: %q %v", msg, err)
	}
	// A connection accepted after that message times out: c2 has been quiet
	// for longer than the timeout since, and is still served.
	c3 := d.DialUnix(t)
	defer c3.Close()
	if r, msg, err := readRaw(c3, bufio.NewReader(c3), harness.CallTimeout); err != nil || r.Parameters.Code != "timeout.idle" {
		t.Fatalf("a later silent connection got %q %v, want timeout.idle", msg, err)
	}
	c2.Write([]byte(`{"method":"dev.signaltty.Server.WhoAmI"}` + "\x00"))
	if r, msg, err := readRaw(c2, rd2, harness.CallTimeout); err != nil || r.Error != "" {
		t.Fatalf("a connection quiet between messages was closed: %q %v", msg, err)
	}
}

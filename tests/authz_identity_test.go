package tests

// Who a connection is (docs/security.md, "Who is calling"): resolved by
// the daemon from the connected process, never from what it says.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

func TestWhoAmIOutsideEveryPaneIsTheOwner(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	var w harness.WhoAmI
	d.JSON(t, &w, "whoami")
	if w.Principal != "owner" || w.Pane != nil || w.Pid <= 0 {
		t.Errorf("outside every pane: %+v", w)
	}
	// varlinkctl resolves the same way, with no extra call.
	var v harness.WhoAmI
	d.VarlinkCall(t, "dev.signaltty.Server.WhoAmI", map[string]any{}, &v)
	if v.Principal != "owner" || v.Pid <= 0 || v.Pid == w.Pid {
		t.Errorf("varlinkctl WhoAmI: %+v (the CLI's: %+v)", v, w)
	}
}

func TestWhoAmIInsideAPaneIsThatPaneWhateverItsEnvironmentSays(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "who").ID
	a := d.NewInPane(t, "--workspace", ws)
	b := d.NewInPane(t, "--workspace", ws)
	want := "pane:" + a.Pane.ID
	for _, c := range []struct{ name, prefix string }{
		{"plain", ""},
		{"SIGNALTTY_PANE names another pane", "env SIGNALTTY_PANE=" + b.Pane.ID},
		{"SIGNALTTY_TOKEN=@owner", "env SIGNALTTY_TOKEN=@owner"},
		{"setsid", "setsid"},
		{"setsid and a spoofed environment", "env SIGNALTTY_PANE=" + b.Pane.ID + " SIGNALTTY_TOKEN=@owner setsid"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := a.CLI(t, c.prefix, "--json", "whoami")
			var w harness.WhoAmI
			if r.Code != 0 {
				t.Fatalf("whoami in the pane:\n%s", r)
			}
			harness.DecodeLine(t, r, &w)
			if w.Principal != want || w.Pane == nil || *w.Pane != a.Pane.ID {
				t.Errorf("want %s: %+v", want, w)
			}
			var got []string
			for _, g := range w.Grants {
				got = append(got, g.Right+":"+g.Scope)
			}
			if strings.Join(got, ",") != "read:self,write:self,spawn:self,spawn:home" {
				t.Errorf("default grants are read, write and spawn on self and spawn on home (docs/security.md): %v", got)
			}
		})
	}
}

// A peer with another uid is refused at accept (SO_PEERCRED), even when
// the socket's permissions were loosened, and the refusal is logged.
func TestAnotherUidIsRefusedAtAccept(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/usr/bin/setpriv"); err != nil {
		t.Skip("needs setpriv (util-linux)")
	}
	if os.Getuid() != 0 {
		t.Skip("needs root to run a client as another uid")
	}
	uid, gid := harness.OtherUser(t)
	d := harness.Start(t)
	// Loosen every permission on the way to the socket, and give the other
	// user a copy of the CLI it can run.
	for p := d.Socket; p != "/" && strings.HasPrefix(p, os.TempDir()); p = filepath.Dir(p) {
		mode := os.FileMode(0o755)
		if p == d.Socket {
			mode = 0o777
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(harness.TempDir(t), "signaltty")
	if err := os.Chmod(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(harness.Bin(t, "signaltty"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	r := harness.RunTimeout(t, harness.CallTimeout, append(d.ClientEnv(), "HOME=/"), "setpriv", "--reuid="+uid, "--regid="+gid,
		"--clear-groups", bin, "--json", "whoami")
	if r.Code == 0 || strings.Contains(r.Stdout, "principal") {
		t.Fatalf("another uid was served:\n%s", r)
	}
	// It is told why, from what it can see: the socket is another uid's.
	er := harness.CheckFail(t, r, "denied.other_user", 4)
	if er.Data["socket_uid"] != float64(os.Getuid()) || fmt.Sprint(er.Data["uid"]) != uid || !strings.Contains(er.Message, "uid "+uid) {
		t.Errorf("the refusal does not name the socket's owner and the caller's uid: %+v", er)
	}
	// With the socket's directory closed to it again, the same.
	if err := os.Chmod(filepath.Dir(d.Socket), 0o700); err != nil {
		t.Fatal(err)
	}
	r = harness.RunTimeout(t, harness.CallTimeout, append(d.ClientEnv(), "HOME=/"), "setpriv", "--reuid="+uid, "--regid="+gid,
		"--clear-groups", bin, "--json", "whoami")
	harness.CheckFail(t, r, "denied.other_user", 4)
	harness.Eventually(t, harness.PollTimeout, "the refusal is logged", func() (bool, string) {
		return strings.Contains(d.Stderr(), "dropping connection from another user") && strings.Contains(d.Stderr(), "uid="+uid), d.Stderr()
	})
	// The owner is still served.
	var w harness.WhoAmI
	d.JSON(t, &w, "whoami")
	if w.Principal != "owner" {
		t.Errorf("owner after a refused peer: %+v", w)
	}
}

// A process left running in the session of a pane whose leader exited (in
// a process group of its own, so the pane's end did not stop it) is still
// that pane's principal, without cgroups too.
func TestWhatAPaneLeftRunningIsStillThePane(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "left").ID
	f := filepath.Join(harness.TempDir(t), "who")
	script := fmt.Sprintf(`set -m; p=$$; (trap '' HUP; while kill -0 $p 2>/dev/null; do sleep 0.05; done; SIGNALTTY_NO_AUTOSTART=1 '%s' --json whoami > '%s.tmp'; mv '%s.tmp' '%s') </dev/null >/dev/null 2>&1 & exit 0`,
		harness.Bin(t, "signaltty"), f, f, f)
	p := d.Spawn(t, []string{"--workspace", ws}, "sh", "-c", script)
	var b []byte
	harness.Eventually(t, harness.PollTimeout, "the leftover's whoami", func() (bool, string) {
		var err error
		b, err = os.ReadFile(f)
		return err == nil, ""
	})
	var w harness.WhoAmI
	if err := json.Unmarshal(b, &w); err != nil || w.Principal != "pane:"+p.ID {
		t.Errorf("a process left in the exited pane's session resolved to %s, want pane:%s", b, p.ID)
	}
}

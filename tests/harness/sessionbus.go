package harness

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// SessionBus is a private session bus with signaltty's shipped policy
// (units/dev.signaltty1.conf, in its session.d) and activation file
// (units/dev.signaltty1.service, in its service directory), run by the user
// manager the way dbus-user-session does: dbus.socket (%t/bus) and
// dbus.service (dbus-daemon --address=systemd: --systemd-activation) in
// the manager's unit directory, so the manager connects to it and serves
// SystemdService= activation. A second socket, Public, is reachable by
// other users, to test that they are refused.
type SessionBus struct {
	Address string // unix:path=dir/run/bus
	Public  string // unix:path=dir/pub/bus
}

// PrepareSessionBus writes the bus's configuration and units into dir
// before StartUserManagerIn(t, dir). othersMayConnect adds
// <allow user="*"/>: other uids may connect, and only the policy and the
// daemon keep them out.
func PrepareSessionBus(t testing.TB, dir string, othersMayConnect bool) *SessionBus {
	t.Helper()
	dbusDaemon, err := exec.LookPath("dbus-daemon")
	if err != nil {
		t.Skip("needs dbus-daemon (Debian package dbus-daemon)")
	}
	root := ModuleRoot(t)
	for _, sub := range []string{"run", "pub", "bus/services", "bus/session.d", "config/systemd/user"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(filepath.Join(dir, "run"), 0o700)
	os.Chmod(dir, 0o755) // other uids reach pub/ only
	copyFile(t, filepath.Join(root, "units", "dev.signaltty1.service"), filepath.Join(dir, "bus/services/dev.signaltty1.service"))
	copyFile(t, filepath.Join(root, "units", "dev.signaltty1.conf"), filepath.Join(dir, "bus/session.d/dev.signaltty1.conf"))
	others := ""
	if othersMayConnect {
		others = `<policy context="default"><allow user="*"/></policy>`
	}
	// The policy of Debian's session.conf, then ours.
	conf := `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
  ` + others + `
  <servicedir>` + filepath.Join(dir, "bus", "services") + `</servicedir>
  <includedir>` + filepath.Join(dir, "bus", "session.d") + `</includedir>
</busconfig>
`
	confPath := filepath.Join(dir, "bus", "bus.conf")
	units := map[string]string{
		"dbus.socket": "[Unit]\nDescription=test session bus socket\n[Socket]\nListenStream=%t/bus\nListenStream=" +
			filepath.Join(dir, "pub", "bus") + "\nSocketMode=0666\n[Install]\nWantedBy=sockets.target\n",
		"dbus.service": "[Unit]\nDescription=test session bus\nRequires=dbus.socket\n[Service]\nExecStart=" + dbusDaemon +
			" --config-file=" + confPath + " --address=systemd: --nofork --nopidfile --systemd-activation\n",
	}
	for name, text := range units {
		if err := os.WriteFile(filepath.Join(dir, "config/systemd/user", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Enabled, as `systemctl --user enable dbus.socket` would (and as
	// dbus-user-session's own link does on a desktop): without the link
	// sockets.target does not pull the socket in, and %t/bus never appears.
	wants := filepath.Join(dir, "config/systemd/user/sockets.target.wants")
	if err := os.MkdirAll(wants, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../dbus.socket", filepath.Join(wants, "dbus.socket")); err != nil && !os.IsExist(err) {
		t.Fatal(err)
	}
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	return &SessionBus{Address: "unix:path=" + filepath.Join(dir, "run", "bus"), Public: "unix:path=" + filepath.Join(dir, "pub", "bus")}
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// OtherUser returns the uid and gid of "another user" for tests that run
// a client as someone else (setpriv --reuid/--regid): those of the
// unprivileged account nobody when the system has one, else 65534. No user
// is ever added to the system.
func OtherUser(t testing.TB) (uid, gid string) {
	t.Helper()
	if u, err := user.Lookup("nobody"); err == nil && u.Uid != strconv.Itoa(os.Getuid()) {
		return u.Uid, u.Gid
	}
	return "65534", "65534"
}

// Listening waits until the user manager listens on the bus's socket
// (dbus.socket is started with sockets.target, which may come after
// StartUserManagerIn returns).
func (b *SessionBus) Listening(t testing.TB) {
	t.Helper()
	WaitFile(t, strings.TrimPrefix(b.Address, "unix:path="))
}

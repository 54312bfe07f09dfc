package tests

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/signaltty/signaltty/tests/harness"
)

// dev.signaltty1 on a private session bus with the shipped policy and
// activation file, the user manager connected to it (docs/dbus.md).

func busctl(t *testing.T, m *harness.UserManager, address string, args ...string) harness.Result {
	t.Helper()
	return harness.RunTimeout(t, harness.CallTimeout, m.Env(), "busctl", append([]string{"--address=" + address}, args...)...)
}

func TestDBusNameActivatedAndFollowed(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/usr/bin/busctl"); err != nil {
		t.Skip("needs busctl (systemd)")
	}
	dir := harness.TempDir(t)
	bus := harness.PrepareSessionBus(t, dir, false)
	m := harness.StartUserManagerIn(t, dir)
	bus.Listening(t)

	// Activation: a call to the name starts signaltty.service through the
	// user manager (SystemdService=), not the varlink socket.
	r := busctl(t, m, bus.Address, "call", "dev.signaltty1", "/dev/signaltty1", "dev.signaltty1", "GetStatus")
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, "ssu ") {
		t.Fatalf("busctl call GetStatus must activate signalttyd:\n%s", r)
	}
	if got := m.Show(t, "signaltty.service", "ActiveState"); got != "active" {
		t.Fatalf("signaltty.service is %s after the D-Bus activation", got)
	}
	for prop, want := range map[string]string{"Version": `s "`, "Address": `s "unix:` + m.Socket + `"`, "LivePanes": "u 0", "Attention": `s "none"`} {
		r := busctl(t, m, bus.Address, "get-property", "dev.signaltty1", "/dev/signaltty1", "dev.signaltty1", prop)
		if r.Code != 0 || !strings.HasPrefix(r.Stdout, want) {
			t.Errorf("property %s: want %s…:\n%s", prop, want, r)
		}
	}

	// Signals and property changes follow the service's events.
	conn, err := dbus.Connect(bus.Address)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.AddMatchSignal(dbus.WithMatchSender("dev.signaltty1")); err != nil {
		t.Fatal(err)
	}
	sigs := make(chan *dbus.Signal, 64)
	conn.Signal(sigs)
	var ws struct {
		Workspace struct {
			ID string `json:"id"`
		} `json:"workspace"`
	}
	mjson(t, m, &ws, "workspace", "create", "--name", "bus")
	// A live pane: LivePanes becomes 1.
	var sp struct {
		Pane struct {
			ID string `json:"id"`
		} `json:"pane"`
	}
	mjson(t, m, &sp, "pane", "spawn", "--workspace", ws.Workspace.ID, "--", "sleep", "1000")
	waitSignal(t, sigs, "LivePanes changed to 1", func(s *dbus.Signal) bool {
		if s.Name != "org.freedesktop.DBus.Properties.PropertiesChanged" || len(s.Body) < 2 {
			return false
		}
		ch, ok := s.Body[1].(map[string]dbus.Variant)
		return ok && ch["LivePanes"].Value() == uint32(1)
	})
	// A run that fails with 3: RunCompleted(run, pane, "failed", 3).
	var run struct {
		Run string `json:"run"`
	}
	mjson(t, m, &run, "run", "--key", "bus-1", "--workspace", ws.Workspace.ID, "--shell", "exit 3")
	s := waitSignal(t, sigs, "RunCompleted of "+run.Run, func(s *dbus.Signal) bool {
		return s.Name == "dev.signaltty1.RunCompleted" && len(s.Body) == 4 && s.Body[0] == run.Run
	})
	if s.Body[2] != "failed" || s.Body[3] != int32(3) {
		t.Fatalf("RunCompleted %v, want (%s, pane, failed, 3)", s.Body, run.Run)
	}
	// A warning about the pane raises its attention: AttentionChanged and
	// the Attention property; seen, both go back to none.
	pane := sp.Pane.ID
	mjson(t, m, &struct{}{}, "notify", "--pane", pane, "--title", "look", "--severity", "warning")
	waitSignal(t, sigs, "AttentionChanged to warning", func(s *dbus.Signal) bool {
		return s.Name == "dev.signaltty1.AttentionChanged" && len(s.Body) == 2 && s.Body[0] == pane && s.Body[1] == "warning"
	})
	if r := busctl(t, m, bus.Address, "get-property", "dev.signaltty1", "/dev/signaltty1", "dev.signaltty1", "Attention"); !strings.HasPrefix(r.Stdout, `s "warning"`) {
		t.Errorf("Attention after a warning:\n%s", r)
	}
	mjson(t, m, &struct{}{}, "pane", "mark-seen", "--pane", pane)
	waitSignal(t, sigs, "AttentionChanged to none", func(s *dbus.Signal) bool {
		return s.Name == "dev.signaltty1.AttentionChanged" && len(s.Body) == 2 && s.Body[0] == pane && s.Body[1] == "none"
	})
	if r := busctl(t, m, bus.Address, "get-property", "dev.signaltty1", "/dev/signaltty1", "dev.signaltty1", "Attention"); !strings.HasPrefix(r.Stdout, `s "none"`) {
		t.Errorf("Attention after mark-seen:\n%s", r)
	}
}

func waitSignal(t *testing.T, sigs <-chan *dbus.Signal, what string, match func(*dbus.Signal) bool) *dbus.Signal {
	t.Helper()
	deadline := time.After(harness.PollTimeout)
	for {
		select {
		case s := <-sigs:
			if match(s) {
				return s
			}
		case <-deadline:
			t.Fatalf("no D-Bus signal %s within %v", what, harness.PollTimeout)
		}
	}
}

// TestDBusOtherUsersRefused: another uid cannot call dev.signaltty1,
// neither on a session bus (which refuses its connection) nor on a bus
// that lets it connect (signalttyd refuses the call).
func TestDBusOtherUsersRefused(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/usr/bin/setpriv"); err != nil {
		t.Skip("needs setpriv (util-linux)")
	}
	for _, open := range []bool{false, true} {
		t.Run("others may connect="+strconv.FormatBool(open), func(t *testing.T) {
			dir := harness.TempDir(t)
			bus := harness.PrepareSessionBus(t, dir, open)
			m := harness.StartUserManagerIn(t, dir)
			bus.Listening(t)
			if r := busctl(t, m, bus.Address, "call", "dev.signaltty1", "/dev/signaltty1", "dev.signaltty1", "GetStatus"); r.Code != 0 {
				t.Fatalf("the owner's call:\n%s", r)
			}
			uid, gid := harness.OtherUser(t)
			r := harness.RunTimeout(t, harness.CallTimeout, m.Env(), "setpriv", "--reuid="+uid, "--regid="+gid, "--clear-groups",
				"dbus-send", "--bus="+bus.Public, "--print-reply", "--dest=dev.signaltty1", "/dev/signaltty1", "dev.signaltty1.GetStatus")
			if r.Code == 0 {
				t.Fatalf("uid %s reached dev.signaltty1:\n%s", uid, r)
			}
			if open && !strings.Contains(r.Stderr, "org.freedesktop.DBus.Error.AccessDenied: signalttyd serves only uid") {
				t.Fatalf("on a bus that lets uid %s connect, signalttyd must refuse the call itself:\n%s", uid, r)
			}
			t.Logf("uid %s: %s", uid, strings.TrimSpace(r.Stderr))
		})
	}
}

// notifications records org.freedesktop.Notifications.Notify calls.
type notifications struct{ calls chan []any }

func (n *notifications) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	n.calls <- []any{app, summary, body}
	return 1, nil
}

// TestDesktopNotificationOfAFailedRun: with SIGNALTTY_NOTIFY=failed-runs a
// run that fails is shown through org.freedesktop.Notifications (here a
// recording service on the private bus); one that succeeds is not.
func TestDesktopNotificationOfAFailedRun(t *testing.T) {
	t.Parallel()
	dir := harness.TempDir(t)
	bus := harness.PrepareSessionBus(t, dir, false)
	m := harness.StartUserManagerIn(t, dir)
	bus.Listening(t)
	dropIn := dir + "/config/systemd/user/signaltty.service.d"
	os.MkdirAll(dropIn, 0o755)
	os.WriteFile(dropIn+"/notify.conf", []byte("[Service]\nEnvironment=SIGNALTTY_NOTIFY=failed-runs\n"), 0o644)
	m.Systemctl(t, "daemon-reload")

	conn, err := dbus.Connect(bus.Address)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rec := &notifications{calls: make(chan []any, 8)}
	conn.Export(rec, "/org/freedesktop/Notifications", "org.freedesktop.Notifications")
	if reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("owning org.freedesktop.Notifications: %v %v", reply, err)
	}
	var ws struct {
		Workspace struct {
			ID string `json:"id"`
		} `json:"workspace"`
	}
	mjson(t, m, &ws, "workspace", "create", "--name", "notify")
	var ok, bad struct {
		Run string `json:"run"`
	}
	mjson(t, m, &ok, "run", "--key", "n-ok", "--workspace", ws.Workspace.ID, "--shell", "exit 0")
	m.CLI(t, "run", "wait", "--run", ok.Run)
	mjson(t, m, &bad, "run", "--key", "n-bad", "--workspace", ws.Workspace.ID, "--shell", "exit 7")
	m.CLI(t, "run", "wait", "--run", bad.Run)
	select {
	case c := <-rec.calls:
		if c[0] != "signaltty" || !strings.Contains(c[2].(string), bad.Run) || !strings.Contains(c[2].(string), "status 7") {
			t.Fatalf("notification %v, want one for %s with status 7", c, bad.Run)
		}
	case <-time.After(harness.PollTimeout):
		t.Fatalf("no notification for the failed run %s", bad.Run)
	}
	select { // the succeeded run came first; had it been notified, it would be the one above
	case c := <-rec.calls:
		t.Fatalf("a second notification: %v", c)
	default:
	}
}

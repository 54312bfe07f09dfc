package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/signaltty/signaltty/tests/harness"
)

// plainSessionBus is a dbus-daemon with Debian's session policy listening
// on dir/bus; stop ends it by its pid.
type plainSessionBus struct {
	Address string
	cmd     *exec.Cmd
}

func startPlainSessionBus(t *testing.T, dir string) *plainSessionBus {
	t.Helper()
	bin, err := exec.LookPath("dbus-daemon")
	if err != nil {
		t.Skip("needs dbus-daemon (Debian package dbus-daemon)")
	}
	sock := filepath.Join(dir, "bus")
	os.Remove(sock)
	b := &plainSessionBus{Address: "unix:path=" + sock}
	b.cmd = exec.Command(bin, "--session", "--nofork", "--nopidfile", "--address="+b.Address)
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.stop)
	harness.Eventually(t, harness.PollTimeout, "the session bus accepts connections", func() (bool, string) {
		c, err := dbus.Connect(b.Address)
		if err != nil {
			return false, err.Error()
		}
		c.Close()
		return true, ""
	})
	return b
}

func (b *plainSessionBus) stop() {
	if b.cmd.ProcessState != nil {
		return
	}
	b.cmd.Process.Signal(syscall.SIGTERM)
	b.cmd.Wait()
}

// nameOwned reports whether dev.signaltty1 has an owner on the bus.
func nameOwned(t *testing.T, address string) bool {
	c, err := dbus.Connect(address)
	if err != nil {
		return false
	}
	defer c.Close()
	var has bool
	if err := c.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "dev.signaltty1").Store(&has); err != nil {
		return false
	}
	return has
}

// The session bus restarts: the daemon keeps serving varlink meanwhile,
// then connects again and owns dev.signaltty1 on the new bus, which
// answers GetStatus; doctor says where it is on the bus throughout.
func TestSessionBusRestartReconnects(t *testing.T) {
	t.Parallel()
	dir := harness.TempDir(t)
	bus := startPlainSessionBus(t, dir)
	d := harness.Start(t, harness.Options{Env: []string{"SIGNALTTY_DBUS=1", "DBUS_SESSION_BUS_ADDRESS=" + bus.Address}})
	harness.Eventually(t, harness.PollTimeout, "the daemon owns its name", func() (bool, string) { return nameOwned(t, bus.Address), "" })
	doctorSays := func(what string, want ...string) {
		t.Helper()
		harness.Eventually(t, 2*harness.PollTimeout, what, func() (bool, string) {
			r := d.CLI(t, "doctor")
			for _, w := range want {
				if !strings.Contains(r.Stdout, w) {
					return false, r.String()
				}
			}
			return true, ""
		})
	}
	doctorSays("doctor says the daemon is on the session bus", "session bus: on", "owns dev.signaltty1 since")

	bus.stop()
	doctorSays("doctor says the daemon lost the session bus", "session bus: reconnecting", "! not on the session bus since")
	w := d.CreateWorkspace(t, "session-bus")
	p := sleeper(t, d, w) // varlink serves without the bus
	bus = startPlainSessionBus(t, dir)
	harness.Eventually(t, 2*harness.PollTimeout, "the daemon owns its name on the new bus", func() (bool, string) {
		return nameOwned(t, bus.Address), d.Stderr()
	})
	c, err := dbus.Connect(bus.Address)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var version, address string
	var live uint32
	call := c.Object("dev.signaltty1", "/dev/signaltty1").Call("dev.signaltty1.GetStatus", 0)
	if err := call.Store(&version, &address, &live); err != nil || live != 1 || address != d.Address {
		t.Errorf("GetStatus on the new bus: %q %q %d, %v", version, address, live, err)
	}
	if g := d.GetPane(t, p.ID); g.State != "live" {
		t.Errorf("pane after the bus came back: %s", g.State)
	}
	doctorSays("doctor says the daemon is back on the session bus", "session bus: on")
}

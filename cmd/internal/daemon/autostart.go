package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	sd "github.com/coreos/go-systemd/v22/dbus"
	"github.com/godbus/dbus/v5"
	"github.com/signaltty/signaltty/varlink/address"
)

// socketUnit is the user unit that owns the default socket path.
const socketUnit = "signaltty.socket"

// errNoManager means no user manager serves this address: the CLI starts
// the daemon itself.
var errNoManager = errors.New("no user manager with " + socketUnit + " for this address")

// autostart makes a daemon answer at address (docs/systemd.md,
// "Autostart"). When a user manager is reachable and signaltty.socket is
// installed and listens on address, it starts that socket unit (over
// D-Bus, StartUnit) and never forks a daemon: the first connection then
// activates signaltty.service. Only without such a manager does it start
// signalttyd in the background (startDaemon). It reports whether the
// manager was used, and, for a forked daemon, a channel that says why it
// exited if it does.
func autostart(ctx context.Context, addr string) (managed bool, exited <-chan string, err error) {
	err = startSocketUnit(ctx, addr)
	if errors.Is(err, errNoManager) {
		exited, err = startDaemon(addr)
		return false, exited, err
	}
	return true, nil, err
}

// startSocketUnit starts signaltty.socket and waits until it listens.
func startSocketUnit(ctx context.Context, addr string) error {
	path, err := address.SocketPath(addr)
	if err != nil {
		return errNoManager
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := userManager(ctx)
	if err != nil {
		return errNoManager
	}
	defer conn.Close()
	load, err := conn.GetUnitPropertyContext(ctx, socketUnit, "LoadState")
	if err != nil || load.Value.Value() != "loaded" {
		return errNoManager
	}
	if !socketListensOn(ctx, conn, path) {
		return errNoManager
	}
	if st := unitState(ctx, conn, socketUnit); st == "active" {
		// The unit listens, yet the path does not answer: someone removed
		// or replaced the file. Restarting the socket would restart the
		// service and end its panes: that is the user's call.
		return fmt.Errorf("%s is active but %s does not answer; run `systemctl --user restart %s` (this also restarts signaltty.service)",
			socketUnit, path, socketUnit)
	}
	done := make(chan string, 1)
	if err := conn.Subscribe(); err != nil { // job signals on a direct connection
		return fmt.Errorf("user manager: %w", err)
	}
	if _, err := conn.StartUnitContext(ctx, socketUnit, "replace", done); err != nil {
		return fmt.Errorf("starting %s: %w", socketUnit, err)
	}
	select {
	case res := <-done:
		if res != "done" {
			return fmt.Errorf("starting %s: job %s (see `systemctl --user status %s`)", socketUnit, res, socketUnit)
		}
	case <-ctx.Done():
		return fmt.Errorf("starting %s: %w", socketUnit, ctx.Err())
	}
	return nil
}

// userManager connects to the user's systemd: its private socket
// ($XDG_RUNTIME_DIR/systemd/private, as systemctl --user does), else the
// session bus ($DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus), with
// the runtime directory of address.RuntimeDir. It never launches a bus (no
// dbus-launch).
func userManager(ctx context.Context) (*sd.Conn, error) {
	rt := address.RuntimeDir()
	dial := func(addr string, hello bool) (*sd.Conn, error) {
		return sd.NewConnection(func() (*dbus.Conn, error) {
			bus, err := dbus.Dial(addr, dbus.WithContext(ctx))
			if err != nil {
				return nil, err
			}
			if err := bus.Auth([]dbus.Auth{dbus.AuthExternal(strconv.Itoa(os.Getuid()))}); err != nil {
				bus.Close()
				return nil, err
			}
			if hello {
				if err := bus.Hello(); err != nil {
					bus.Close()
					return nil, err
				}
			}
			return bus, nil
		})
	}
	if rt != "" {
		private := filepath.Join(rt, "systemd", "private")
		if _, err := os.Stat(private); err == nil {
			if c, err := dial("unix:path="+private, false); err == nil {
				return c, nil
			}
		}
	}
	addr := os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	if addr == "" && rt != "" {
		if _, err := os.Stat(filepath.Join(rt, "bus")); err == nil {
			addr = "unix:path=" + filepath.Join(rt, "bus")
		}
	}
	if addr == "" {
		return nil, errNoManager
	}
	return dial(addr, true)
}

// socketListensOn reports whether the socket unit's Listen= has path.
func socketListensOn(ctx context.Context, conn *sd.Conn, path string) bool {
	p, err := conn.GetUnitTypePropertyContext(ctx, socketUnit, "Socket", "Listen")
	if err != nil {
		return false
	}
	var listens [][]any
	if err := p.Value.Store(&listens); err != nil {
		return false
	}
	for _, l := range listens {
		if len(l) == 2 && l[1] == path {
			return true
		}
	}
	return false
}

func unitState(ctx context.Context, conn *sd.Conn, unit string) string {
	p, err := conn.GetUnitPropertyContext(ctx, unit, "ActiveState")
	if err != nil {
		return ""
	}
	s, _ := p.Value.Value().(string)
	return s
}

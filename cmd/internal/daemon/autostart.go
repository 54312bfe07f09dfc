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
// exited if it does. user, when not "", describes the user's daemon that
// answers at another address: a forked daemon is then a second one, and
// the client says so on standard error first (warnSecondDaemon).
func autostart(ctx context.Context, addr, user string) (managed bool, exited <-chan string, err error) {
	err = startSocketUnit(ctx, addr)
	if errors.Is(err, errNoManager) {
		if user != "" {
			warnSecondDaemon(addr, user)
		}
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
	if err != nil {
		return errNoManager
	}
	if err := loadStateError(load.Value.Value()); err != nil {
		return err
	}
	if !socketListensOn(ctx, conn, path) {
		return errNoManager
	}
	if err := startLimitError(ctx, conn); err != nil {
		return err
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

// loadStateError is what a socket unit's LoadState means for autostart
// (docs/systemd.md, "Autostart"): nil for loaded; errNoManager only for
// not-found (no such unit: the CLI starts the daemon itself); for masked,
// bad-setting, error and any other state an error naming the unit and the
// command that fixes it. The CLI never starts a daemon outside a manager
// that has the unit but will not start it.
func loadStateError(state any) error {
	switch state {
	case "loaded":
		return nil
	case "not-found":
		return errNoManager
	case "masked":
		return fmt.Errorf("%s is masked, so the user manager will not start it (and signaltty starts no daemon outside it); "+
			"run `systemctl --user unmask %s`", socketUnit, socketUnit)
	}
	return fmt.Errorf("the user manager cannot load %s (LoadState %v); see `systemctl --user status %s`, "+
		"fix the unit file, then run `systemctl --user daemon-reload`", socketUnit, state, socketUnit)
}

// startLimitError reports a tripped start limit: signaltty.service
// started too often in a short time (its Result start-limit-hit, or the
// socket's service-start-limit-hit or trigger-limit-hit). Starting the
// socket again would only fail the next connection, so the CLI does not;
// it says how to reset the limit. nil otherwise, also when the properties
// cannot be read.
func startLimitError(ctx context.Context, conn *sd.Conn) error {
	const service = "signaltty.service"
	svc, _ := conn.GetUnitTypePropertyContext(ctx, service, "Service", "Result")
	sock, _ := conn.GetUnitTypePropertyContext(ctx, socketUnit, "Socket", "Result")
	result := func(p *sd.Property) string {
		if p == nil {
			return ""
		}
		s, _ := p.Value.Value().(string)
		return s
	}
	switch r := result(sock); {
	case result(svc) == "start-limit-hit", r == "service-start-limit-hit", r == "trigger-limit-hit":
		return fmt.Errorf("%s was started too often in a short time and hit the user manager's start limit (%s: %s, %s: %s); "+
			"see why it failed with `journalctl --user -u %s` (or `systemctl --user status %s`), "+
			"then run `systemctl --user reset-failed %s %s`",
			service, service, result(svc), socketUnit, r, service, service, service, socketUnit)
	}
	return nil
}

// lostToStartLimit explains a connection to addr lost before any reply:
// when signaltty.socket listens on addr's path and the user manager says
// the service's start limit tripped (startLimitError), that error; nil
// otherwise. It asks the manager only on this path (a lost connection),
// for at most 2 s.
func lostToStartLimit(addr string) error {
	path, err := address.SocketPath(addr)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	conn, err := userManager(ctx)
	if err != nil {
		return nil
	}
	defer conn.Close()
	if load, err := conn.GetUnitPropertyContext(ctx, socketUnit, "LoadState"); err != nil || load.Value.Value() != "loaded" ||
		!socketListensOn(ctx, conn, path) {
		return nil
	}
	return startLimitError(ctx, conn)
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

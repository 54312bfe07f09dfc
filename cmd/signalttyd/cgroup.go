package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"time"

	sd "github.com/coreos/go-systemd/v22/dbus"
	"github.com/godbus/dbus/v5"
	"github.com/signaltty/signaltty/cgroup"
	"golang.org/x/sys/unix"
)

// setupCgroups decides how panes are contained (docs/systemd.md, "One
// cgroup per pane"): with a delegated cgroup (Delegate=yes on the unit
// this daemon runs as) each pane gets a cgroup of its own; otherwise none,
// and the reason says why. $SIGNALTTY_CGROUPS=off turns it off.
func setupCgroups() (*cgroup.Tree, string) {
	if os.Getenv("SIGNALTTY_CGROUPS") == "off" {
		return nil, "turned off by SIGNALTTY_CGROUPS=off"
	}
	unit := ownUnit()
	if unit == "" {
		return nil, "not started by systemd"
	}
	dir, err := cgroup.Own()
	if err != nil {
		return nil, err.Error()
	}
	if !delegated(unit, dir) {
		return nil, unit + " has no Delegate=yes"
	}
	t, err := cgroup.Setup(dir)
	if err != nil {
		return nil, err.Error()
	}
	return t, ""
}

// delegated asks the user manager for the unit's Delegate= property; a
// cgroup marked with the delegate xattr counts too.
func delegated(unit, dir string) bool {
	for _, attr := range []string{"trusted.delegate", "user.delegate"} {
		b := make([]byte, 8)
		if n, err := unix.Getxattr(dir, attr, b); err == nil && string(b[:n]) == "1" {
			return true
		}
	}
	rt := os.Getenv("XDG_RUNTIME_DIR")
	if rt == "" {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := sd.NewConnection(func() (*dbus.Conn, error) {
		bus, err := dbus.Dial("unix:path="+filepath.Join(rt, "systemd", "private"), dbus.WithContext(ctx))
		if err != nil {
			return nil, err
		}
		if err := bus.Auth([]dbus.Auth{dbus.AuthExternal(strconv.Itoa(os.Getuid()))}); err != nil {
			bus.Close()
			return nil, err
		}
		return bus, nil
	})
	if err != nil {
		return false
	}
	defer conn.Close()
	p, err := conn.GetServicePropertyContext(ctx, unit, "Delegate")
	if err != nil {
		return false
	}
	d, _ := p.Value.Value().(bool)
	return d
}

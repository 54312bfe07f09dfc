package main

import (
	"errors"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
	"github.com/godbus/dbus/v5/prop"
	"github.com/signaltty/signaltty/service"
	"github.com/signaltty/signaltty/service/events"
	"golang.org/x/sys/unix"
)

// The daemon's name on the user's session bus (docs/dbus.md): a thin
// adapter over the service's status and typed events, so that status bars
// and notifiers can follow signaltty without polling or speaking varlink.
const (
	busName  = "dev.signaltty1"
	busPath  = dbus.ObjectPath("/dev/signaltty1")
	busIface = "dev.signaltty1"
)

// busObject serves method calls on /dev/signaltty1.
type busObject struct {
	conn *dbus.Conn
	svc  *service.Service
}

// GetStatus returns Version, Address and LivePanes in one call. Only the
// daemon's own uid may call (a bus that lets other users connect must not
// let them reach the daemon).
func (o *busObject) GetStatus(sender dbus.Sender) (string, string, uint32, *dbus.Error) {
	if err := o.checkCaller(sender); err != nil {
		return "", "", 0, err
	}
	st := o.svc.Status()
	return st.Version, st.Address, uint32(st.LivePanes), nil
}

func (o *busObject) checkCaller(sender dbus.Sender) *dbus.Error {
	var uid uint32
	if err := o.conn.BusObject().Call("org.freedesktop.DBus.GetConnectionUnixUser", 0, string(sender)).Store(&uid); err != nil {
		return dbus.MakeFailedError(err)
	}
	if int(uid) != os.Getuid() {
		return dbus.NewError("org.freedesktop.DBus.Error.AccessDenied",
			[]any{"signalttyd serves only uid " + strconv.Itoa(os.Getuid())})
	}
	return nil
}

// busExport is the owned name and what follows the service for it.
type busExport struct {
	conn   *dbus.Conn
	props  *prop.Properties
	subMu  sync.Mutex // guards sub: follow replaces it after a lag
	sub    *service.Subscription
	log    *slog.Logger
	notify notifyWhat // desktop notifications ($SIGNALTTY_NOTIFY)
}

// notifyWhat is what $SIGNALTTY_NOTIFY asks desktop notifications for: a
// comma-separated list of "failed-runs" (a run that did not succeed) and
// "needs-input" (a pane's attention rose to input_required,
// permission_required or error); unset: none.
type notifyWhat struct{ failedRuns, needsInput bool }

func parseNotify(v string) notifyWhat {
	var n notifyWhat
	for _, w := range strings.Split(v, ",") {
		switch strings.TrimSpace(w) {
		case "failed-runs":
			n.failedRuns = true
		case "needs-input":
			n.needsInput = true
		}
	}
	return n
}

// busEvents are the events the bus export follows.
var busEvents = []string{"pane.created", "pane.relaunched", "pane.exited", "pane.removed", "run.completed", "attention"}

// startBus connects to the session bus ($DBUS_SESSION_BUS_ADDRESS, else
// $XDG_RUNTIME_DIR/bus), exports /dev/signaltty1 and requests the name.
// Without a session bus it returns nil and why, in words (the reason
// Server.GetStatus reports in session_bus): the daemon works without
// D-Bus. $SIGNALTTY_DBUS=0 turns it off (reason "SIGNALTTY_DBUS=0").
func startBus(log *slog.Logger, svc *service.Service, version, address string) (*busExport, string) {
	if os.Getenv("SIGNALTTY_DBUS") == "0" {
		return nil, "SIGNALTTY_DBUS=0"
	}
	addr := os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	if addr == "" { // the user manager's environment often lacks it
		rt := os.Getenv("XDG_RUNTIME_DIR")
		if rt == "" {
			reason := "neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set"
			log.Info("no session bus: not on D-Bus", "reason", reason)
			return nil, reason
		}
		if _, err := os.Stat(rt + "/bus"); err != nil {
			reason := "DBUS_SESSION_BUS_ADDRESS is unset and " + rt + "/bus is missing (Debian: dbus-user-session)"
			log.Info("no session bus: not on D-Bus", "reason", reason)
			return nil, reason
		}
		addr = "unix:path=" + rt + "/bus"
	}
	conn, err := dbus.Dial(addr)
	if err == nil {
		if err = conn.Auth(nil); err == nil {
			err = conn.Hello()
		}
	}
	if err != nil {
		if conn != nil {
			conn.Close()
		}
		log.Info("no session bus: not on D-Bus", "err", err)
		return nil, "cannot connect to " + addr + ": " + err.Error()
	}
	obj := &busObject{conn: conn, svc: svc}
	if err := conn.Export(obj, busPath, busIface); err != nil {
		conn.Close()
		log.Warn("D-Bus export failed", "err", err)
		return nil, "exporting " + string(busPath) + ": " + err.Error()
	}
	st := svc.Status()
	props, err := prop.Export(conn, busPath, prop.Map{busIface: {
		"Version":   {Value: version, Emit: prop.EmitConst},
		"Address":   {Value: address, Emit: prop.EmitConst},
		"LivePanes": {Value: uint32(st.LivePanes), Emit: prop.EmitTrue},
		// The most urgent attention of any pane (docs/agents.md, "Attention").
		"Attention": {Value: highestAttention(svc), Emit: prop.EmitTrue},
	}})
	if err != nil {
		conn.Close()
		log.Warn("D-Bus properties export failed", "err", err)
		return nil, "exporting the properties of " + string(busPath) + ": " + err.Error()
	}
	node := &introspect.Node{Name: string(busPath), Interfaces: []introspect.Interface{
		introspect.IntrospectData, prop.IntrospectData,
		{Name: busIface, Properties: props.Introspection(busIface), Methods: busIntrospectMethods(), Signals: busIntrospectSignals()},
	}}
	conn.Export(introspect.NewIntrospectable(node), busPath, "org.freedesktop.DBus.Introspectable")
	reply, err := conn.RequestName(busName, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		if err == nil {
			err = errors.New("the name has another owner (another signalttyd?)")
		}
		log.Warn("not owning "+busName+" on the session bus", "err", err)
		conn.Close()
		return nil, "not owning " + busName + ": " + err.Error()
	}
	b := &busExport{conn: conn, props: props, log: log, notify: parseNotify(os.Getenv("SIGNALTTY_NOTIFY")),
		sub: svc.Subscribe(service.Filter{Types: busEvents}, false)}
	go b.follow(svc)
	log.Info("on the session bus", "name", busName, "path", string(busPath))
	return b, ""
}

// follow turns the service's events into property changes and signals.
func (b *busExport) follow(svc *service.Service) {
	for {
		for e := range b.sub.Events {
			switch d := e.Data.(type) {
			case events.RunCompleted:
				b.conn.Emit(busPath, busIface+".RunCompleted", d.Run, d.Pane, d.Outcome, runStatus(d.RunResult))
				if b.notify.failedRuns && d.Outcome != service.OutcomeSucceeded {
					b.notifyRun(d)
				}
			case events.AttentionCreated:
				b.attentionChanged(svc, d.Pane, d.Attention)
			case events.AttentionUpdated:
				b.attentionChanged(svc, d.Pane, d.Attention)
			case events.AttentionCleared:
				b.attentionChanged(svc, d.Pane, "none")
			default:
				b.props.SetMust(busIface, "LivePanes", uint32(svc.Status().LivePanes))
			}
		}
		b.subMu.Lock()
		if !b.sub.Lagged() {
			b.subMu.Unlock()
			return // closed: shutdown, or the bus was lost
		}
		b.sub = svc.Subscribe(service.Filter{Types: busEvents}, false)
		b.subMu.Unlock()
		b.props.SetMust(busIface, "LivePanes", uint32(svc.Status().LivePanes))
		b.props.SetMust(busIface, "Attention", highestAttention(svc))
	}
}

// highestAttention is the Attention property's value.
func highestAttention(svc *service.Service) string {
	a, _ := svc.HighestAttention()
	return a
}

// attentionChanged emits AttentionChanged(pane, attention), updates the
// Attention property and, when asked for, notifies a pane that needs input.
func (b *busExport) attentionChanged(svc *service.Service, pane, attention string) {
	b.conn.Emit(busPath, busIface+".AttentionChanged", pane, attention)
	b.props.SetMust(busIface, "Attention", highestAttention(svc))
	switch attention {
	case "input_required", "permission_required", "error":
		if b.notify.needsInput {
			b.desktopNotify("signaltty: a pane needs you", "pane "+pane+": "+attention)
		}
	}
}

// notifyRun shows a desktop notification for a run that did not succeed
// (org.freedesktop.Notifications.Notify; not waited for: a missing
// notification daemon costs nothing).
func (b *busExport) notifyRun(d events.RunCompleted) {
	body := "run " + d.Run + " in pane " + d.Pane + ": " + d.Outcome + ", status " + strconv.Itoa(int(runStatus(d.RunResult)))
	b.desktopNotify("signaltty: run "+d.Outcome, body)
}

// desktopNotify shows a notification (org.freedesktop.Notifications.Notify,
// normal urgency), not waited for and never activating a notification
// daemon: a missing one costs nothing.
func (b *busExport) desktopNotify(summary, body string) {
	b.conn.Object("org.freedesktop.Notifications", "/org/freedesktop/Notifications").Go(
		"org.freedesktop.Notifications.Notify", dbus.FlagNoAutoStart, nil,
		"signaltty", uint32(0), "utilities-terminal", summary, body,
		[]string{}, map[string]dbus.Variant{"urgency": dbus.MakeVariant(byte(1))}, int32(-1))
}

// runStatus is the run's status as `signaltty run wait` exits with it: the
// exit code, or 128+N for signal N; -1 when neither is known.
func runStatus(r events.RunResult) int32 {
	switch {
	case r.ExitCode != nil:
		return int32(*r.ExitCode)
	case r.Signal != "":
		if n := unix.SignalNum(r.Signal); n != 0 {
			return 128 + int32(n)
		}
	}
	return -1
}

// close releases the name (a restarted daemon takes it again).
func (b *busExport) close() {
	if b == nil {
		return
	}
	b.closeSub()
	b.conn.ReleaseName(busName)
	b.conn.Close()
}

func busIntrospectMethods() []introspect.Method {
	return []introspect.Method{{Name: "GetStatus", Args: []introspect.Arg{
		{Name: "version", Type: "s", Direction: "out"},
		{Name: "address", Type: "s", Direction: "out"},
		{Name: "live_panes", Type: "u", Direction: "out"},
	}}}
}

func busIntrospectSignals() []introspect.Signal {
	return []introspect.Signal{{Name: "RunCompleted", Args: []introspect.Arg{
		{Name: "run", Type: "s"}, {Name: "pane", Type: "s"}, {Name: "outcome", Type: "s"}, {Name: "status", Type: "i"},
	}}, {Name: "AttentionChanged", Args: []introspect.Arg{{Name: "pane", Type: "s"}, {Name: "attention", Type: "s"}}}}
}

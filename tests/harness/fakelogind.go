package harness

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// FakeLogind is an in-process org.freedesktop.login1 on a private bus for
// the cases the real logind cannot produce on demand. Like the real one it
// refuses a delay inhibitor while PreparingForShutdown is true, unless
// InhibitWhilePreparing is set.
type FakeLogind struct {
	bus    *Bus
	conn   *dbus.Conn // owns the name; every incoming message comes to us
	lookup *dbus.Conn // for GetConnectionUnixProcessID
	delay  time.Duration

	mu                    sync.Mutex
	refuse                string // D-Bus error name for Inhibit, "" accepts
	preparing             bool
	inhibitWhilePreparing bool
	inh                   map[int]*fakeInhibitor
	next                  int
	calls                 []time.Time
}

type fakeInhibitor struct {
	Inhibitor
	released chan struct{}
}

// FakeLogindOptions configure StartFakeLogind.
type FakeLogindOptions struct {
	Delay                 time.Duration // InhibitDelayMaxUSec (default 5 s)
	Refuse                string        // D-Bus error name Inhibit fails with ("" accepts)
	Preparing             bool          // PreparingForShutdown at start
	InhibitWhilePreparing bool          // grant Inhibit while preparing (the real logind refuses)
}

// StartFakeLogind owns org.freedesktop.login1 on bus until cleanup (or Close).
func StartFakeLogind(t testing.TB, bus *Bus, o FakeLogindOptions) *FakeLogind {
	t.Helper()
	if o.Delay == 0 {
		o.Delay = 5 * time.Second
	}
	f := &FakeLogind{bus: bus, delay: o.Delay, refuse: o.Refuse, preparing: o.Preparing,
		inhibitWhilePreparing: o.InhibitWhilePreparing, inh: map[int]*fakeInhibitor{}}
	var err error
	if f.lookup, err = dbus.Connect(bus.Address); err != nil {
		t.Fatalf("fake logind: %v", err)
	}
	if f.conn, err = dbus.Connect(bus.Address); err != nil {
		t.Fatalf("fake logind: %v", err)
	}
	in := make(chan *dbus.Message, 1024)
	// Every message to this connection comes to us raw, so that our copy
	// of an inhibitor's write end can be closed right after the reply
	// carrying it was sent. This starts before the name is owned, as a
	// real logind serves its object before it takes the name: a client
	// that sees the name appear and calls at once must reach us, not
	// godbus's "Object does not implement the interface" answer.
	f.conn.Eavesdrop(in)
	go func() {
		for msg := range in {
			if msg.Type == dbus.TypeMethodCall {
				go f.handle(msg)
			}
		}
	}()
	f.own(t)
	t.Cleanup(f.Close)
	return f
}

// own takes org.freedesktop.login1. Replies to this connection come raw
// too, so RequestName goes out without asking for one and the name's
// owner is read back over the lookup connection.
func (f *FakeLogind) own(t testing.TB) {
	t.Helper()
	req := &dbus.Message{Type: dbus.TypeMethodCall, Flags: dbus.FlagNoReplyExpected, Headers: map[dbus.HeaderField]dbus.Variant{
		dbus.FieldDestination: dbus.MakeVariant("org.freedesktop.DBus"),
		dbus.FieldPath:        dbus.MakeVariant(dbus.ObjectPath("/org/freedesktop/DBus")),
		dbus.FieldInterface:   dbus.MakeVariant("org.freedesktop.DBus"),
		dbus.FieldMember:      dbus.MakeVariant("RequestName"),
		dbus.FieldSignature:   dbus.MakeVariant(dbus.SignatureOf(login1Name, uint32(0))),
	}, Body: []any{login1Name, uint32(dbus.NameFlagDoNotQueue)}}
	if c := f.conn.Send(req, nil); c.Err != nil {
		t.Fatalf("fake logind: RequestName: %v", c.Err)
	}
	me := f.conn.Names()[0]
	var owner string
	Eventually(t, PollTimeout, "the fake logind owns "+login1Name, func() (bool, string) {
		err := f.lookup.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, login1Name).Store(&owner)
		return err == nil && owner == me, fmt.Sprintf("owner %q (%v), want %s", owner, err, me)
	})
}

// Close leaves the bus (a logind that goes away); inhibitors are dropped.
func (f *FakeLogind) Close() {
	f.conn.Close()
	f.lookup.Close()
}

// SetRefuse makes Inhibit fail with the D-Bus error name ("" accepts again).
func (f *FakeLogind) SetRefuse(name string) {
	f.mu.Lock()
	f.refuse = name
	f.mu.Unlock()
}

// SetPreparing sets the PreparingForShutdown property without a signal.
func (f *FakeLogind) SetPreparing(b bool) {
	f.mu.Lock()
	f.preparing = b
	f.mu.Unlock()
}

// Emit sends PrepareForShutdown(start) from logind's connection, and sets
// PreparingForShutdown to start.
func (f *FakeLogind) Emit(start bool) {
	f.SetPreparing(start)
	f.conn.Emit(login1Path, login1Iface+".PrepareForShutdown", start)
}

// InhibitCalls returns when each Inhibit call (granted or refused) came.
func (f *FakeLogind) InhibitCalls() []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time{}, f.calls...)
}

// Inhibitors lists the inhibitors whose descriptor is still open.
func (f *FakeLogind) Inhibitors() []Inhibitor {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := []Inhibitor{}
	for _, i := range f.inh {
		out = append(out, i.Inhibitor)
	}
	return out
}

func (f *FakeLogind) handle(msg *dbus.Message) {
	member, _ := msg.Headers[dbus.FieldMember].Value().(string)
	iface, _ := msg.Headers[dbus.FieldInterface].Value().(string)
	path, _ := msg.Headers[dbus.FieldPath].Value().(dbus.ObjectPath)
	if iface == "org.freedesktop.DBus.Peer" && member == "Ping" {
		f.reply(msg)
		return
	}
	if path != login1Path {
		f.replyErr(msg, "org.freedesktop.DBus.Error.UnknownObject", "no such object")
		return
	}
	switch iface + "." + member {
	case login1Iface + ".Inhibit":
		f.inhibit(msg)
	case login1Iface + ".ListInhibitors":
		f.reply(msg, f.Inhibitors())
	case "org.freedesktop.DBus.Properties.Get":
		var ifc, name string
		if err := dbus.Store(msg.Body, &ifc, &name); err != nil || ifc != login1Iface {
			f.replyErr(msg, "org.freedesktop.DBus.Error.InvalidArgs", "bad arguments")
			return
		}
		v, ok := f.props()[name]
		if !ok {
			f.replyErr(msg, "org.freedesktop.DBus.Error.UnknownProperty", "unknown property "+name)
			return
		}
		f.reply(msg, v)
	case "org.freedesktop.DBus.Properties.GetAll":
		f.reply(msg, f.props())
	default:
		f.replyErr(msg, "org.freedesktop.DBus.Error.UnknownMethod", "unknown method "+iface+"."+member)
	}
}

func (f *FakeLogind) props() map[string]dbus.Variant {
	f.mu.Lock()
	defer f.mu.Unlock()
	return map[string]dbus.Variant{
		"PreparingForShutdown": dbus.MakeVariant(f.preparing),
		"PreparingForSleep":    dbus.MakeVariant(false),
		"InhibitDelayMaxUSec":  dbus.MakeVariant(uint64(f.delay / time.Microsecond)),
	}
}

func (f *FakeLogind) inhibit(msg *dbus.Message) {
	var i fakeInhibitor
	if err := dbus.Store(msg.Body, &i.What, &i.Who, &i.Why, &i.Mode); err != nil {
		f.replyErr(msg, "org.freedesktop.DBus.Error.InvalidArgs", err.Error())
		return
	}
	f.mu.Lock()
	f.calls = append(f.calls, time.Now())
	refuse, preparing, allow := f.refuse, f.preparing, f.inhibitWhilePreparing
	f.mu.Unlock()
	switch {
	case refuse != "":
		f.replyErr(msg, refuse, "fake logind: Inhibit refused")
		return
	case preparing && !allow && i.Mode == "delay":
		f.replyErr(msg, "org.freedesktop.login1.OperationInProgress", "The operation inhibition has been requested for is already running")
		return
	}
	if sender, ok := msg.Headers[dbus.FieldSender].Value().(string); ok {
		var pid uint32
		if f.lookup.BusObject().Call("org.freedesktop.DBus.GetConnectionUnixProcessID", 0, sender).Store(&pid) == nil {
			i.PID = pid
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		f.replyErr(msg, "org.freedesktop.DBus.Error.Failed", err.Error())
		return
	}
	i.released = make(chan struct{})
	f.mu.Lock()
	f.next++
	id := f.next
	f.inh[id] = &i
	f.mu.Unlock()
	f.reply(msg, dbus.UnixFD(w.Fd())) // sendmsg(2) is done when this returns
	w.Close()
	go func() { // EOF: every copy of the write end is closed
		buf := make([]byte, 16)
		for {
			if _, err := r.Read(buf); err != nil {
				break
			}
		}
		r.Close()
		f.mu.Lock()
		delete(f.inh, id)
		f.mu.Unlock()
		close(i.released)
	}()
}

func (f *FakeLogind) reply(call *dbus.Message, body ...any) {
	if call.Flags&dbus.FlagNoReplyExpected != 0 {
		return
	}
	m := &dbus.Message{Type: dbus.TypeMethodReply, Headers: map[dbus.HeaderField]dbus.Variant{
		dbus.FieldDestination: call.Headers[dbus.FieldSender],
		dbus.FieldReplySerial: dbus.MakeVariant(call.Serial()),
	}, Body: body}
	if len(body) > 0 {
		m.Headers[dbus.FieldSignature] = dbus.MakeVariant(dbus.SignatureOf(body...))
	}
	f.conn.Send(m, nil)
}

func (f *FakeLogind) replyErr(call *dbus.Message, name, text string) {
	m := &dbus.Message{Type: dbus.TypeError, Headers: map[dbus.HeaderField]dbus.Variant{
		dbus.FieldDestination: call.Headers[dbus.FieldSender],
		dbus.FieldReplySerial: dbus.MakeVariant(call.Serial()),
		dbus.FieldErrorName:   dbus.MakeVariant(name),
		dbus.FieldSignature:   dbus.MakeVariant(dbus.SignatureOf(text)),
	}, Body: []any{text}}
	f.conn.Send(m, nil)
}

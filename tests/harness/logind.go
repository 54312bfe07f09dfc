package harness

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// Host-shutdown tests (the daemon's logind monitor) run against a private
// system bus (private-bus.sh) with either the REAL systemd-logind
// (private-logind.sh, in its own mount namespace) or FakeLogind, an
// in-process org.freedesktop.login1 for what the real one cannot do on
// demand (refuse Inhibit, announce a shutdown without going through one).
// With fakesystemd1 on the bus, the real logind runs its whole PowerOff
// protocol (PrepareForShutdown(true), wait for delay inhibitors,
// StartUnit refused, PrepareForShutdown(false)); nothing shuts down.
//
// They need root (mount namespaces, owning org.freedesktop.login1 under the
// system bus policy), dbus-daemon and /usr/lib/systemd/systemd-logind;
// tests/run installs the packages. Like every end-to-end test they never skip.

const (
	login1Name  = "org.freedesktop.login1"
	login1Path  = dbus.ObjectPath("/org/freedesktop/login1")
	login1Iface = "org.freedesktop.login1.Manager"
)

// Inhibitor is one row of logind's ListInhibitors.
type Inhibitor struct {
	What, Who, Why, Mode string
	UID, PID             uint32
}

func (i Inhibitor) String() string {
	return fmt.Sprintf("%s/%s who=%q why=%q uid=%d pid=%d", i.What, i.Mode, i.Who, i.Why, i.UID, i.PID)
}

// LogindEnv is the daemon environment that turns its logind monitor on and
// points it at the private bus address.
func LogindEnv(address string) []string {
	return []string{"SIGNALTTY_LOGIND=1", "DBUS_SYSTEM_BUS_ADDRESS=" + address}
}

func needLogindTools(t testing.TB, real bool) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the logind tests run logind in a private mount namespace, owning org.freedesktop.login1")
	}
	need := []string{"dbus-daemon"}
	if real {
		need = append(need, "busctl", "unshare", "/usr/lib/systemd/systemd-logind")
	}
	for _, p := range need {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("the logind tests need %s (Debian packages dbus, systemd, util-linux; tests/run installs them): %v", p, err)
		}
	}
}

func harnessScript(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(ModuleRoot(t), "tests", "harness", name)
}

// Bus is a private dbus-daemon with the system bus policy (private-bus.sh).
type Bus struct {
	Dir     string
	Address string // "unix:path=<Dir>/bus", known before the bus runs
}

// NewBus returns a bus in a new directory without starting it (tests of a
// bus that appears later); StartBus starts one.
func NewBus(t testing.TB) *Bus {
	t.Helper()
	needLogindTools(t, false)
	dir := filepath.Join(TempDir(t), "bus")
	b := &Bus{Dir: dir, Address: "unix:path=" + filepath.Join(dir, "bus")}
	t.Cleanup(func() { b.Stop(t) })
	return b
}

// StartBus starts a private system bus, stopped at cleanup.
func StartBus(t testing.TB) *Bus {
	t.Helper()
	b := NewBus(t)
	b.Start(t)
	return b
}

// Start starts the bus daemon (nothing if it runs).
func (b *Bus) Start(t testing.TB) {
	t.Helper()
	if r := Run(t, os.Environ(), "bash", harnessScript(t, "private-bus.sh"), "start", b.Dir, "system"); r.Code != 0 {
		t.Fatalf("private-bus.sh start failed:\n%s", r)
	}
}

// Stop ends the bus daemon (by its pid; idempotent).
func (b *Bus) Stop(t testing.TB) {
	t.Helper()
	if r := Run(t, os.Environ(), "bash", harnessScript(t, "private-bus.sh"), "stop", b.Dir); r.Code != 0 {
		t.Errorf("private-bus.sh stop failed:\n%s", r)
	}
}

// Connect opens a connection to the bus, closed at cleanup.
func (b *Bus) Connect(t testing.TB) *dbus.Conn {
	t.Helper()
	c, err := dbus.Connect(b.Address)
	if err != nil {
		t.Fatalf("connecting to the private bus %s: %v", b.Address, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Inhibitors lists logind's inhibitors through a new connection (whoever
// owns org.freedesktop.login1 on the bus answers).
func (b *Bus) Inhibitors() ([]Inhibitor, error) {
	c, err := dbus.Connect(b.Address)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var rows []Inhibitor
	err = c.Object(login1Name, login1Path).Call(login1Iface+".ListInhibitors", 0).Store(&rows)
	return rows, err
}

// WaitInhibitor polls until the bus's logind lists a delay inhibitor for
// shutdown of who "signaltty" held by pid, and returns it.
func (b *Bus) WaitInhibitor(t testing.TB, pid int, timeout time.Duration) Inhibitor {
	t.Helper()
	var found Inhibitor
	Eventually(t, timeout, fmt.Sprintf("logind lists signaltty's delay inhibitor (pid %d)", pid), func() (bool, string) {
		rows, err := b.Inhibitors()
		if err != nil {
			return false, err.Error()
		}
		for _, i := range rows {
			if i.Who == "signaltty" && i.Mode == "delay" && i.What == "shutdown" && (pid == 0 || int(i.PID) == pid) {
				found = i
				return true, ""
			}
		}
		return false, dumpInhibitors(rows)
	})
	return found
}

// SignalttyInhibitors returns the inhibitors whose who is "signaltty".
func (b *Bus) SignalttyInhibitors(t testing.TB) []Inhibitor {
	t.Helper()
	rows, err := b.Inhibitors()
	if err != nil {
		t.Fatalf("ListInhibitors: %v", err)
	}
	var out []Inhibitor
	for _, i := range rows {
		if i.Who == "signaltty" {
			out = append(out, i)
		}
	}
	return out
}

func dumpInhibitors(rows []Inhibitor) string {
	if len(rows) == 0 {
		return "(no inhibitors)"
	}
	var s []string
	for _, i := range rows {
		s = append(s, i.String())
	}
	return strings.Join(s, "\n")
}

// PrepareEvent is one PrepareForShutdown signal as a test connection saw it.
type PrepareEvent struct {
	Start bool
	At    time.Time
}

// PrepareWatch records logind's PrepareForShutdown signals on a bus.
type PrepareWatch struct {
	mu     sync.Mutex
	events []PrepareEvent
	cond   chan struct{} // replaced at each event
}

// WatchPrepare subscribes to PrepareForShutdown (from the owner of
// org.freedesktop.login1) and records every signal with its arrival time.
func (b *Bus) WatchPrepare(t testing.TB) *PrepareWatch {
	t.Helper()
	c, err := dbus.Connect(b.Address, dbus.WithSignalHandler(dbus.NewSequentialSignalHandler()))
	if err != nil {
		t.Fatalf("connecting to the private bus: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.AddMatchSignal(dbus.WithMatchSender(login1Name), dbus.WithMatchInterface(login1Iface),
		dbus.WithMatchMember("PrepareForShutdown")); err != nil {
		t.Fatalf("AddMatch: %v", err)
	}
	w := &PrepareWatch{cond: make(chan struct{})}
	ch := make(chan *dbus.Signal, 64)
	c.Signal(ch)
	go func() {
		for sig := range ch {
			var start bool
			if sig.Name != login1Iface+".PrepareForShutdown" || dbus.Store(sig.Body, &start) != nil {
				continue
			}
			w.mu.Lock()
			w.events = append(w.events, PrepareEvent{Start: start, At: time.Now()})
			close(w.cond)
			w.cond = make(chan struct{})
			w.mu.Unlock()
		}
	}()
	return w
}

// Events returns the signals seen so far.
func (w *PrepareWatch) Events() []PrepareEvent {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]PrepareEvent{}, w.events...)
}

// Wait waits for the n-th signal (1-based) and returns it.
func (w *PrepareWatch) Wait(t testing.TB, n int, timeout time.Duration) PrepareEvent {
	t.Helper()
	deadline := time.After(timeout)
	for {
		w.mu.Lock()
		if len(w.events) >= n {
			e := w.events[n-1]
			w.mu.Unlock()
			return e
		}
		cond := w.cond
		w.mu.Unlock()
		select {
		case <-cond:
		case <-deadline:
			t.Fatalf("PrepareForShutdown signal #%d not seen within %v; seen: %+v", n, timeout, w.Events())
		}
	}
}

// Logind is the real systemd-logind on a private system bus.
type Logind struct {
	*Bus
	Dir      string // private-logind.sh's directory (the bus is in Dir/bus)
	Delay    int    // InhibitDelayMaxSec
	systemd1 *exec.Cmd
	s1done   chan struct{}
}

// LogindOptions configure StartLogind.
type LogindOptions struct {
	// Delay is logind's InhibitDelayMaxSec (default 5).
	Delay int
	// Systemd1 puts fakesystemd1 on the bus first, so that PowerOff runs
	// the inhibitor protocol (without it logind refuses PowerOff).
	Systemd1 bool
	// NotStarted prepares the directories and the address only (a bus and
	// logind that appear later: call Start).
	NotStarted bool
}

// StartLogind starts the real logind on a new private bus; everything is
// stopped at cleanup.
func StartLogind(t testing.TB, o LogindOptions) *Logind {
	t.Helper()
	needLogindTools(t, true)
	dir := filepath.Join(TempDir(t), "l")
	if o.Delay == 0 {
		o.Delay = 5
	}
	l := &Logind{Bus: &Bus{Dir: filepath.Join(dir, "bus"), Address: "unix:path=" + filepath.Join(dir, "bus", "bus")},
		Dir: dir, Delay: o.Delay}
	t.Cleanup(func() { l.Stop(t) })
	if o.Systemd1 {
		fakeSystemd1Bin(t) // built now: Start may be timed
	}
	if !o.NotStarted {
		l.Start(t, o.Systemd1)
	}
	return l
}

// Start starts the bus if it is down, fakesystemd1 when asked, and logind.
func (l *Logind) Start(t testing.TB, systemd1 bool) {
	t.Helper()
	l.Bus.Start(t)
	if systemd1 && l.systemd1 == nil {
		l.startSystemd1(t)
	}
	l.startLogind(t)
}

func (l *Logind) startLogind(t testing.TB) {
	t.Helper()
	env := append(os.Environ(), "PL_DELAY="+strconv.Itoa(l.Delay))
	if r := Run(t, env, "bash", harnessScript(t, "private-logind.sh"), "start", l.Dir); r.Code != 0 {
		t.Fatalf("private-logind.sh start failed:\n%s\nlogind.log:\n%s", r, l.Log())
	}
}

func (l *Logind) startSystemd1(t testing.TB) {
	t.Helper()
	cmd := exec.Command(fakeSystemd1Bin(t))
	cmd.Env = append(os.Environ(), "DBUS_SYSTEM_BUS_ADDRESS="+l.Address)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting fakesystemd1: %v", err)
	}
	l.systemd1, l.s1done = cmd, make(chan struct{})
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sent := false
		for sc.Scan() {
			if !sent && sc.Text() == "READY" {
				ready <- true
				sent = true
			}
		}
		if !sent {
			ready <- false
		}
		cmd.Wait()
		close(l.s1done)
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("fakesystemd1 exited before READY")
		}
	case <-time.After(PollTimeout):
		t.Fatal("fakesystemd1 not ready within", PollTimeout)
	}
}

// LogindPid is the running logind's pid (0 when none).
func (l *Logind) LogindPid() int {
	b, err := os.ReadFile(filepath.Join(l.Dir, "pid"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// StopLogind ends logind only (the bus stays): with Start, a logind restart.
// Its inhibitor state (in its private /run/systemd) goes with it.
func (l *Logind) StopLogind(t testing.TB) {
	t.Helper()
	pid := l.LogindPid()
	if pid == 0 {
		return
	}
	syscall.Kill(pid, syscall.SIGTERM)
	WaitGone(t, PollTimeout, "logind exited", pid)
	os.Remove(filepath.Join(l.Dir, "pid"))
}

// Restart stops logind and starts a new one on the same bus.
func (l *Logind) Restart(t testing.TB) {
	t.Helper()
	l.StopLogind(t)
	l.startLogind(t)
}

// Stop ends logind, fakesystemd1 and the bus (idempotent).
func (l *Logind) Stop(t testing.TB) {
	t.Helper()
	if r := Run(t, os.Environ(), "bash", harnessScript(t, "private-logind.sh"), "stop", l.Dir); r.Code != 0 {
		t.Errorf("private-logind.sh stop failed:\n%s", r)
	}
	if l.systemd1 != nil {
		l.systemd1.Process.Kill()
		<-l.s1done
		l.systemd1 = nil
	}
}

// Log returns logind's output so far.
func (l *Logind) Log() string {
	b, _ := os.ReadFile(filepath.Join(l.Dir, "logind.log"))
	return string(b)
}

// PowerOff calls logind's PowerOff(false), as `busctl call … PowerOff b false`.
func (l *Logind) PowerOff(t testing.TB) {
	t.Helper()
	r := Run(t, os.Environ(), "busctl", "--address="+l.Address, "call", login1Name, string(login1Path), login1Iface, "PowerOff", "b", "false")
	if r.Code != 0 {
		t.Fatalf("PowerOff failed:\n%s\nlogind.log:\n%s", r, l.Log())
	}
}

// Property reads a property of logind's manager.
func (b *Bus) Property(t testing.TB, name string, out any) {
	t.Helper()
	c := b.Connect(t)
	defer c.Close()
	v, err := c.Object(login1Name, login1Path).GetProperty(login1Iface + "." + name)
	if err != nil {
		t.Fatalf("reading %s: %v", name, err)
	}
	if err := v.Store(out); err != nil {
		t.Fatalf("reading %s: %v", name, err)
	}
}

// HoldDelay takes a delay inhibitor for shutdown in the test process (who
// "test"), as another program on the machine would; closing the returned
// file releases it.
func (b *Bus) HoldDelay(t testing.TB) *os.File {
	t.Helper()
	c := b.Connect(t)
	var fd dbus.UnixFD
	if err := c.Object(login1Name, login1Path).Call(login1Iface+".Inhibit", 0, "shutdown", "test", "holding the shutdown", "delay").Store(&fd); err != nil {
		t.Fatalf("Inhibit: %v", err)
	}
	f := os.NewFile(uintptr(fd), "test-inhibitor")
	t.Cleanup(func() { f.Close() })
	return f
}

var (
	s1Once sync.Once
	s1Path string
	s1Err  error
)

// fakeSystemd1Bin builds tests/harness/fakesystemd1 (a module of its own)
// once per test binary, next to the programs under test.
func fakeSystemd1Bin(t testing.TB) string {
	t.Helper()
	s1Once.Do(func() {
		out := filepath.Join(BinDir(t), "fakesystemd1")
		cmd := exec.Command(goTool(), "build", "-o", out, ".")
		cmd.Dir = harnessScript(t, "fakesystemd1")
		cmd.Env = os.Environ()
		if b, err := cmd.CombinedOutput(); err != nil {
			s1Err = fmt.Errorf("go build in %s: %v\n%s", cmd.Dir, err, b)
			return
		}
		s1Path = out
	})
	if s1Err != nil {
		t.Fatalf("harness: building fakesystemd1 failed: %v", s1Err)
	}
	return s1Path
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(os.Getenv("GOROOT"), "bin", "go")
}

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

// LogindReport is the logind part of Server.GetStatus.
type LogindReport struct {
	State          string  `json:"state"`
	Since          string  `json:"since"`
	Holding        bool    `json:"holding"`
	NextRetryAt    *string `json:"next_retry_at"`
	LastError      *string `json:"last_error"`
	LastErrorAt    *string `json:"last_error_at"`
	InhibitDelayMs *int64  `json:"inhibit_delay_ms"`
	Owner          *string `json:"owner"`
	Inhibits       int     `json:"inhibits"`
	LastSaveAt     *string `json:"last_save_at"`
	LastSaveMs     *int64  `json:"last_save_ms"`
	LastReleaseMs  *int64  `json:"last_release_ms"`
	LastSaveError  *string `json:"last_save_error"`
}

// Logind returns the daemon's logind monitor status (`status --json`).
func (d *Daemon) Logind(t testing.TB) LogindReport {
	t.Helper()
	var r struct {
		Status struct {
			Logind *LogindReport `json:"logind"`
		} `json:"status"`
	}
	line := d.JSON(t, &r, "status")
	if r.Status.Logind == nil {
		t.Fatalf("status has no logind object: %s", line)
	}
	return *r.Status.Logind
}

// WaitLogind polls the daemon's logind status until cond holds.
func (d *Daemon) WaitLogind(t testing.TB, timeout time.Duration, what string, cond func(LogindReport) bool) LogindReport {
	t.Helper()
	var l LogindReport
	Eventually(t, timeout, what, func() (bool, string) {
		l = d.Logind(t)
		b, _ := json.Marshal(l)
		return cond(l), string(b)
	})
	return l
}

// SnapshotFile is what the logind tests read of
// $XDG_STATE_HOME/signaltty/snapshot.json (snapshot/SCHEMA.md).
type SnapshotFile struct {
	Server struct {
		SavedAt string `json:"saved_at"`
		Reason  string `json:"reason"`
	} `json:"server"`
	Panes []struct {
		ID           string   `json:"id"`
		Argv         []string `json:"argv"`
		State        string   `json:"state"`
		RestoreState string   `json:"restore_state"`
		ShutdownSave bool     `json:"shutdown_save"`
	} `json:"panes"`
}

// ReadSnapshot reads the daemon's snapshot.json.
func (d *Daemon) ReadSnapshot(t testing.TB) SnapshotFile {
	t.Helper()
	path := filepath.Join(d.Dir, "state", "signaltty", "snapshot.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the snapshot: %v", err)
	}
	var s SnapshotFile
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("decoding %s: %v", path, err)
	}
	return s
}

// LogTime finds the first line of the daemon's log containing msg and
// returns its time= field (slog text, millisecond precision).
func (d *Daemon) LogTime(t testing.TB, msg string) (time.Time, bool) {
	t.Helper()
	for _, line := range strings.Split(d.Stderr(), "\n") {
		if !strings.Contains(line, msg) || !strings.HasPrefix(line, "time=") {
			continue
		}
		ts, _, _ := strings.Cut(strings.TrimPrefix(line, "time="), " ")
		at, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			t.Fatalf("bad time in log line %q: %v", line, err)
		}
		return at, true
	}
	return time.Time{}, false
}

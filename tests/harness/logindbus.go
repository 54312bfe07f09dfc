package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

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

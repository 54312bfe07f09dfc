package logind

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/godbus/dbus/v5"
)

const (
	busName    = "org.freedesktop.login1"
	objPath    = dbus.ObjectPath("/org/freedesktop/login1")
	mgrIface   = "org.freedesktop.login1.Manager"
	dbusName   = "org.freedesktop.DBus"
	defaultBus = "unix:path=/var/run/dbus/system_bus_socket"
)

// State is what the monitor is doing.
type State string

const (
	// Off: no monitor (SIGNALTTY_LOGIND=0), or it has ended.
	Off State = "off"
	// Connecting: connecting to the bus or asking logind for the inhibitor.
	Connecting State = "connecting"
	// Holding: a delay inhibitor is held; a shutdown will wait for the save.
	Holding State = "holding"
	// Backoff: the last attempt failed; the next one is at Status.NextRetry
	// (or as soon as logind appears on the bus).
	Backoff State = "backoff"
	// Stopping: the host is shutting down; the snapshot is being saved or
	// was saved and the daemon is stopping.
	Stopping State = "stopping"
)

// Config configures a Monitor. Save, Stop and Thaw are required.
type Config struct {
	// Address of the system bus; "" means $DBUS_SYSTEM_BUS_ADDRESS, else
	// the default system bus socket.
	Address string
	// Save writes the snapshot for the shutdown and returns how long the
	// write took. It is called once per announced shutdown, while the
	// inhibitor is held (if logind granted one: it refuses new ones once a
	// shutdown is under way).
	Save func() (time.Duration, error)
	// Stop asks the daemon to stop; called after the inhibitor is released.
	// It must not block.
	Stop func()
	// Thaw undoes what Save froze, when the shutdown was cancelled.
	Thaw func()
	// Logger receives the monitor's messages (slog.Default() when nil).
	Logger *slog.Logger
	// MinBackoff and MaxBackoff bound the wait between failed attempts
	// (default 1 s and 60 s).
	MinBackoff, MaxBackoff time.Duration
	// CallTimeout bounds each bus call and the connection's handshake
	// (default 25 s, the D-Bus default).
	CallTimeout time.Duration
}

// Status is a copy of the monitor's state, for Server.GetStatus.
type Status struct {
	State State
	// Since is when State was entered.
	Since time.Time
	// Holding is true while a delay inhibitor taken from the current logind
	// is held.
	Holding bool
	// NextRetry is the time of the next attempt (State Backoff only).
	NextRetry time.Time
	// LastError is the most recent failure ("" if none yet); it stays after
	// the monitor recovers, LastErrorAt says when it happened.
	LastError   string
	LastErrorAt time.Time
	// InhibitDelay is logind's InhibitDelayMaxUSec: how long a delay
	// inhibitor can hold a shutdown back (0 while unknown).
	InhibitDelay time.Duration
	// Owner is logind's unique bus name ("" while unknown).
	Owner string
	// Inhibits counts the inhibitors taken since the monitor started.
	Inhibits int
	// LastSaveAt, LastSaveTook (the write as Save reported it) and
	// LastSaveRelease (from the announcement to the release of the
	// inhibitor) describe the last shutdown save; zero if none.
	LastSaveAt      time.Time
	LastSaveTook    time.Duration
	LastSaveRelease time.Duration
	LastSaveError   string
}

// Monitor watches logind for host shutdown. Create it with New and start
// it with Run; Status may be called at any time, before Run too.
type Monitor struct {
	cfg Config
	log *slog.Logger

	mu sync.Mutex
	st Status
}

// New returns a monitor in state Connecting; nothing happens before Run.
func New(cfg Config) *Monitor {
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = time.Second
	}
	if cfg.MaxBackoff < cfg.MinBackoff {
		cfg.MaxBackoff = max(60*time.Second, cfg.MinBackoff)
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = 25 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Monitor{cfg: cfg, log: cfg.Logger, st: Status{State: Connecting, Since: time.Now()}}
}

// Status returns the current state.
func (m *Monitor) Status() Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.st
}

func (m *Monitor) update(f func(*Status)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.st.State
	f(&m.st)
	if m.st.State != old {
		m.st.Since = time.Now()
	}
	if m.st.State != Backoff {
		m.st.NextRetry = time.Time{}
	}
}

// Run watches logind until ctx is done, then releases the inhibitor and
// closes its bus connection. A save under way is waited for first.
func (m *Monitor) Run(ctx context.Context) {
	r := &runner{m: m, ctx: ctx, backoff: m.cfg.MinBackoff, saveDone: make(chan saveResult, 1)}
	r.loop()
}

// runner is the state of one Run; only its goroutine touches it.
type runner struct {
	m   *Monitor
	ctx context.Context

	conn  *dbus.Conn
	sigs  chan *dbus.Signal
	owner string   // logind's unique name, "" while unknown
	lock  *os.File // the delay inhibitor
	// lockOwner is the owner lock was taken from.
	lockOwner string
	delay     time.Duration

	backoff time.Duration // the next wait after a failure
	retry   *time.Timer
	retryC  <-chan time.Time
	lastLog string // last failure logged at info level

	saving    bool // Save runs
	cancelled bool // PrepareForShutdown(false) arrived during the save
	frozen    bool // a save happened and was neither thawed nor followed by a stop
	stopped   bool // Stop was called
	announced time.Time
	saveDone  chan saveResult
}

type saveResult struct {
	took time.Duration
	err  error
}

func (r *runner) loop() {
	defer r.finish()
	r.attempt()
	for {
		select {
		case <-r.ctx.Done():
			if r.saving {
				r.saved(<-r.saveDone)
			}
			return
		case <-r.retryC:
			r.retryC = nil
			r.attempt()
		case sig, ok := <-r.sigs:
			if !ok {
				r.lost(errors.New("the system bus connection was closed"))
				continue
			}
			r.signal(sig)
		case res := <-r.saveDone:
			r.saved(res)
		}
	}
}

func (r *runner) finish() {
	r.stopRetry()
	r.release("the daemon stops")
	r.closeConn()
	r.m.update(func(s *Status) {
		if s.State != Stopping {
			s.State = Off
		}
		s.Holding = false
	})
}

// attempt connects if needed and takes the inhibitor.
func (r *runner) attempt() {
	r.stopRetry()
	if r.saving || r.stopped || r.ctx.Err() != nil {
		return
	}
	r.m.update(func(s *Status) { s.State = Connecting })
	if r.conn == nil {
		if err := r.connect(); err != nil {
			r.fail(err)
			return
		}
	}
	if err := r.inhibit(); err != nil {
		r.fail(err)
	}
}

// connect opens the bus connection and subscribes, before any Inhibit.
func (r *runner) connect() error {
	addr := r.m.cfg.Address
	if addr == "" {
		addr = os.Getenv("DBUS_SYSTEM_BUS_ADDRESS")
	}
	if addr == "" {
		addr = defaultBus
	}
	conn, err := dbus.Dial(addr, dbus.WithContext(r.ctx), dbus.WithSignalHandler(dbus.NewSequentialSignalHandler()))
	if err != nil {
		return fmt.Errorf("connecting to the system bus %s: %w", addr, err)
	}
	// Auth and Hello have no context of their own: closing the connection
	// ends them when the bus does not answer.
	timer := time.AfterFunc(r.m.cfg.CallTimeout, func() { conn.Close() })
	err = conn.Auth(nil)
	if err == nil {
		err = conn.Hello()
	}
	if !timer.Stop() && err != nil {
		err = fmt.Errorf("no answer within %v: %w", r.m.cfg.CallTimeout, err)
	}
	if err != nil {
		conn.Close()
		return fmt.Errorf("connecting to the system bus %s: %w", addr, err)
	}
	sigs := make(chan *dbus.Signal, 64)
	conn.Signal(sigs)
	ctx, cancel := context.WithTimeout(r.ctx, r.m.cfg.CallTimeout)
	defer cancel()
	err = conn.AddMatchSignalContext(ctx, dbus.WithMatchSender(dbusName), dbus.WithMatchInterface(dbusName),
		dbus.WithMatchMember("NameOwnerChanged"), dbus.WithMatchArg(0, busName))
	if err == nil {
		// sender= a well-known name: the bus delivers only what its
		// current owner sends.
		err = conn.AddMatchSignalContext(ctx, dbus.WithMatchSender(busName), dbus.WithMatchInterface(mgrIface),
			dbus.WithMatchObjectPath(objPath), dbus.WithMatchMember("PrepareForShutdown"))
	}
	if err != nil {
		conn.Close()
		return fmt.Errorf("subscribing to logind's signals: %w", err)
	}
	r.conn, r.sigs = conn, sigs
	r.m.log.Debug("logind: connected to the system bus", "address", addr)
	return nil
}

// call calls a method of logind's manager object (or, for a method of
// org.freedesktop.DBus, of the bus) within CallTimeout and stores the reply.
func (r *runner) call(method string, out any, args ...any) error {
	ctx, cancel := context.WithTimeout(r.ctx, r.m.cfg.CallTimeout)
	defer cancel()
	obj := r.conn.Object(busName, objPath)
	if strings.HasPrefix(method, dbusName+".") && !strings.HasPrefix(method, dbusName+".Properties.") {
		obj = r.conn.BusObject()
	}
	call := obj.CallWithContext(ctx, method, 0, args...)
	if call.Err != nil {
		return describe(call.Err)
	}
	if out == nil {
		return nil
	}
	return call.Store(out)
}

// property reads a property of logind's manager into out.
func (r *runner) property(name string, out any) error {
	var v dbus.Variant
	if err := r.call(dbusName+".Properties.Get", &v, mgrIface, name); err != nil {
		return err
	}
	return dbus.Store([]any{v.Value()}, out)
}

// describe names a D-Bus error with its message ("name: message").
func describe(err error) error {
	var de dbus.Error
	if pe := (*dbus.Error)(nil); errors.As(err, &pe) && pe != nil {
		de = *pe
	} else if !errors.As(err, &de) {
		return err
	}
	if msg := de.Error(); msg != de.Name {
		return fmt.Errorf("%s: %s", de.Name, msg)
	}
	return errors.New(de.Name)
}

// inhibit takes a delay inhibitor, learns logind's owner and delay, and
// reads PreparingForShutdown.
func (r *runner) inhibit() error {
	var fd dbus.UnixFD
	err := r.call(mgrIface+".Inhibit", &fd, "shutdown", "signaltty", "saving the workspaces and panes before shutdown", "delay")
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			// A late reply would carry a descriptor nobody closes: drop
			// the connection, and its unread messages with it.
			r.closeConn()
			return fmt.Errorf("Inhibit: no answer within %v", r.m.cfg.CallTimeout)
		}
		// logind refuses new delay inhibitors while a shutdown is under way.
		if r.learnOwner() == nil && r.preparing() {
			r.readDelay()
			r.m.log.Warn("logind: the host is already shutting down; saving without an inhibitor", "inhibit_err", err)
			r.beginShutdown("PreparingForShutdown")
			return nil
		}
		return fmt.Errorf("Inhibit: %w", err)
	}
	syscall.CloseOnExec(int(fd)) // already so (MSG_CMSG_CLOEXEC); never inherited by a pane
	lock := os.NewFile(uintptr(fd), "logind-inhibitor")
	if err := r.learnOwner(); err != nil {
		r.m.log.Debug("logind: GetNameOwner failed", "err", err)
	}
	r.readDelay()
	if old := r.lock; old != nil {
		old.Close() // after the new one is held: never a moment without
	}
	r.lock, r.lockOwner = lock, r.owner
	r.backoff = r.m.cfg.MinBackoff
	r.lastLog = ""
	r.m.update(func(s *Status) {
		s.State, s.Holding, s.Owner = Holding, true, r.owner
		s.Inhibits++
	})
	r.m.log.Info("logind: holding a shutdown delay inhibitor", "logind", r.owner, "inhibit_delay_max", r.delay)
	if r.preparing() {
		r.beginShutdown("PreparingForShutdown")
	}
	return nil
}

// readDelay reads logind's InhibitDelayMaxUSec.
func (r *runner) readDelay() {
	var usec uint64
	if err := r.property("InhibitDelayMaxUSec", &usec); err != nil {
		r.m.log.Debug("logind: reading InhibitDelayMaxUSec failed", "err", err)
		return
	}
	r.delay = time.Duration(usec) * time.Microsecond
	r.m.update(func(s *Status) { s.InhibitDelay = r.delay })
}

func (r *runner) learnOwner() error {
	var owner string
	if err := r.call(dbusName+".GetNameOwner", &owner, busName); err != nil {
		return err
	}
	r.owner = owner
	return nil
}

// preparing reads PreparingForShutdown (false when it cannot be read).
func (r *runner) preparing() bool {
	var b bool
	if err := r.property("PreparingForShutdown", &b); err != nil {
		r.m.log.Debug("logind: reading PreparingForShutdown failed", "err", err)
		return false
	}
	return b
}

func (r *runner) signal(sig *dbus.Signal) {
	switch sig.Name {
	case dbusName + ".NameOwnerChanged":
		var name, old, owner string
		if sig.Sender != dbusName || dbus.Store(sig.Body, &name, &old, &owner) != nil || name != busName {
			return
		}
		if owner != "" && owner == r.lockOwner && r.lock != nil {
			return // the inhibitor was already taken from this one
		}
		r.owner = owner
		if r.saving || r.stopped {
			return
		}
		if owner == "" {
			// It may come back and even keep our inhibitor (logind keeps
			// them across restarts); the descriptor stays until a new one
			// is taken.
			r.m.update(func(s *Status) { s.Holding, s.Owner = false, "" })
			r.fail(errors.New("logind left the system bus"))
			return
		}
		r.m.log.Info("logind: logind appeared on the bus; taking the inhibitor again", "logind", owner)
		r.attempt()
	case mgrIface + ".PrepareForShutdown":
		var start bool
		if sig.Path != objPath || dbus.Store(sig.Body, &start) != nil {
			return
		}
		if r.owner != "" && sig.Sender != r.owner {
			r.m.log.Warn("logind: ignored a PrepareForShutdown signal not sent by logind", "sender", sig.Sender, "logind", r.owner)
			return
		}
		if start {
			r.beginShutdown("PrepareForShutdown(true)")
		} else {
			r.cancelShutdown()
		}
	}
}

// beginShutdown starts the save; the loop keeps handling signals meanwhile.
func (r *runner) beginShutdown(why string) {
	if r.saving || r.stopped {
		return
	}
	r.stopRetry()
	r.saving, r.cancelled, r.announced = true, false, time.Now()
	r.m.update(func(s *Status) { s.State = Stopping })
	r.m.log.Info("logind: the host is shutting down; saving the snapshot", "signal", why, "holding", r.lock != nil,
		"inhibit_delay_max", r.delay)
	save := r.m.cfg.Save
	go func() {
		took, err := save()
		r.saveDone <- saveResult{took, err}
	}()
}

func (r *runner) cancelShutdown() {
	switch {
	case r.stopped:
		r.m.log.Info("logind: PrepareForShutdown(false) came after the daemon began stopping")
	case r.saving:
		r.cancelled = true
		r.m.log.Info("logind: shutdown cancelled (PrepareForShutdown(false)) during the save; the daemon keeps running")
	default:
		r.m.log.Info("logind: PrepareForShutdown(false); the daemon keeps running")
		r.thaw()
		if r.lock == nil {
			r.attempt()
		}
	}
}

func (r *runner) thaw() {
	if r.frozen && r.ctx.Err() == nil {
		r.frozen = false
		r.m.cfg.Thaw()
	}
}

// saved ends a shutdown save: release and stop, or, cancelled, go on.
func (r *runner) saved(res saveResult) {
	r.saving, r.frozen = false, true
	elapsed := time.Since(r.announced)
	if res.err != nil {
		r.m.log.Error("logind: saving the snapshot for shutdown failed", "err", res.err, "after", elapsed)
	} else {
		r.m.log.Info("logind: snapshot saved for shutdown", "write", res.took, "after", elapsed)
	}
	if r.delay > 0 && elapsed > r.delay/2 {
		r.m.log.Warn("logind: the shutdown save took more than half of logind's InhibitDelayMaxUSec",
			"took", elapsed, "inhibit_delay_max", r.delay)
	}
	errText := ""
	if res.err != nil {
		errText = res.err.Error()
	}
	r.m.update(func(s *Status) {
		s.LastSaveAt, s.LastSaveTook, s.LastSaveError = time.Now(), res.took, errText
	})
	if r.cancelled && r.ctx.Err() == nil {
		r.cancelled = false
		r.thaw()
		if r.lock != nil && r.conn != nil && r.owner == r.lockOwner {
			r.m.update(func(s *Status) { s.State = Holding })
			return
		}
		r.attempt() // the bus or logind changed meanwhile
		return
	}
	if r.lock != nil {
		r.release("the snapshot for shutdown was written")
		r.m.update(func(s *Status) { s.LastSaveRelease = time.Since(r.announced) })
		r.m.log.Info("logind: released the shutdown inhibitor; stopping", "after", time.Since(r.announced))
	} else {
		r.m.log.Info("logind: stopping (no inhibitor was held)", "after", time.Since(r.announced))
	}
	r.stopped = true
	r.closeConn()
	r.m.update(func(s *Status) { s.State = Stopping })
	if r.ctx.Err() == nil {
		r.m.cfg.Stop()
	}
}

// release closes the inhibitor descriptor: logind stops waiting for us.
func (r *runner) release(why string) {
	if r.lock == nil {
		return
	}
	r.lock.Close()
	r.lock = nil
	r.m.update(func(s *Status) { s.Holding = false })
	r.m.log.Debug("logind: inhibitor released", "why", why)
}

// lost handles the end of the bus connection.
func (r *runner) lost(err error) {
	r.conn, r.sigs, r.owner = nil, nil, ""
	// Deaf to PrepareForShutdown, the inhibitor could only delay a shutdown.
	r.release("the bus connection was lost")
	if r.saving || r.stopped || r.ctx.Err() != nil {
		return
	}
	if r.retryC != nil { // the failed attempt already scheduled a retry
		return
	}
	r.fail(err)
}

func (r *runner) closeConn() {
	if r.conn != nil {
		r.conn.Close()
	}
	r.conn, r.sigs = nil, nil
}

// fail records err and schedules the next attempt.
func (r *runner) fail(err error) {
	wait := r.backoff
	r.backoff = min(r.backoff*2, r.m.cfg.MaxBackoff)
	next := time.Now().Add(wait)
	r.stopRetry()
	r.retry = time.NewTimer(wait)
	r.retryC = r.retry.C
	r.m.update(func(s *Status) {
		s.State, s.NextRetry, s.LastError, s.LastErrorAt = Backoff, next, err.Error(), time.Now()
		s.Holding = false
	})
	if msg := err.Error(); msg != r.lastLog {
		r.lastLog = msg
		r.m.log.Info("logind: no shutdown inhibitor; retrying", "err", err, "retry_in", wait)
	} else {
		r.m.log.Debug("logind: no shutdown inhibitor; retrying", "err", err, "retry_in", wait)
	}
}

func (r *runner) stopRetry() {
	if r.retry != nil {
		r.retry.Stop()
	}
	r.retry, r.retryC = nil, nil
}

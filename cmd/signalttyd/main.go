package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/coreos/go-systemd/v22/activation"
	"github.com/coreos/go-systemd/v22/daemon"
	"github.com/signaltty/signaltty/service"
	"github.com/signaltty/signaltty/service/procs"
	"github.com/signaltty/signaltty/snapshot"
	"github.com/signaltty/signaltty/varlink"
	addr "github.com/signaltty/signaltty/varlink/address"
	vl "github.com/varlink/go/varlink"
)

// stateLockHeld holds the state directory's lock for the daemon's lifetime.
var stateLockHeld *stateLock

// installTestHooks is set by test builds only (testhooks.go).
var installTestHooks func(*service.Service)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0"

func main() {
	address := flag.String("address", "", "varlink address to listen on (default $SIGNALTTY_ADDRESS or unix:$XDG_RUNTIME_DIR/signaltty/dev.signaltty)")
	showVersion := flag.Bool("version", false, "print the version and exit")
	flag.Parse()
	if *showVersion {
		fmt.Println("signalttyd", version)
		return
	}
	log, lines := newLogger()
	err := run(log, *address)
	if err != nil {
		log.Error(err.Error())
	}
	lines.Flush(2 * time.Second)
	if err != nil {
		os.Exit(1)
	}
}

func run(log *slog.Logger, address string) error {
	// Taking the activated listeners clears LISTEN_* before any child starts.
	ln, activated, err := activatedListener()
	if err != nil {
		return err
	}
	if activated {
		keepActivatedSocket(ln)
	}
	// The state directory first: a daemon that cannot own it touches no
	// socket path (docs/systemd.md, "One daemon per state directory").
	if err := takeStateDirectory(log); err != nil {
		if !activated {
			return err
		}
		if stateLockHeld, ln = refuseActivated(ln, err); ln == nil {
			return err
		}
		log.Info("the state directory was released; starting")
	}
	// The last write of every return (not of a crash): the next daemon
	// does not take this one for an unclean exit, and finds what its panes
	// left running.
	var svc *service.Service
	defer func() {
		var c []service.PreviousDaemon
		left := false
		if svc != nil {
			c, left = svc.Leftovers().Marks(), svc.Leftovers().Own()
		}
		stateLockHeld.stopped(c, left)
	}()
	if address == "" {
		address = addr.Default()
	}
	var sock *socketFile
	if ln == nil {
		if ln, sock, err = listen(address); err != nil {
			return err
		}
	} else if a := ln.Addr().String(); a != "" {
		address = "unix:" + a
	}
	defer sock.remove() // only the file this daemon created, if still there
	// Catch, never ignore, SIGHUP and SIGPIPE: an ignored disposition would be
	// inherited by every pane's program (execve(2)), so HUP could not stop them.
	ignored := make(chan os.Signal, 8)
	signal.Notify(ignored, syscall.SIGHUP, syscall.SIGPIPE)
	go func() {
		for range ignored {
		}
	}()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)

	// Before any process is started: everything the daemon starts carries
	// the pane mark (docs/security.md, "The pane mark").
	mark, err := procs.MarkProcesses(stateLockHeld.marks()...)
	if err != nil {
		log.Warn("no pane mark: processes that leave a pane are told apart by ancestry and cgroup only", "err", err)
	}
	cgroups, cgroupsOff := setupCgroups()
	if cgroups != nil {
		log.Info("one cgroup per pane", "path", cgroups.Path, "controllers", cgroups.Controllers)
	} else {
		log.Info("panes share the daemon's cgroup", "reason", cgroupsOff)
	}
	svc = service.New(service.Config{Version: version, Address: address, SocketActivated: activated,
		Environ: os.Environ(), Logger: log, WorktreeRoot: worktreeRoot(log),
		Cgroups: cgroups, CgroupsOff: cgroupsOff, OutsideCallers: os.Getenv("SIGNALTTY_OUTSIDE_CALLERS"), UnknownGrants: unknownGrants(log), Mark: mark,
		Limits: serviceLimits(log), HistoryBytes: historyBytes(log), TitleInterval: titleInterval(log)})
	// What earlier daemons of the state directory left running, before
	// this one starts anything (docs/termination.md, "When the daemon dies").
	if stateLockHeld != nil {
		svc.Leftovers().Find(stateLockHeld.previous)
		ownMark := uint64(0)
		if mark.Instance {
			ownMark = mark.Value
		}
		stateLockHeld.setMark(ownMark, svc.Leftovers().Marks())
	}
	store, err := restore(log, svc)
	if err != nil {
		ln.Close()
		return err
	}
	svc.Git().Recover(context.Background()) // worktree associations, before the first call
	// Run ids never repeat for the state directory (docs/run-wait.md, "Run ids and source").
	if err := svc.Runs().StartIDs(store); err != nil {
		log.Error("run ids", "err", err)
	}
	svc.Persistence().SetSaveOutputInterval(saveOutputInterval(log))
	svc.Settings().SetEmulatorReleaseAfter(emulatorReleaseAfter(log))
	svc.Persistence().Start(store, 0)
	loadSettings(log, svc) // after Persistence().Start: save_interval_ms
	startJournal(log, svc, store.Dir())
	if installTestHooks != nil {
		installTestHooks(svc)
	}
	vsvc, err := vl.NewService("signaltty", "signaltty", version, "https://github.com/signaltty/signaltty")
	if err != nil {
		return err
	}
	shutdownRequested := make(chan struct{}, 1)
	lg := newLogind(log, svc)
	onBus := newBusState()
	server := varlink.NewServer(vsvc, log)
	server.SetResolver(svc.Access().ResolvePeer)
	server.SetLimits(clientLimits(log))
	for _, iface := range []varlink.Dispatcher{
		varlink.NewServerIface(svc, func() {
			select {
			case shutdownRequested <- struct{}{}:
			default:
			}
		}, varlink.WithLogindStatus(lg.status), varlink.WithClientLimits(server.Limits()),
			varlink.WithSessionBusStatus(onBus.status)),
		varlink.NewMux(svc),
		varlink.NewRun(svc),
		varlink.NewEvents(svc),
	} {
		if err := vsvc.RegisterInterface(server.Track(varlink.Guard(svc, iface))); err != nil {
			return err
		}
	}
	served := make(chan error, 1)
	go func() { served <- server.Serve(ln) }()
	svc.AutoResume() // only workspaces with auto_resume, only official resume commands (docs/agents.md)

	log.Info("ready", "address", address, "socket_activated", activated, "source", svc.Source(), "version", version)
	daemon.SdNotify(false, "READY=1\nSTATUS=listening on "+address)
	lg.start()
	defer lg.close() // every way out releases the logind inhibitor
	bus := keepOnBus(log, svc, version, address, onBus)
	defer bus.close()
	watchdogStop := make(chan struct{})
	startWatchdog(log, svc, watchdogStop)
	defer close(watchdogStop)
	idle := idleExit(log, activated, svc, server)

	select {
	case sig := <-stop:
		log.Info("stopping", "signal", sig.String())
	case <-shutdownRequested:
		log.Info("stopping", "reason", "Server.Shutdown")
	case <-lg.stopping:
		log.Info("stopping", "reason", "host shutdown (logind)")
	case <-idle:
		log.Info("stopping", "reason", "idle (SIGNALTTY_EXIT_IDLE_AFTER_S)")
	case err := <-served:
		log.Error("accept failed", "err", err)
	}
	// STATUS= tells `systemctl --user status` what a long stop is doing
	// (docs/systemd.md, "Crashes and restarts").
	daemon.SdNotify(false, "STOPPING=1\nSTATUS=stopping: saving the snapshot")
	stateLockHeld.stopping()
	ln.Close() // no new connections
	sock.remove()
	// Save before the panes are hung up, so the snapshot shows them running,
	// and while the logind delay lock is still held.
	if res, err := svc.Persistence().SaveForShutdown("shutdown"); err != nil {
		log.Error("saving the snapshot at shutdown failed", "err", err)
	} else {
		log.Info("snapshot saved", "path", res.Path, "bytes", res.Bytes, "took", res.Duration)
	}
	lg.close()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	daemon.SdNotify(false, "STATUS=stopping: ending the panes")
	svc.Shutdown(ctx)
	svc.Persistence().Stop()
	daemon.SdNotify(false, "STATUS=stopping: finishing calls")
	if !server.Drain(2 * time.Second) { // let waiters get their completed runs
		log.Warn("some calls were still running at shutdown")
	}
	server.Close()
	log.Info("stopped")
	return nil
}

// activatedListener returns the socket-activated listener named "varlink",
// or the only one passed, or nil when not socket-activated.
func activatedListener() (net.Listener, bool, error) {
	named, err := activation.ListenersWithNames()
	if err != nil {
		return nil, false, fmt.Errorf("socket activation: %w", err)
	}
	if l := named["varlink"]; len(l) > 0 {
		return l[0], true, nil
	}
	var all []net.Listener
	for _, ls := range named {
		all = append(all, ls...)
	}
	switch len(all) {
	case 0:
		return nil, false, nil
	case 1:
		return all[0], true, nil
	}
	return nil, false, errors.New("socket activation passed several listeners and none is named \"varlink\"")
}

// listen binds address's socket (mode 0600), creating its directory with
// mode 0700 when missing. A socket some daemon still answers on is never
// taken over; a stale one is replaced.
func listen(address string) (net.Listener, *socketFile, error) {
	ln, path, err := bind(address)
	if err != nil {
		return nil, nil, err
	}
	return ln, ownSocket(ln, path), nil
}

func bind(address string) (net.Listener, string, error) {
	path, err := addr.SocketPath(address)
	if err != nil {
		return nil, "", err
	}
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, "", err
		}
	}
	if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
		c.Close()
		return nil, "", fmt.Errorf("another signalttyd (or the socket unit signaltty.socket) is already listening on %s", path)
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode().Type() != os.ModeSocket {
			return nil, "", fmt.Errorf("%s exists and is not a socket", path)
		}
		os.Remove(path)
	}
	old := syscall.Umask(0o177)
	ln, err := net.Listen("unix", path)
	syscall.Umask(old)
	if err != nil {
		return nil, "", err
	}
	return ln, path, os.Chmod(path, 0o600)
}

// takeStateDirectory locks the state directory (statelock.go).
func takeStateDirectory(log *slog.Logger) error {
	dir, err := stateDirectory()
	if err != nil {
		return err
	}
	stateLockHeld, err = lockState(log, dir)
	return err
}

// refuseActivated answers the calls that activated this daemon with the
// reason it cannot start (refuse.go), until the state directory is free
// (then it returns the lock and the listener to serve) or no call came for
// a while (nil, nil).
func refuseActivated(ln net.Listener, err error) (*stateLock, net.Listener) {
	data := map[string]any{}
	code := "unavailable.daemon"
	e, busy := err.(*stateInUseError)
	if !busy {
		refuse(ln, code, err.Error(), data, func() *stateLock { return nil })
		return nil, nil
	}
	code = "unavailable.state_directory"
	data = map[string]any{"dir": e.Dir, "pid": e.Holder.Pid, "unit": e.Holder.Unit}
	return refuse(ln, code, err.Error(), data, func() *stateLock {
		l, _ := tryLockState(e.Dir)
		return l
	})
}

// stateDirectory is $XDG_STATE_HOME/signaltty, else ~/.local/state/signaltty.
func stateDirectory() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no state directory: neither XDG_STATE_HOME nor HOME is set")
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "signaltty"), nil
}

// restore loads the snapshot of the state directory into svc as tombstones.
// A snapshot from a newer signaltty stops the daemon (the file is kept);
// an unreadable one is set aside and the daemon starts empty.
func restore(log *slog.Logger, svc *service.Service) (*snapshot.Store, error) {
	dir, err := stateDirectory()
	if err != nil {
		return nil, err
	}
	store := snapshot.Open(dir)
	snap, tails, info, err := store.Load()
	if err != nil {
		return nil, err // a *snapshot.FutureVersionError names both versions
	}
	from := "snapshot.json"
	switch {
	case info.CorruptBackup != "":
		from = "corrupt: " + info.CorruptBackup
		log.Error("the snapshot could not be read; starting empty, the file was set aside",
			"backup", info.CorruptBackup, "err", info.Err)
	case info.Missing:
		from = "empty"
	}
	for _, w := range info.Warnings {
		log.Warn("snapshot: " + w)
	}
	svc.Restore(snap, tails, from)
	if snap != nil {
		log.Info("restored", "from", filepath.Join(dir, snapshot.FileName), "workspaces", len(snap.Workspaces), "panes", len(snap.Panes))
	}
	return store, nil
}

// worktreeRoot is $SIGNALTTY_WORKTREE_ROOT, where new worktrees go (as
// <root>/<repository name>/<branch>); "" (unset, or not an absolute path,
// which is logged) puts them next to each repository.
func worktreeRoot(log *slog.Logger) string {
	root := os.Getenv("SIGNALTTY_WORKTREE_ROOT")
	if root != "" && !filepath.IsAbs(root) {
		log.Warn("SIGNALTTY_WORKTREE_ROOT is not an absolute path; worktrees go next to their repositories", "value", root)
		return ""
	}
	if root != "" {
		root = filepath.Clean(root)
	}
	return root
}

// periodicSave is $SIGNALTTY_SAVE_INTERVAL (a Go duration such as "60s"):
// how often to save even without changes, 0 or 1 s..24 h; ok is false
// when it is unset, and when it is invalid (logged).
func periodicSave(log *slog.Logger) (d time.Duration, ok bool) {
	v := os.Getenv("SIGNALTTY_SAVE_INTERVAL")
	if v == "" {
		return 0, false
	}
	d, err := time.ParseDuration(v)
	if err == nil {
		err = service.CheckSaveInterval(d)
	}
	if err != nil {
		log.Warn("ignoring SIGNALTTY_SAVE_INTERVAL", "value", v, "err", err)
		return 0, false
	}
	return d, true
}

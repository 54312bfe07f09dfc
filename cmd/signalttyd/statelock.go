package main

import (
	"bufio"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/signaltty/signaltty/service"
	"github.com/signaltty/signaltty/snapshot"
	"golang.org/x/sys/unix"
)

// stateLockWait is how long a daemon waits for the state directory while
// the daemon holding it says it is stopping (its panes' grace periods and
// its last save). A holder that is not stopping is never waited for: the
// second daemon exits at once (docs/systemd.md, "One daemon per state
// directory").
const stateLockWait = 15 * time.Second

// lockInfo is what the holder of <state>/lock writes into it, one
// "key value" line each: its pid, its systemd unit (when it runs as one),
// whether it is "running", "stopping" or "stopped" (the last thing a clean
// exit writes), its start time (RFC 3339), its pane mark (the hard
// RLIMIT_RTTIME of its panes' processes, service/mark.go) and, one
// "previous" line each, the earlier daemons (unclean exits, or clean ones
// that left processes running) whose panes' processes still ran (docs/termination.md, "When the daemon dies").
type lockInfo struct {
	Pid      int
	Unit     string
	State    string
	Started  time.Time
	Mark     uint64
	Previous []service.PreviousDaemon
}

func (li lockInfo) String() string {
	s := "pid " + strconv.Itoa(li.Pid)
	if li.Unit != "" {
		s += ", unit " + li.Unit
	} else {
		s += ", not started by systemd"
	}
	return s
}

// stateInUseError is the state directory held by another daemon that is
// not stopping.
type stateInUseError struct {
	Dir    string
	Holder lockInfo
}

func (e *stateInUseError) Error() string {
	hint := "stop it first"
	if e.Holder.Unit != "" {
		hint = "stop it with `systemctl --user stop " + e.Holder.Unit + "`"
	} else if e.Holder.Pid > 0 {
		hint = "stop it with `kill " + strconv.Itoa(e.Holder.Pid) + "`"
	}
	return fmt.Sprintf("the state directory %s is in use by another signalttyd (%s); one daemon per state directory: %s, or set XDG_STATE_HOME to run another",
		e.Dir, e.Holder, hint)
}

// stateLock is the held lock of a state directory.
type stateLock struct {
	f    *os.File
	info lockInfo
	// previous are the earlier daemons that did not exit cleanly or left
	// processes running, as the lock record said when this daemon took it.
	previous []service.PreviousDaemon
}

// lockState takes an exclusive flock(2) on <dir>/lock so that one daemon at
// a time owns a state directory (two would overwrite each other's
// snapshot). A holder that is running makes it fail at once with a
// *stateInUseError; one that is stopping is waited for up to
// stateLockWait. The lock (close-on-exec) is held until the process exits.
func lockState(log *slog.Logger, dir string) (*stateLock, error) {
	deadline := time.Now().Add(stateLockWait)
	for warned := false; ; {
		l, err := tryLockState(dir)
		e, busy := err.(*stateInUseError)
		if !busy || e.Holder.State != "stopping" || time.Now().After(deadline) {
			return l, err
		}
		if !warned {
			log.Info("waiting for a stopping signalttyd to release the state directory", "dir", dir, "holder", e.Holder.String())
			warned = true
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// tryLockState makes one attempt; a held lock is a *stateInUseError.
func tryLockState(dir string) (*stateLock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		defer f.Close()
		if err != unix.EWOULDBLOCK {
			return nil, fmt.Errorf("locking %s: %w", f.Name(), err)
		}
		return nil, &stateInUseError{Dir: dir, Holder: readLockInfo(f)}
	}
	l := &stateLock{f: f, info: lockInfo{Pid: os.Getpid(), Unit: ownUnit(), State: "running", Started: time.Now()}}
	l.previous = previousDaemons(dir, f, readLockInfo(f))
	l.info.Previous = l.previous // until the leftovers were looked for (setMark)
	l.write()
	return l, nil
}

// previousDaemons are the daemons prev (the record the lock held) names as
// not having exited cleanly, or as having left processes running: its
// writer, unless it wrote "stopped", and those it carried. A record without a start time or mark (older signaltty, which
// never wrote "stopped") names none.
func previousDaemons(dir string, f *os.File, prev lockInfo) []service.PreviousDaemon {
	out := append([]service.PreviousDaemon(nil), prev.Previous...)
	if prev.State == "stopped" || prev.Pid == 0 || (prev.Started.IsZero() && prev.Mark == 0) {
		return out
	}
	e := service.PreviousDaemon{Pid: prev.Pid, Started: prev.Started, State: prev.State, Mark: prev.Mark}
	for _, name := range []string{f.Name(), filepath.Join(dir, snapshot.FileName)} {
		if fi, err := os.Stat(name); err == nil && fi.ModTime().After(e.LastSeen) {
			e.LastSeen = fi.ModTime()
		}
	}
	return append([]service.PreviousDaemon{e}, out...)
}

// marks are the pane marks of the previous daemons, which this daemon's own
// must differ from.
func (l *stateLock) marks() []uint64 {
	if l == nil {
		return nil
	}
	var out []uint64
	for _, e := range l.previous {
		if e.Mark != 0 {
			out = append(out, e.Mark)
		}
	}
	return out
}

// setMark records this daemon's pane mark (0: none that names it) and
// the previous daemons whose leftovers still run.
func (l *stateLock) setMark(mark uint64, carried []service.PreviousDaemon) {
	if l == nil {
		return
	}
	l.info.Mark = mark
	l.info.Previous = carried
	l.write()
}

// stopped is the last write of a clean exit: the next daemon does not
// report this one as exited uncleanly, only the carried daemons whose
// leftovers still run and, when leftRunning (processes with its own mark
// still run), this one as "stopped", so that it finds them too.
func (l *stateLock) stopped(carried []service.PreviousDaemon, leftRunning bool) {
	if l == nil {
		return
	}
	l.info.State = "stopped"
	l.info.Previous = carried
	if leftRunning && l.info.Mark != 0 {
		self := service.PreviousDaemon{Pid: l.info.Pid, Started: l.info.Started, LastSeen: time.Now(), State: "stopped", Mark: l.info.Mark}
		l.info.Previous = append([]service.PreviousDaemon{self}, carried...)
	}
	l.write()
}

// stopping tells a daemon waiting for the lock that this one is on its way out.
func (l *stateLock) stopping() {
	if l == nil {
		return
	}
	l.info.State = "stopping"
	l.write()
}

// maxCarried bounds the "previous" lines of a lock record.
const maxCarried = 16

func (l *stateLock) write() {
	var b strings.Builder
	fmt.Fprintf(&b, "pid %d\nunit %s\nstate %s\nstarted %s\nmark %d\n",
		l.info.Pid, l.info.Unit, l.info.State, l.info.Started.UTC().Format(time.RFC3339Nano), l.info.Mark)
	for i, e := range l.info.Previous {
		if i == maxCarried {
			break
		}
		state := e.State
		if state == "" {
			state = "-"
		}
		fmt.Fprintf(&b, "previous %d %s %s %s %d\n", e.Pid, timeField(e.Started), timeField(e.LastSeen), state, e.Mark)
	}
	l.f.Truncate(0)
	l.f.WriteAt([]byte(b.String()), 0)
}

// timeField is t in RFC 3339, "-" when zero.
func timeField(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// parsePrevious parses the fields of a "previous" line: pid, start time,
// last seen, state, mark.
func parsePrevious(v string) (service.PreviousDaemon, bool) {
	f := strings.Fields(v)
	if len(f) != 5 {
		return service.PreviousDaemon{}, false
	}
	pid, err1 := strconv.Atoi(f[0])
	mark, err2 := strconv.ParseUint(f[4], 10, 64)
	if err1 != nil || err2 != nil || pid <= 0 {
		return service.PreviousDaemon{}, false
	}
	e := service.PreviousDaemon{Pid: pid, State: f[3], Mark: mark}
	e.Started, _ = time.Parse(time.RFC3339Nano, f[1])
	e.LastSeen, _ = time.Parse(time.RFC3339Nano, f[2])
	return e, true
}

// readLockInfo parses what the holder wrote; an older daemon wrote only
// its pid, or its pid, unit and state.
func readLockInfo(f *os.File) lockInfo {
	b := make([]byte, 4096)
	n, _ := f.ReadAt(b, 0)
	var li lockInfo
	sc := bufio.NewScanner(strings.NewReader(string(b[:n])))
	for sc.Scan() {
		k, v, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		switch k {
		case "pid":
			li.Pid, _ = strconv.Atoi(v)
		case "unit":
			li.Unit = v
		case "state":
			li.State = v
		case "started":
			li.Started, _ = time.Parse(time.RFC3339Nano, v)
		case "mark":
			li.Mark, _ = strconv.ParseUint(v, 10, 64)
		case "previous":
			if e, ok := parsePrevious(v); ok && len(li.Previous) < maxCarried {
				li.Previous = append(li.Previous, e)
			}
		default:
			if pid, err := strconv.Atoi(k); err == nil {
				li.Pid = pid
			}
		}
	}
	return li
}

// ownUnit is the systemd unit this daemon runs as (the last *.service
// component of its cgroup), or "" when systemd did not start it
// ($INVOCATION_ID unset).
func ownUnit() string {
	if os.Getenv("INVOCATION_ID") == "" {
		return ""
	}
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	unit := ""
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 || (parts[0] != "0" && parts[1] != "name=systemd") {
			continue
		}
		for _, c := range strings.Split(parts[2], "/") {
			if strings.HasSuffix(c, ".service") {
				unit = c
			}
		}
	}
	return unit
}

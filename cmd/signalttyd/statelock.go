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

	"golang.org/x/sys/unix"
)

// stateLockWait is how long a daemon waits for the state directory while
// the daemon holding it says it is stopping (its panes' grace periods and
// its last save). A holder that is not stopping is never waited for: the
// second daemon exits at once (docs/systemd.md, "One daemon per state
// directory").
const stateLockWait = 15 * time.Second

// lockInfo is what the holder of <state>/lock writes into it, one
// "key value" line each: its pid, its systemd unit (when it runs as one)
// and whether it is "running" or "stopping".
type lockInfo struct {
	Pid   int
	Unit  string
	State string
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
	l := &stateLock{f: f, info: lockInfo{Pid: os.Getpid(), Unit: ownUnit(), State: "running"}}
	l.write()
	return l, nil
}

// stopping tells a daemon waiting for the lock that this one is on its way out.
func (l *stateLock) stopping() {
	if l == nil {
		return
	}
	l.info.State = "stopping"
	l.write()
}

func (l *stateLock) write() {
	s := fmt.Sprintf("pid %d\nunit %s\nstate %s\n", l.info.Pid, l.info.Unit, l.info.State)
	l.f.Truncate(0)
	l.f.WriteAt([]byte(s), 0)
}

// readLockInfo parses what the holder wrote; an older daemon wrote only
// its pid.
func readLockInfo(f *os.File) lockInfo {
	b := make([]byte, 512)
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

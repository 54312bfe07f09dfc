package main

import (
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
// another daemon still holds it (one that is stopping: its panes' grace
// periods and its last save).
const stateLockWait = 15 * time.Second

// lockState takes an exclusive flock(2) on <dir>/lock so that one daemon at
// a time owns a state directory (two would overwrite each other's
// snapshot). It waits up to stateLockWait for a daemon that is stopping.
// The returned file (close-on-exec) holds the lock until the process exits.
func lockState(log *slog.Logger, dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(stateLockWait)
	for warned := false; ; {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			break
		}
		if err != unix.EWOULDBLOCK {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", f.Name(), err)
		}
		holder := lockHolder(f)
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("the state directory %s is in use by another signalttyd%s; "+
				"one daemon per state directory (set XDG_STATE_HOME to run another)", dir, holder)
		}
		if !warned {
			log.Info("waiting for another signalttyd to release the state directory", "dir", dir, "holder", strings.TrimSpace(holder))
			warned = true
		}
		time.Sleep(50 * time.Millisecond)
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return f, nil
}

// lockHolder names the pid written by the lock's holder, if any.
func lockHolder(f *os.File) string {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	if pid := strings.TrimSpace(string(b[:n])); pid != "" {
		return " (pid " + pid + ")"
	}
	return ""
}

package procs

import (
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// ScanMarks is the one scan of /proc for pane marks (docs/termination.md,
// "Descendants outside the process group" and "Leftovers"): it calls visit
// with the pid and hard RLIMIT_RTTIME of every process other than this one
// whose limit this process may read, by prlimit(2) or else, for a process
// of this user, from /proc/PID/limits. Processes of other users whose
// limits prlimit may not read are skipped: the daemon could not signal
// them either. visit runs on the caller's goroutine, in /proc's order.
func ScanMarks(visit func(pid int, hard uint64)) {
	d, err := os.Open("/proc")
	if err != nil {
		return
	}
	defer d.Close()
	uid, self := uint32(os.Getuid()), os.Getpid()
	for {
		names, err := d.Readdirnames(512)
		for _, name := range names {
			pid, err := strconv.Atoi(name)
			if err != nil || pid == self {
				continue
			}
			var l unix.Rlimit
			if unix.Prlimit(pid, unix.RLIMIT_RTTIME, nil, &l) == nil {
				visit(pid, l.Max)
			} else if ownedBy(pid, uid) {
				if hard, ok := procRTTime(pid); ok {
					visit(pid, hard)
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// ownedBy reports whether /proc/PID belongs to uid (the process's
// effective user, or root for a process that is not dumpable).
func ownedBy(pid int, uid uint32) bool {
	fi, err := os.Stat("/proc/" + strconv.Itoa(pid))
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Uid == uid
}

package procs

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Leftovers of a previous daemon (docs/termination.md, "When the daemon
// dies"). A daemon killed with SIGKILL, or crashed, ends no pane: the
// kernel kills each pane leader (its parent-death signal) and hangs up its
// terminal, but a descendant that ignores SIGHUP, or left the leader's
// process group, keeps running. Even a clean stop signals only each pane's
// process group while its leader runs. Each of them carries the pane mark
// of the daemon that started it (Mark), a value chosen at random for that
// daemon instance and written to the state directory's lock record, so the
// next daemon of the same state directory finds them: processes of the
// user whose hard RLIMIT_RTTIME is exactly that value.

// PreviousDaemon is an earlier daemon of this state directory, as found at
// this daemon's start, that did not exit cleanly (killed, crashed, the
// machine lost power) or that stopped while processes of its panes still
// ran, with the processes of its panes that still run.
type PreviousDaemon struct {
	Pid int
	// Started is when it started; zero when its record does not say.
	Started time.Time
	// LastSeen is its last write to the state directory (its lock record or
	// snapshot): it exited at or after this time. Zero: unknown.
	LastSeen time.Time
	// State is what its record said it was doing: "running", "stopping"
	// (it died during its shutdown), both unclean exits, or "stopped" (a
	// clean exit that left processes running).
	State string
	// Mark is the hard RLIMIT_RTTIME of its panes' processes; 0: unknown
	// (its mark named no instance), and its leftovers cannot be found.
	Mark uint64
	// Leftovers are the processes of its panes that still run, by pid.
	Leftovers []LeftoverProcess
}

// LeftoverProcess is a process a previous daemon's pane left running.
type LeftoverProcess struct {
	Pid int
	// Name is its /proc/PID/comm (the executed file's name, at most 15
	// bytes): never its arguments (docs/security.md, "Audit").
	Name string
	// start is its start time in clock ticks after boot (/proc/PID/stat
	// field 22): with the pid it names the process.
	start uint64
}

// Leftovers is the record of previous daemons and of the processes their
// panes left running. Its lock is never held while /proc is read or a
// process is waited for.
type Leftovers struct {
	mark Mark // this daemon's
	log  *slog.Logger
	mu   sync.Mutex
	// exits are the previous daemons found at start (Find), guarded by mu.
	exits []PreviousDaemon
}

// NewLeftovers returns an empty record for the daemon whose mark is mark;
// log gets what Find found and what Stop stops.
func NewLeftovers(mark Mark, log *slog.Logger) *Leftovers {
	return &Leftovers{mark: mark, log: log}
}

// Leftover stop timing: Stop sends SIGTERM (and SIGCONT), waits
// up to leftoverGrace, then SIGKILL and up to leftoverKillWait.
const (
	leftoverGrace    = 2 * time.Second
	leftoverKillWait = time.Second
	leftoverRounds   = 3 // scans after a stop, for processes forked meanwhile
)

// FindLeftovers records the earlier daemons of the state directory that
// exited uncleanly or left processes running (read from its lock record by
// the caller) and looks for the processes their panes left running. A clean
// exit whose processes are all gone now is dropped. It is called once,
// before the first pane starts; it logs what it found.
func (l *Leftovers) Find(exits []PreviousDaemon) {
	found := make([]PreviousDaemon, 0, len(exits))
	for _, e := range exits {
		e.Leftovers = nil
		if e.Mark != 0 && e.Mark != l.mark.Value {
			e.Leftovers = scanMarked(l.marksOf(e))
		}
		if e.State == "stopped" && len(e.Leftovers) == 0 {
			continue
		}
		found = append(found, e)
		msg := "a previous signalttyd of this state directory exited uncleanly"
		if e.State == "stopped" {
			msg = "a previous signalttyd of this state directory stopped while processes of its panes still ran"
		}
		args := []any{"pid", e.Pid, "state", e.State, "leftovers", len(e.Leftovers)}
		if !e.Started.IsZero() {
			args = append(args, "started_at", e.Started.UTC().Format(time.RFC3339))
		}
		if !e.LastSeen.IsZero() {
			args = append(args, "last_seen_at", e.LastSeen.UTC().Format(time.RFC3339))
		}
		l.log.Warn(msg, args...)
		if len(e.Leftovers) > 0 {
			l.log.Warn("processes of its panes still run; `signaltty doctor --stop-leftovers` stops them", "pids", Pids(e.Leftovers))
		}
	}
	l.mu.Lock()
	l.exits = found
	l.mu.Unlock()
}

// PreviousDaemons returns the previous daemons found at start, each with the
// leftover processes that still run now. A daemon whose leftovers were
// all gone at the last look is not looked at again: no new process can
// carry its mark.
func (l *Leftovers) PreviousDaemons() []PreviousDaemon {
	l.mu.Lock()
	exits := append([]PreviousDaemon(nil), l.exits...)
	l.mu.Unlock()
	changed := false
	for i, e := range exits {
		if len(e.Leftovers) > 0 {
			exits[i].Leftovers = scanMarked(l.marksOf(e))
			changed = true
		}
	}
	if changed {
		l.set(exits)
	}
	return exits
}

// set replaces the leftovers of the recorded exits by those of
// exits (same daemons, same order).
func (l *Leftovers) set(exits []PreviousDaemon) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range l.exits {
		if i < len(exits) && l.exits[i].Pid == exits[i].Pid && l.exits[i].Mark == exits[i].Mark {
			l.exits[i].Leftovers = exits[i].Leftovers
		}
	}
}

// Stop ends every leftover process of the previous daemons: SIGTERM
// and SIGCONT, up to 2000 ms for it to exit, then SIGKILL and up to
// 1000 ms more; then it looks again (a process may have forked meanwhile),
// up to three times. A process is signalled only through a pidfd, after
// checking that the pid still names the process that was found (same
// start time, same mark). It returns the processes that ended and those
// still running; ctx ends the waits early (those still running are then
// in remaining).
func (l *Leftovers) Stop(ctx context.Context) (stopped, remaining []LeftoverProcess) {
	exits := l.PreviousDaemons()
	for round := 0; round < leftoverRounds; round++ {
		var targets []leftoverTarget
		for _, e := range exits {
			if e.Mark == l.mark.Value {
				continue // never this daemon's own processes
			}
			m := l.marksOf(e)
			for _, p := range scanMarked(m) {
				if t, ok := pin(p, m); ok {
					targets = append(targets, t)
				}
			}
		}
		if len(targets) == 0 {
			break
		}
		l.log.Info("stopping leftover processes of a previous daemon", "pids", Pids(targetProcs(targets)))
		ended := stopPinned(ctx, targets)
		stopped = append(stopped, ended...)
		if ctx.Err() != nil {
			break
		}
	}
	for i, e := range exits {
		exits[i].Leftovers = scanMarked(l.marksOf(e))
		remaining = append(remaining, exits[i].Leftovers...)
	}
	l.set(exits)
	return stopped, remaining
}

// leftoverTarget is a leftover process pinned by a pidfd.
type leftoverTarget struct {
	proc LeftoverProcess
	pinned
}

func targetProcs(ts []leftoverTarget) []LeftoverProcess {
	out := make([]LeftoverProcess, len(ts))
	for i, t := range ts {
		out[i] = t.proc
	}
	return out
}

// pin opens a pidfd for p and checks that it names the process found: the
// same start time and the mark.
func pin(p LeftoverProcess, mark daemonMarks) (leftoverTarget, bool) {
	fd, err := unix.PidfdOpen(p.Pid, 0)
	if err != nil {
		return leftoverTarget{}, false
	}
	if st, ok := StartTime(p.Pid); !ok || st != p.start {
		unix.Close(fd)
		return leftoverTarget{}, false
	}
	if hard, ok := HardRTTime(p.Pid); !ok || !mark.has(hard) {
		unix.Close(fd)
		return leftoverTarget{}, false
	}
	return leftoverTarget{proc: p, pinned: pinned{pid: p.Pid, fd: fd}}, true
}

// stopPinned signals the targets (SIGTERM, SIGCONT; after the grace
// SIGKILL), closes their pidfds and returns those that exited.
func stopPinned(ctx context.Context, ts []leftoverTarget) []LeftoverProcess {
	ps := make([]pinned, len(ts))
	for i, t := range ts {
		ps[i] = t.pinned
	}
	signalAll(ps, unix.SIGTERM)
	signalAll(ps, unix.SIGCONT)
	ps = waitGone(ctx, ps, leftoverGrace)
	signalAll(ps, unix.SIGKILL)
	ps = waitGone(ctx, ps, leftoverKillWait)
	live := map[int]bool{}
	for _, p := range ps {
		live[p.fd] = true
		unix.Close(p.fd)
	}
	var ended []LeftoverProcess
	for _, t := range ts {
		if !live[t.fd] {
			ended = append(ended, t.proc)
		}
	}
	return ended
}

// Marks returns the previous daemons whose leftover processes still
// run now, for the lock record a clean exit leaves, so that the next
// daemon reports them again.
func (l *Leftovers) Marks() []PreviousDaemon {
	var out []PreviousDaemon
	for _, e := range l.PreviousDaemons() {
		if len(e.Leftovers) > 0 {
			out = append(out, e)
		}
	}
	return out
}

// daemonMarks are the hard RLIMIT_RTTIME values of one daemon's processes:
// its own mark, which its panes' processes inherit, and the range of the
// marks it gives each process instance of a pane (Mark.NewInstance),
// which its pid names.
type daemonMarks struct {
	value uint64
	// lo < hard <= hi is the instance range; empty when lo == hi.
	lo, hi uint64
}

// marksOf returns the marks of the previous daemon e. When e had this
// daemon's pid, its instance range is this daemon's too and only its own
// mark tells its processes apart (docs/termination.md, "Leftovers").
func (l *Leftovers) marksOf(e PreviousDaemon) daemonMarks {
	m := daemonMarks{value: e.Mark}
	if e.Pid != os.Getpid() {
		m.lo, m.hi = l.mark.InstanceRange(e.Pid)
	}
	return m
}

// has reports whether hard is one of the marks.
func (m daemonMarks) has(hard uint64) bool {
	return hard == m.value || (m.lo < hard && hard <= m.hi)
}

// scanMarked lists the live processes of this user, other than this
// daemon, whose hard RLIMIT_RTTIME is one of mark's, by pid (ScanMarks).
func scanMarked(mark daemonMarks) []LeftoverProcess {
	if mark.value == 0 {
		return nil
	}
	uid := uint32(os.Getuid())
	var out []LeftoverProcess
	ScanMarks(func(pid int, hard uint64) {
		if !mark.has(hard) || !ownedBy(pid, uid) {
			return
		}
		start, ok := StartTime(pid)
		if !ok {
			return // gone, or a zombie
		}
		out = append(out, LeftoverProcess{Pid: pid, Name: Name(pid), start: start})
	})
	return out
}

// Pids are the pids of ps, in order.
func Pids(ps []LeftoverProcess) []int {
	out := make([]int, len(ps))
	for i, p := range ps {
		out[i] = p.Pid
	}
	return out
}

// Own reports whether processes with this daemon's own mark, other
// than itself, still run: after Shutdown, what its panes left (processes
// outside their process groups, or that outlived a leader's exit). False
// when its mark names no instance.
func (l *Leftovers) Own() bool {
	if !l.mark.Instance {
		return false
	}
	m := daemonMarks{value: l.mark.Value}
	m.lo, m.hi = l.mark.InstanceRange(os.Getpid())
	return len(scanMarked(m)) > 0
}

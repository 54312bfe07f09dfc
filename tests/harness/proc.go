package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Proc is a process as /proc/<pid>/stat shows it.
type Proc struct {
	Pid     int
	Comm    string
	State   byte // R, S, D, Z, T…
	Ppid    int
	Pgrp    int
	Session int
	TtyNr   int
}

func (p Proc) String() string {
	return fmt.Sprintf("pid %d (%s) state %c ppid %d pgrp %d session %d tty %d", p.Pid, p.Comm, p.State, p.Ppid, p.Pgrp, p.Session, p.TtyNr)
}

// ReadProc reads /proc/<pid>/stat; ok is false when the process is gone.
func ReadProc(pid int) (Proc, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Proc{}, false
	}
	s := string(b)
	open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || closing < open {
		return Proc{}, false
	}
	f := strings.Fields(s[closing+1:])
	if len(f) < 5 {
		return Proc{}, false
	}
	p := Proc{Pid: pid, Comm: s[open+1 : closing], State: f[0][0]}
	p.Ppid, _ = strconv.Atoi(f[1])
	p.Pgrp, _ = strconv.Atoi(f[2])
	p.Session, _ = strconv.Atoi(f[3])
	p.TtyNr, _ = strconv.Atoi(f[4])
	return p, true
}

// Procs lists every process.
func Procs() []Proc {
	ents, _ := os.ReadDir("/proc")
	var out []Proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := ReadProc(pid); ok {
			out = append(out, p)
		}
	}
	return out
}

// Children lists the processes whose parent is pid, zombies included.
func Children(pid int) []Proc {
	var out []Proc
	for _, p := range Procs() {
		if p.Ppid == pid {
			out = append(out, p)
		}
	}
	return out
}

// Gone reports whether pid no longer runs: it does not exist, or it is a
// zombie that is not ours to reap (PID 1 on this kind of machine reaps
// orphans only every few seconds).
func Gone(pid int) bool {
	p, ok := ReadProc(pid)
	return !ok || p.State == 'Z'
}

// WaitGone polls until every pid is Gone.
func WaitGone(t testing.TB, timeout time.Duration, what string, pids ...int) {
	t.Helper()
	Eventually(t, timeout, what, func() (bool, string) {
		var alive []string
		for _, pid := range pids {
			if !Gone(pid) {
				p, _ := ReadProc(pid)
				alive = append(alive, p.String())
			}
		}
		return len(alive) == 0, strings.Join(alive, "\n")
	})
}

// FDs lists the open descriptors of pid (their link targets by number).
func FDs(t testing.TB, pid int) map[int]string {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("reading %s: %v", dir, err)
	}
	out := map[int]string{}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		target, _ := os.Readlink(filepath.Join(dir, e.Name()))
		out[fd] = target
	}
	return out
}

// Environ reads /proc/<pid>/environ into a map.
func Environ(t testing.TB, pid int) map[string]string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Fatalf("reading the environment of pid %d: %v", pid, err)
	}
	out := map[string]string{}
	for _, kv := range strings.Split(string(b), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			out[k] = v
		}
	}
	return out
}

// DumpProcs renders processes for failure messages.
func DumpProcs(ps []Proc) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// Cmdline reads /proc/<pid>/cmdline ("" when gone).
func Cmdline(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// DaemonsFor lists running (not zombie) signalttyd processes whose command
// line or environment names address: for daemons the tests did not start
// themselves (CLI autostart).
func DaemonsFor(address string) []int {
	var out []int
	for _, p := range Procs() {
		if p.State == 'Z' || p.Comm != "signalttyd" {
			continue
		}
		found := false
		for _, a := range Cmdline(p.Pid) {
			if a == address {
				found = true
			}
		}
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", p.Pid)); err == nil && strings.Contains("\x00"+string(b)+"\x00", "\x00SIGNALTTY_ADDRESS="+address+"\x00") {
			found = true
		}
		if found {
			out = append(out, p.Pid)
		}
	}
	return out
}

// Runs reports whether process pid runs the program at path, and the path
// /proc/<pid>/exe names (for messages). It compares the files, not the
// names: a process in another mount namespace under a chroot (a private
// user manager inside tests/fresh-machine.sh's root) has an exe link that
// names its file from that namespace's root.
func Runs(pid int, path string) (bool, string) {
	link := fmt.Sprintf("/proc/%d/exe", pid)
	name, _ := os.Readlink(link)
	got, err := os.Stat(link)
	if err != nil {
		return false, name
	}
	want, err := os.Stat(path)
	return err == nil && os.SameFile(got, want), name
}

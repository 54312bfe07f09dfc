package cgroup

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Tree is the daemon's delegated cgroup with the panes' groups below it.
type Tree struct {
	Path        string   // absolute directory of the daemon's cgroup (e.g. /sys/fs/cgroup/…/signaltty.service)
	Controllers []string // controllers enabled for the panes' groups ("memory", "pids", "cpu"), possibly none
}

// Limits are optional per-group limits; zero means none.
type Limits struct {
	MemoryMax int64 // bytes, memory.max (needs the memory controller)
	PidsMax   int64 // tasks, pids.max (needs the pids controller)
}

// ErrNoController: a limit needs a controller the tree does not have.
var ErrNoController = errors.New("cgroup controller not available")

// Own returns the directory of this process's cgroup on the unified
// hierarchy: /sys/fs/cgroup on a unified system, /sys/fs/cgroup/unified on
// a hybrid one.
func Own() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	rel := ""
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			rel = p
		}
	}
	if rel == "" || rel == "/" {
		return "", errors.New("no cgroup on the unified hierarchy (or the root cgroup)")
	}
	mnt, err := unifiedMount()
	if err != nil {
		return "", err
	}
	return filepath.Join(mnt, rel), nil
}

func unifiedMount() (string, error) {
	f, err := os.Open("/proc/self/mounts")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) >= 3 && fs[2] == "cgroup2" {
			return fs[1], nil
		}
	}
	return "", errors.New("no cgroup2 file system mounted")
}

// Setup prepares dir (the daemon's own, delegated cgroup): it moves every
// process in dir into dir/daemon and enables the memory, pids and cpu
// controllers for the children where dir has them. It needs cgroup.kill
// (Linux 5.14).
func Setup(dir string) (*Tree, error) {
	if _, err := os.Stat(filepath.Join(dir, "cgroup.kill")); err != nil {
		return nil, fmt.Errorf("no cgroup.kill in %s (Linux 5.14 or later): %w", dir, err)
	}
	leaf := filepath.Join(dir, "daemon")
	if err := os.Mkdir(leaf, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, err
	}
	for _, pid := range readPids(filepath.Join(dir, "cgroup.procs")) {
		if err := os.WriteFile(filepath.Join(leaf, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil &&
			!errors.Is(err, syscall.ESRCH) {
			return nil, fmt.Errorf("moving pid %d into %s: %w", pid, leaf, err)
		}
	}
	t := &Tree{Path: dir}
	avail, _ := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	for _, c := range []string{"memory", "pids", "cpu"} {
		if !slices.Contains(strings.Fields(string(avail)), c) {
			continue
		}
		if os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+"+c), 0) == nil {
			t.Controllers = append(t.Controllers, c)
		}
	}
	return t, nil
}

// Group is one pane's cgroup.
type Group struct {
	Path string // absolute directory
}

// Create makes the group name below the tree with limits. A limit whose
// controller the tree lacks is ErrNoController, and nothing is left.
func (t *Tree) Create(name string, l Limits) (*Group, error) {
	if !t.Supports(l) {
		return nil, ErrNoController
	}
	g := &Group{Path: filepath.Join(t.Path, name)}
	if err := os.Mkdir(g.Path, 0o755); err != nil {
		return nil, err
	}
	set := func(file string, v int64) error {
		if v <= 0 {
			return nil
		}
		return os.WriteFile(filepath.Join(g.Path, file), []byte(strconv.FormatInt(v, 10)), 0)
	}
	if err := errors.Join(set("memory.max", l.MemoryMax), set("pids.max", l.PidsMax)); err != nil {
		os.Remove(g.Path)
		return nil, err
	}
	return g, nil
}

// Supports reports whether the tree has the controllers l needs.
func (t *Tree) Supports(l Limits) bool {
	return (l.MemoryMax <= 0 || slices.Contains(t.Controllers, "memory")) &&
		(l.PidsMax <= 0 || slices.Contains(t.Controllers, "pids"))
}

// Open returns the group's directory opened for clone3(CLONE_INTO_CGROUP)
// (syscall.SysProcAttr.CgroupFD); the caller closes it.
func (g *Group) Open() (*os.File, error) {
	fd, err := unix.Open(g.Path, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: g.Path, Err: err}
	}
	return os.NewFile(uintptr(fd), g.Path), nil
}

// Pids lists the processes in the group (cgroup.procs).
func (g *Group) Pids() []int { return readPids(filepath.Join(g.Path, "cgroup.procs")) }

// Kill SIGKILLs every process in the group at once (cgroup.kill), including
// those that left the pane's session or process group.
func (g *Group) Kill() error {
	return os.WriteFile(filepath.Join(g.Path, "cgroup.kill"), []byte("1"), 0)
}

// Populated reports whether a process is still in the group (cgroup.events).
func (g *Group) Populated() bool {
	b, err := os.ReadFile(filepath.Join(g.Path, "cgroup.events"))
	if err != nil {
		return false
	}
	return strings.Contains(string(b), "populated 1")
}

// Remove kills what is left in the group and removes it once empty,
// waiting up to wait. A group still populated then is left in place.
func (g *Group) Remove(wait time.Duration) error {
	if g.Populated() {
		g.Kill()
	}
	deadline := time.Now().Add(wait)
	for delay := time.Millisecond; ; delay = min(delay*2, 50*time.Millisecond) {
		err := os.Remove(g.Path)
		if err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(delay)
	}
}

// Usage is what a group used, where the kernel reports it.
type Usage struct {
	MemoryBytes *int64 // memory.current; nil without the memory controller
	CPUUsec     *int64 // usage_usec of cpu.stat (user + system CPU time, µs)
}

// Usage reads the group's memory and CPU use.
func (g *Group) Usage() Usage {
	var u Usage
	if b, err := os.ReadFile(filepath.Join(g.Path, "memory.current")); err == nil {
		if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
			u.MemoryBytes = &v
		}
	}
	if b, err := os.ReadFile(filepath.Join(g.Path, "cpu.stat")); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "usage_usec "); ok {
				if n, err := strconv.ParseInt(v, 10, 64); err == nil {
					u.CPUUsec = &n
				}
			}
		}
	}
	return u
}

func readPids(file string) []int {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

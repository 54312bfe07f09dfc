package service

import (
	"strconv"
	"sync/atomic"
	"time"

	"github.com/signaltty/signaltty/cgroup"
	"github.com/signaltty/signaltty/pty"
	"github.com/signaltty/signaltty/service/errcode"
)

// One cgroup per pane (docs/systemd.md, "One cgroup per pane"). With a
// delegated cgroup (Config.Cgroups) every process a pane starts lives in a
// cgroup of its own, named at the reservation and made at the launch; the
// pane's termination ends with its cgroup.kill (pty/terminate.go), and the
// cgroup is removed, with whatever is left in it, when the instance is
// released (relaunch, removal, shutdown, a failed start). A leader that
// exits on its own leaves its escaped descendants running until then.

// CgroupMode is how the panes are contained (Server.GetStatus cgroups).
type CgroupMode struct {
	Mode        string // "delegated" or "off"
	Path        string // the daemon's cgroup, when delegated
	Controllers []string
	Reason      string           // why off
	Escaped     map[string][]int // pane id -> pids left in the cgroup of an exited leader
}

// PaneCgroup is a pane's cgroup as Mux.GetPane reports it.
type PaneCgroup struct {
	Path        string
	Pids        []int  // every process in it
	Escaped     []int  // processes left after the leader exited
	MemoryBytes *int64 // memory.current; nil without the memory controller
	CPUUsec     *int64 // cpu.stat usage_usec
	MemoryMax   int64  // bytes; 0 = no limit
	PidsMax     int64  // tasks; 0 = no limit
}

// removeWait bounds the wait for a killed cgroup to empty before rmdir.
const removeWait = 2 * time.Second

var cgroupSeq atomic.Int64

// cgroupPolicy is how the panes are contained: the delegated cgroup
// (Config.Cgroups; nil: none) or why there is none (Config.CgroupsOff).
type cgroupPolicy struct {
	tree *cgroup.Tree
	off  string
}

// offReason says why the panes are not contained.
func (c cgroupPolicy) offReason() string {
	if c.off == "" {
		return "no delegated cgroup"
	}
	return c.off
}

// Cgroups reports the containment mode and the escaped processes.
func (s *Service) Cgroups() CgroupMode {
	t := s.limits.cgroups.tree
	if t == nil {
		return CgroupMode{Mode: "off", Reason: s.limits.cgroups.offReason()}
	}
	m := CgroupMode{Mode: "delegated", Path: t.Path, Controllers: append([]string{}, t.Controllers...),
		Escaped: map[string][]int{}}
	groups := map[string]*cgroup.Group{}
	s.mu.Lock()
	for id, p := range s.panes {
		if p.announced() && p.inst != nil && p.inst.proc != nil && !p.shown().hasProcess() {
			if g := p.inst.proc.Cgroup(); g != nil {
				groups[id] = g
			}
		}
	}
	s.mu.Unlock()
	for id, g := range groups {
		if pids := g.Pids(); len(pids) > 0 {
			m.Escaped[id] = pids
		}
	}
	return m
}

// cgroupName names the cgroup of a pane's next process; unique for the
// daemon's lifetime.
func cgroupName(paneID string) string {
	return "pane-" + paneID + "-" + strconv.FormatInt(cgroupSeq.Add(1), 10)
}

// create makes the reserved cgroup before the launch; s.mu is not held.
// Without a delegated cgroup it does nothing. Errors: unavailable.cgroup
// (data.path).
func (c cgroupPolicy) create(st *start) *Error {
	if c.tree == nil {
		return nil
	}
	g, err := c.tree.Create(st.cgroupName, st.limits)
	if err != nil {
		return newError(errcode.UnavailableCgroup, map[string]any{"path": c.tree.Path},
			"cannot create the pane's cgroup: %v", err)
	}
	st.cfg.Cgroup = g
	return nil
}

// check refuses limits the daemon cannot set. Errors: invalid_params.limits
// (negative), unavailable.cgroup (no delegated cgroup, or data.controllers
// lacking the limit's).
func (c cgroupPolicy) check(l cgroup.Limits) *Error {
	if l.MemoryMax < 0 || l.PidsMax < 0 {
		return invalid("limits", "negative", "memory_max and pids_max must be at least 1")
	}
	if l == (cgroup.Limits{}) {
		return nil
	}
	if c.tree == nil {
		return newError(errcode.UnavailableCgroup, nil, "per-pane limits need a delegated cgroup (%s)", c.offReason())
	}
	if !c.tree.Supports(l) {
		return newError(errcode.UnavailableCgroup, map[string]any{"controllers": c.tree.Controllers},
			"the delegated cgroup lacks the controller for this limit (has %v)", c.tree.Controllers)
	}
	return nil
}

// dropCgroup removes the cgroup of a released process (after its Close);
// s.mu is not held.
func dropCgroup(proc *pty.Process) {
	if proc == nil {
		return
	}
	if g := proc.Cgroup(); g != nil {
		g.Remove(removeWait)
	}
}

// paneCgroupOf reads a pane's cgroup; s.mu is not held (cgroupfs reads).
// leader is the leader's pid while it runs, else 0.
func paneCgroupOf(g *cgroup.Group, l cgroup.Limits, leader int) *PaneCgroup {
	if g == nil {
		return nil
	}
	u := g.Usage()
	pc := &PaneCgroup{Path: g.Path, Pids: g.Pids(), MemoryBytes: u.MemoryBytes, CPUUsec: u.CPUUsec,
		MemoryMax: l.MemoryMax, PidsMax: l.PidsMax}
	if pc.Pids == nil {
		pc.Pids = []int{}
	}
	pc.Escaped = []int{}
	if leader == 0 {
		pc.Escaped = append(pc.Escaped, pc.Pids...)
	}
	return pc
}

// cgroupRef is what GetPane and ListPanes take under s.mu to read a pane's
// cgroup after unlocking.
type cgroupRef struct {
	g      *cgroup.Group
	limits cgroup.Limits
	leader int
}

// cgroupRefOfLocked is p's current cgroup; s.mu is held.
func cgroupRefOfLocked(p *pane, snap Pane) cgroupRef {
	if p.inst == nil || p.inst.proc == nil {
		return cgroupRef{}
	}
	return cgroupRef{g: p.inst.proc.Cgroup(), limits: p.limits, leader: snap.Pid}
}

func (r cgroupRef) fill(snap *Pane) {
	snap.Cgroup = paneCgroupOf(r.g, r.limits, r.leader)
}

package authz

import (
	"sort"
	"time"
)

// SharedHelperSeen is an agent's shared helper that callers descended
// from (doctor): the agent, its pid, the pane it was started from ("" if
// unknown: first seen after that pane ended), the connections denied, and
// how to run one helper per pane instead (Adapter.SharedHelperFix).
type SharedHelperSeen struct {
	Agent       string
	Fix         string
	Pid         int
	Pane        string
	Connections int64
	LastAt      time.Time
}

// UnattributedCaller counts connections of unattributed processes of one
// name (/proc/PID/comm) since the daemon started (doctor).
type UnattributedCaller struct {
	Name        string
	Pid         int // the last one's
	Connections int64
	LastAt      time.Time
}

// Bounds of what Callers keeps: names of unattributed processes, shared
// helpers.
const (
	maxUnattributedNames = 64
	maxSharedHelpers     = 16
)

// Callers counts the connections of callers no pane claims: unattributed
// processes by name, and the shared agent helpers callers descended from
// by pid (docs/security.md, "Shared agent helpers"). The zero Callers is
// ready; it is not safe for concurrent use.
type Callers struct {
	unattributed map[string]*UnattributedCaller
	helpers      map[int]*SharedHelperSeen
}

// NoteUnattributed counts a connection at time at of the unattributed
// process pid named name; a new name beyond the bound is not kept.
func (c *Callers) NoteUnattributed(name string, pid int, at time.Time) {
	if c.unattributed == nil {
		c.unattributed = map[string]*UnattributedCaller{}
	}
	u := c.unattributed[name]
	if u == nil {
		if len(c.unattributed) >= maxUnattributedNames {
			return
		}
		u = &UnattributedCaller{Name: name}
		c.unattributed[name] = u
	}
	u.Pid, u.LastAt = pid, at
	u.Connections++
}

// KnowsHelper reports whether shared helper pid was seen before.
func (c *Callers) KnowsHelper(pid int) bool { return c.helpers[pid] != nil }

// NoteHelper counts a denied connection at time at through shared helper
// pid of agent; pane (the pane it was started from) and fix are kept the
// first time. A new helper beyond the bound is not kept.
func (c *Callers) NoteHelper(pid int, agent, pane, fix string, at time.Time) {
	if c.helpers == nil {
		c.helpers = map[int]*SharedHelperSeen{}
	}
	h := c.helpers[pid]
	if h == nil {
		if len(c.helpers) >= maxSharedHelpers {
			return
		}
		h = &SharedHelperSeen{Agent: agent, Pid: pid, Pane: pane, Fix: fix}
		c.helpers[pid] = h
	}
	h.Connections++
	h.LastAt = at
}

// Helpers returns the shared helpers for which alive holds, by pid; the
// others are dropped.
func (c *Callers) Helpers(alive func(pid int) bool) []SharedHelperSeen {
	out := make([]SharedHelperSeen, 0, len(c.helpers))
	for pid, h := range c.helpers {
		if !alive(pid) {
			delete(c.helpers, pid)
			continue
		}
		out = append(out, *h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pid < out[j].Pid })
	return out
}

// Unattributed returns the counts of NoteUnattributed, by name.
func (c *Callers) Unattributed() []UnattributedCaller {
	out := make([]UnattributedCaller, 0, len(c.unattributed))
	for _, u := range c.unattributed {
		out = append(out, *u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

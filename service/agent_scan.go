package service

import (
	"os"
	"strconv"
	"strings"

	"github.com/signaltty/signaltty/service/agents"
	"github.com/signaltty/signaltty/service/events"
	"github.com/signaltty/signaltty/service/procs"
	"github.com/signaltty/signaltty/term"
)

// The on-demand /proc scan (docs/agents.md, "The agent of a pane"): when
// panes are listed or read, a live pane whose kind is none or generic (a
// shell, a wrapper) is looked at once: if the foreground process group of
// its terminal is led by an agent's program, the pane is promoted to that
// kind. Nothing polls; a kind is never demoted.

// scanAgents promotes panes whose foreground program is an agent: the pane
// id, or every pane when id is "". It takes s.mu itself and looks at the
// terminals and /proc without it. The foreground group comes from one ioctl
// on each PTY; /proc is read only for a pane whose foreground group is not
// its leader's (a program started from its shell). A pane whose terminal
// has had no output since its last scan is not looked at again: a program
// taking over the foreground is seen once it (or the echo of the command
// line that started it) writes. So listing many idle panes costs no
// system call per pane.
func (s *Service) scanAgents(id string) {
	type cand struct {
		p      *pane
		inst   *instance
		pid    int
		offset int64 // of the terminal's output before the look
	}
	var cands []cand
	s.mu.Lock()
	panes := s.panes
	if id != "" { // one pane: no walk over all of them
		panes = nil
		if p := s.panes[id]; p != nil {
			panes = map[string]*pane{id: p}
		}
	}
	for _, p := range panes {
		if p.announced() && p.state == stateLive && p.agent.Promotable() {
			off := p.inst.proc.Offset()
			if p.agent.scanned == p.inst && p.agent.scannedAt == off {
				continue // no output since the last look
			}
			cands = append(cands, cand{p, p.inst, p.inst.proc.Pid(), off})
		}
	}
	s.mu.Unlock()
	if len(cands) == 0 {
		return
	}
	found := map[*pane]string{}
	defer func() { // what was looked at, found or not
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, c := range cands {
			if c.p.inst == c.inst {
				c.p.agent.scanned, c.p.agent.scannedAt = c.inst, c.offset
			}
		}
	}()
	for _, c := range cands {
		fg := c.inst.proc.ForegroundGroup()
		if fg <= 0 || fg == c.pid {
			continue
		}
		for _, prog := range programsOf(fg) {
			if kind := agents.Detect(prog); kind != agents.KindNone {
				found[c.p] = kind
				break
			}
		}
	}
	if len(found) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range cands {
		kind, ok := found[c.p]
		if !ok || c.p.inst != c.inst || c.p.state != stateLive || !c.p.agent.Promotable() {
			continue
		}
		c.p.agent.Promote(kind, c.p.launch())
		s.emitLocked(events.PaneUpdated{Pane: c.p.id, Screen: c.p.screenName()})
		s.persist.MarkDirtyLocked()
	}
}

// screenName is the pane's screen as PaneUpdated names it.
func (p *pane) screenName() string {
	if p.altScreen {
		return term.ScreenAlternate
	}
	return term.ScreenPrimary
}

// programsOf names what process pid runs: its comm (the executed file's
// name, also for a "#!" script), argv[0] and argv[1] (the script an
// interpreter such as node runs).
func programsOf(pid int) []string {
	dir := "/proc/" + strconv.Itoa(pid) + "/"
	var out []string
	if b, err := os.ReadFile(dir + "comm"); err == nil {
		out = append(out, strings.TrimSpace(string(b)))
	}
	argv := procs.Argv(pid)
	return append(out, argv[:min(len(argv), 2)]...)
}

package service

import (
	"bytes"
	"os"
	"strconv"
	"strings"

	"github.com/signaltty/signaltty/service/agents"
	"github.com/signaltty/signaltty/term"
)

// The on-demand /proc scan (docs/agents.md, "The agent of a pane"): when
// panes are listed or read, a live pane whose kind is none or generic (a
// shell, a wrapper) is looked at once: if the foreground process group of
// its terminal is led by an agent's program, the pane is promoted to that
// kind. Nothing polls; a kind is never demoted.

// scanAgents promotes panes whose foreground program is an agent. It takes
// s.mu itself and reads /proc without it.
func (s *Service) scanAgents() {
	type cand struct {
		p    *pane
		inst *instance
		pid  int
	}
	var cands []cand
	s.mu.Lock()
	for _, p := range s.panes {
		if p.announced && p.state == stateLive && (!p.agent.hasAgent() || p.agent.kind == agents.KindGeneric) {
			cands = append(cands, cand{p, p.inst, p.inst.proc.Pid()})
		}
	}
	s.mu.Unlock()
	if len(cands) == 0 {
		return
	}
	found := map[*pane]string{}
	for _, c := range cands {
		fg := foregroundGroup(c.pid)
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
		if !ok || c.p.inst != c.inst || c.p.state != stateLive || (c.p.agent.hasAgent() && c.p.agent.kind != agents.KindGeneric) {
			continue
		}
		c.p.agent.kind = kind
		if c.p.agent.sessionID != "" && !c.p.agent.resumeReported {
			c.p.agent.resumeArgv = s.officialArgv(c.p, kind, c.p.agent.sessionID)
		}
		s.emit(PaneUpdated{Pane: c.p.id, Screen: c.p.screenName()})
		s.markDirty()
	}
}

// screenName is the pane's screen as PaneUpdated names it.
func (p *pane) screenName() string {
	if p.altScreen {
		return term.ScreenAlternate
	}
	return term.ScreenPrimary
}

// foregroundGroup is the foreground process group of pid's controlling
// terminal (tpgid in /proc/PID/stat), 0 if unknown.
func foregroundGroup(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:]) // state ppid pgrp session tty_nr tpgid ...
	if len(f) < 6 {
		return 0
	}
	n, _ := strconv.Atoi(f[5])
	return n
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
	if b, err := os.ReadFile(dir + "cmdline"); err == nil {
		args := bytes.SplitN(b, []byte{0}, 3)
		for i := 0; i < len(args) && i < 2; i++ {
			out = append(out, string(args[i]))
		}
	}
	return out
}

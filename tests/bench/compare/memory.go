package main

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Memory: the server's VmRSS before and after making N panes (each in a
// fresh server), after the panes finished their output and a settling
// pause. Only the server process counts, not the panes' programs.

const settle = 3 * time.Second

type memWorkload struct {
	name  string
	panes int
	argv  func(b *bench) []string // the pane's program
	last  func(b *bench) string   // last line the pane shows when done ("" = nothing to wait for)
	// prompt: wait until every pane shows a shell prompt on its first row,
	// then idle for the emulator release time (-release) before measuring.
	prompt bool
}

// promptRE is `bash --norc -i`'s default prompt (PS1 "\s-\v\$ ").
var promptRE = regexp.MustCompile(`^bash-[0-9.]+[#$]$`)

// bashPanes is the idle printed panes workload (-bashpanes).
var bashPanes = 1000

// releaseWait is how long the prompt panes idle before the measurement; the
// daemon is told the same as its idle emulator release time
// (SIGNALTTY_EMULATOR_RELEASE_MS).
var releaseWait = 5 * time.Second

var memWorkloads = []memWorkload{
	{"idle", 100, func(*bench) []string { return []string{"sleep", "infinity"} }, nil, false},
	{"short10k", 20,
		func(b *bench) []string {
			return []string{"sh", "-c", "cat " + b.content["short10k"].file + "; exec sleep infinity"}
		},
		func(b *bench) string { c := b.content["short10k"]; return c.text(c.lines - 1) }, false},
	{"full10k", 100,
		func(b *bench) []string {
			return []string{"sh", "-c", "cat " + b.content["full10k"].file + "; exec sleep infinity"}
		},
		func(b *bench) string { c := b.content["full10k"]; return c.text(c.lines - 1) }, false},
	{"color10k", 20,
		func(b *bench) []string {
			return []string{"sh", "-c", "cat " + b.content["color10k"].file + "; exec sleep infinity"}
		},
		func(b *bench) string { c := b.content["color10k"]; return c.text(c.lines - 1) }, false},
	{"bash", 0, func(*bench) []string { return []string{"bash", "--norc", "-i"} }, nil, true},
}

// panesOf is w's pane count (the prompt workload's is set by a flag).
func (w memWorkload) panesOf() int {
	if w.prompt {
		return bashPanes
	}
	return w.panes
}

// memSignaltty returns the daemon's RSS growth in KiB. With wake, it then
// counts the daemon's timeslices over wake (idle wake-ups).
func memSignaltty(b *bench, w memWorkload, wake time.Duration) (kib int64, slices int64, err error) {
	env := memProfEnv()
	if w.prompt {
		env = append(env, fmt.Sprintf("SIGNALTTY_EMULATOR_RELEASE_MS=%d", releaseWait.Milliseconds()))
	}
	d, err := startDaemon(b.bin, b.tmp, env...)
	if err != nil {
		return 0, 0, err
	}
	defer d.stop()
	const perWS = 100 // as the scale workload: workspaces of 100 panes
	for i := 0; i < (w.panesOf()+perWS-1)/perWS; i++ {
		if err := d.createWorkspace(fmt.Sprint("mem", i)); err != nil {
			return 0, 0, err
		}
	}
	time.Sleep(time.Second)
	rss0 := rssKiB(d.pid())
	memProfile(d, w.name+"-0")
	panes := make([]string, w.panesOf())
	for i := range panes {
		if panes[i], err = d.spawn(fmt.Sprint("mem", i/perWS), 80, 24, w.argv(b)...); err != nil {
			return 0, 0, err
		}
	}
	if w.last != nil {
		want := w.last(b)
		for _, p := range panes {
			if err := pollFor(60*time.Second, func() (bool, error) {
				c, err := d.capture(p, nil, nil)
				if err != nil {
					return false, err
				}
				return len(c.Lines) > 1 && strings.TrimRight(c.Lines[len(c.Lines)-2], " ") == want, nil
			}); err != nil {
				return 0, 0, fmt.Errorf("signaltty %s: %v", w.name, err)
			}
		}
		c, err := d.capture(panes[0], nil, nil)
		if err != nil {
			return 0, 0, err
		}
		if h := c.End - int64(c.Rows) - c.Oldest; h != 10000 {
			return 0, 0, fmt.Errorf("signaltty %s: %d history rows, want 10000", w.name, h)
		}
	}
	if w.prompt {
		for _, p := range panes {
			if err := pollFor(120*time.Second, func() (bool, error) {
				c, err := d.capture(p, nil, nil)
				if err != nil {
					return false, err
				}
				return len(c.Lines) > 0 && promptRE.MatchString(strings.TrimRight(c.Lines[0], " ")), nil
			}); err != nil {
				return 0, 0, fmt.Errorf("signaltty %s: no prompt: %v", w.name, err)
			}
		}
		time.Sleep(releaseWait)
	}
	time.Sleep(settle)
	kib = rssKiB(d.pid()) - rss0
	memProfile(d, w.name)
	if wake > 0 {
		s0 := timeslices(d.pid())
		time.Sleep(wake)
		slices = timeslices(d.pid()) - s0
	}
	return kib, slices, nil
}

func memTmux(b *bench, bin *tmuxBin, w memWorkload, wake time.Duration) (kib int64, slices int64, err error) {
	t, err := startTmux(b.tmp, bin)
	if err != nil {
		return 0, 0, err
	}
	defer t.stop()
	if _, err := t.run("new-session", "-d", "-s", "mem", "sleep", "infinity"); err != nil {
		return 0, 0, err
	}
	time.Sleep(time.Second)
	rss0 := rssKiB(t.pid)
	var panes []string
	for len(panes) < w.panesOf() { // 100 new-window commands a client
		var cmds [][]string
		for i := len(panes); i < min(len(panes)+100, w.panesOf()); i++ {
			cmds = append(cmds, append([]string{"new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "mem:"}, w.argv(b)...))
		}
		out, err := t.chain(cmds)
		if err != nil {
			return 0, 0, err
		}
		got := strings.Fields(string(out))
		if len(got) != len(cmds) {
			return 0, 0, fmt.Errorf("tmux %s: %d panes made, want %d", w.name, len(got), len(cmds))
		}
		panes = append(panes, got...)
	}
	if w.last != nil {
		want := w.last(b)
		for _, p := range panes {
			if err := pollFor(60*time.Second, func() (bool, error) {
				out, err := t.run("capture-pane", "-p", "-t", p)
				if err != nil {
					return false, err
				}
				l := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
				return len(l) > 1 && strings.TrimRight(l[len(l)-2], " ") == want, nil
			}); err != nil {
				return 0, 0, fmt.Errorf("tmux %s: %v", w.name, err)
			}
		}
		// Same history for both: 10,000 rows.
		out, err := t.run("display", "-p", "-t", panes[0], "#{history_size}")
		if err != nil {
			return 0, 0, err
		}
		if s := strings.TrimSpace(string(out)); s != "10000" {
			return 0, 0, fmt.Errorf("tmux %s: history_size %s, want 10000", w.name, s)
		}
	}
	if w.prompt {
		for i := 0; i < len(panes); i += 100 { // the first row of 100 panes a client
			var cmds [][]string
			for _, p := range panes[i:min(i+100, len(panes))] {
				cmds = append(cmds, []string{"capture-pane", "-p", "-t", p, "-S", "0", "-E", "0"})
			}
			if err := pollFor(120*time.Second, func() (bool, error) {
				out, err := t.chain(cmds)
				if err != nil {
					return false, err
				}
				rows := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
				ok := len(rows) == len(cmds)
				for _, r := range rows {
					ok = ok && promptRE.MatchString(strings.TrimRight(r, " "))
				}
				return ok, nil
			}); err != nil {
				return 0, 0, fmt.Errorf("tmux %s: no prompt: %v", w.name, err)
			}
		}
		time.Sleep(releaseWait)
	}
	time.Sleep(settle)
	kib = rssKiB(t.pid) - rss0
	if wake > 0 {
		s0 := timeslices(t.pid)
		time.Sleep(wake)
		slices = timeslices(t.pid) - s0
	}
	return kib, slices, nil
}

func pollFor(d time.Duration, cond func() (bool, error)) error {
	deadline := time.Now().Add(d)
	for {
		ok, err := cond()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %v", d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

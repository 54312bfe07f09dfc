package main

import (
	"fmt"
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
}

var memWorkloads = []memWorkload{
	{"idle", 100, func(*bench) []string { return []string{"sleep", "infinity"} }, nil},
	{"short10k", 20,
		func(b *bench) []string {
			return []string{"sh", "-c", "cat " + b.content["short10k"].file + "; exec sleep infinity"}
		},
		func(b *bench) string { c := b.content["short10k"]; return c.text(c.lines - 1) }},
	{"full10k", 100,
		func(b *bench) []string {
			return []string{"sh", "-c", "cat " + b.content["full10k"].file + "; exec sleep infinity"}
		},
		func(b *bench) string { c := b.content["full10k"]; return c.text(c.lines - 1) }},
}

// memSignaltty returns the daemon's RSS growth in KiB. With wake, it then
// counts the daemon's timeslices over wake (idle wake-ups).
func memSignaltty(b *bench, w memWorkload, wake time.Duration) (kib int64, slices int64, err error) {
	d, err := startDaemon(b.bin, b.tmp)
	if err != nil {
		return 0, 0, err
	}
	defer d.stop()
	if err := d.createWorkspace("mem"); err != nil {
		return 0, 0, err
	}
	time.Sleep(time.Second)
	rss0 := rssKiB(d.pid())
	panes := make([]string, w.panes)
	for i := range panes {
		if panes[i], err = d.spawn("mem", 80, 24, w.argv(b)...); err != nil {
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
	time.Sleep(settle)
	kib = rssKiB(d.pid()) - rss0
	if wake > 0 {
		s0 := timeslices(d.pid())
		time.Sleep(wake)
		slices = timeslices(d.pid()) - s0
	}
	return kib, slices, nil
}

func memTmux(b *bench, w memWorkload, wake time.Duration) (kib int64, slices int64, err error) {
	t, err := startTmux(b.tmp)
	if err != nil {
		return 0, 0, err
	}
	defer t.stop()
	if _, err := t.run("new-session", "-d", "-s", "mem", "sleep", "infinity"); err != nil {
		return 0, 0, err
	}
	time.Sleep(time.Second)
	rss0 := rssKiB(t.pid)
	panes := make([]string, w.panes)
	for i := range panes {
		out, err := t.run(append([]string{"new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "mem:"}, w.argv(b)...)...)
		if err != nil {
			return 0, 0, err
		}
		panes[i] = strings.TrimSpace(string(out))
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

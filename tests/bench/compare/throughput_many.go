package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Many panes printing at once: N panes of 80×24, each running
// `seq 1 L`, started together in a fresh server; the time from the first client request
// until every program is done and every pane shows its last line. Each
// system is driven by one client: signaltty by one varlink connection
// (Run.Start ×N, then Run.Wait ×N, then Mux.CaptureRows ×N), tmux by one
// client invocation per phase (N new-window commands joined with ";", then
// N wait-for, then N capture-pane of the last line's row, repeated until all
// show it).

type manyWorkload struct {
	panes, lines int
}

var manySize = size{80, 24}

func (m manyWorkload) String() string {
	return fmt.Sprintf("%d panes × `seq 1 %d`", m.panes, m.lines)
}

// throughputManySignaltty runs in a fresh daemon (started untimed), so that
// no sample leaves work behind for the workloads after it.
func throughputManySignaltty(b *bench, m manyWorkload, key string) (time.Duration, error) {
	last := strconv.Itoa(m.lines)
	runs := make([]string, m.panes)
	panes := make([]string, m.panes)
	d, err := startDaemon(b.bin, b.tmp)
	if err != nil {
		return 0, err
	}
	defer d.stop()
	if err := d.createWorkspace("tp"); err != nil {
		return 0, err
	}
	conn := d.conn
	// All are started before any is waited for: the runs not yet completed
	// must fit max_active (default 64), whatever the machine's speed.
	if err := call(conn, "dev.signaltty.Server.SetConfig", map[string]any{"run_max_active": max(m.panes, 64)}, nil); err != nil {
		return 0, err
	}
	t0 := time.Now()
	for i := range runs {
		var st struct{ Run, Pane string }
		if err := call(conn, "dev.signaltty.Run.Start", map[string]any{"key": fmt.Sprintf("%s-%d", key, i), "workspace": "tp",
			"cols": manySize.cols, "rows": manySize.rows, "argv": []string{"seq", "1", last}}, &st); err != nil {
			return 0, err
		}
		runs[i], panes[i] = st.Run, st.Pane
	}
	for i, r := range runs {
		rec, err := runWait(conn, r, false)
		if err != nil {
			return 0, err
		}
		if rec.Status == nil || *rec.Status != 0 {
			return 0, fmt.Errorf("many: run %d: %+v", i, rec)
		}
	}
	for i, p := range panes {
		var c captureReply
		if err := call(conn, "dev.signaltty.Mux.CaptureRows", map[string]any{"pane": p}, &c); err != nil {
			return 0, err
		}
		if len(c.Lines) != manySize.rows || strings.TrimRight(c.Lines[manySize.rows-2], " ") != last {
			return 0, fmt.Errorf("many: pane %d (%s): screen %q, want %q on row %d", i, p, c.Lines, last, manySize.rows-2)
		}
	}
	return time.Since(t0), nil
}

// throughputManyTmux runs in a fresh tmux server (started untimed).
func throughputManyTmux(b *bench, bin *tmuxBin, m manyWorkload, key string) (time.Duration, error) {
	last := strconv.Itoa(m.lines)
	t, err := startTmux(b.tmp, bin)
	if err != nil {
		return 0, err
	}
	defer t.stop()
	sess := fmt.Sprintf("tp%dx%d", manySize.cols, manySize.rows)
	if _, err := t.run("new-session", "-d", "-s", sess, "-x", fmt.Sprint(manySize.cols), "-y", fmt.Sprint(manySize.rows), "sleep", "infinity"); err != nil {
		return 0, err
	}
	if _, err := t.run("set", "-t", sess, "default-size", fmt.Sprintf("%dx%d", manySize.cols, manySize.rows)); err != nil {
		return 0, err
	}
	var start, wait, capture [][]string
	t0 := time.Now()
	for i := 0; i < m.panes; i++ {
		ch := fmt.Sprintf("many-%s-%d", key, i)
		sh := fmt.Sprintf("seq 1 %s; %s wait-for -S %s; exec sleep infinity", last, t.client(), ch)
		start = append(start, []string{"new-window", "-d", "-P", "-F", "#{pane_id}", "-t", fmt.Sprintf("tp%dx%d:", manySize.cols, manySize.rows), "sh", "-c", sh})
		wait = append(wait, []string{"wait-for", ch})
	}
	out, err := t.chain(start)
	if err != nil {
		return 0, err
	}
	panes := strings.Fields(string(out))
	if len(panes) != m.panes {
		return 0, fmt.Errorf("many: %d panes made, want %d: %q", len(panes), m.panes, out)
	}
	if _, err := t.chain(wait); err != nil {
		return 0, err
	}
	row := strconv.Itoa(manySize.rows - 2)
	for _, p := range panes {
		capture = append(capture, []string{"capture-pane", "-p", "-t", p, "-S", row, "-E", row})
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, err := t.chain(capture)
		if err != nil {
			return 0, err
		}
		got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		done := len(got) == m.panes
		for _, l := range got {
			done = done && strings.TrimRight(l, " ") == last
		}
		if done {
			return time.Since(t0), nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("many %s: last rows %q, want %q", t.bin.label, got, last)
		}
		time.Sleep(time.Millisecond)
	}
}

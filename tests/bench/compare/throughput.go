package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Throughput: `cat FILE` through one pane of cols×rows, from the first
// client command until the program has exited (signaltty) or finished
// (tmux, see below) and the file's last line is capturable.

type size struct{ cols, rows int }

func (s size) String() string { return fmt.Sprintf("%d×%d", s.cols, s.rows) }

// expectScreen is the screen after c's lines: the last rows-1 lines and
// the empty row the cursor ends on.
func expectScreen(c content, rows int) []string {
	out := make([]string, rows)
	for r := 0; r < rows-1; r++ {
		if i := c.lines - (rows - 1) + r; i >= 0 {
			out[r] = c.text(i)
		}
	}
	return out
}

func trimmed(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(l, " ")
	}
	return out
}

func sameLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// throughputSignaltty: `signaltty run -- cat FILE`, `signaltty run wait`,
// `signaltty pane capture` (three CLI invocations, all timed). The screen
// must be exactly the expected one; afterwards (untimed) the oldest kept
// history rows are checked too.
func throughputSignaltty(b *bench, c content, sz size, key string) (time.Duration, error) {
	d := b.sig
	t0 := time.Now()
	out, err := d.cli(b.bin, "--json", "run", "--key", key, "--workspace", "tp",
		"--cols", fmt.Sprint(sz.cols), "--rows", fmt.Sprint(sz.rows), "--", "cat", c.file)
	if err != nil {
		return 0, err
	}
	var st struct{ Run, Pane string }
	if err := json.Unmarshal(out, &st); err != nil {
		return 0, err
	}
	out, err = d.cli(b.bin, "--json", "run", "wait", "--run", st.Run, "--output=false")
	if err != nil {
		return 0, err
	}
	var w struct{ Record record }
	if err := json.Unmarshal(out, &w); err != nil || w.Record.Status == nil || *w.Record.Status != 0 {
		return 0, fmt.Errorf("run wait: %s", out)
	}
	out, err = d.cli(b.bin, "--json", "pane", "capture", "--pane", st.Pane)
	el := time.Since(t0)
	if err != nil {
		return 0, err
	}
	var cap captureReply
	if err := json.Unmarshal(out, &cap); err != nil {
		return 0, err
	}
	defer d.removePane(st.Pane)
	if want := expectScreen(c, sz.rows); !sameLines(trimmed(cap.Lines), want) {
		return 0, fmt.Errorf("signaltty %s %v: screen differs:\n%q\nwant\n%q", c.name, sz, trimmed(cap.Lines), want)
	}
	if cap.End != int64(c.lines+1) {
		return 0, fmt.Errorf("signaltty %s %v: end %d, want %d", c.name, sz, cap.End, c.lines+1)
	}
	// The oldest history rows kept show the right lines.
	first, last := cap.Oldest, min(cap.Oldest+3, cap.End)
	h, err := d.capture(st.Pane, &first, &last)
	if err != nil {
		return 0, err
	}
	for i, l := range trimmed(h.Lines) {
		if want := c.text(int(first) + i); l != want {
			return 0, fmt.Errorf("signaltty %s %v: history row %d = %q, want %q", c.name, sz, int(first)+i, l, want)
		}
	}
	return el, nil
}

// throughputTmux: `tmux new-window sh -c 'cat FILE; tmux wait-for -S CH;
// exec sleep infinity'`, `tmux wait-for CH`, then `tmux capture-pane`
// until the last line shows (usually at once). The pane must stay: when a
// tmux pane's program exits, tmux stops reading it and loses the output
// still in the PTY (measured: the last ~700 of 2,000,000 seq lines).
func throughputTmux(t *tmuxServer, c content, sz size, key string) (time.Duration, error) {
	sess := fmt.Sprintf("tp%dx%d", sz.cols, sz.rows)
	ch := "tp-" + key
	sh := fmt.Sprintf("cat %s; %s wait-for -S %s; exec sleep infinity", c.file, t.client(), ch)
	t0 := time.Now()
	out, err := t.run("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", sess+":", "sh", "-c", sh)
	if err != nil {
		return 0, err
	}
	pane := strings.TrimSpace(string(out))
	defer t.run("kill-pane", "-t", pane)
	if _, err := t.run("wait-for", ch); err != nil {
		return 0, err
	}
	want := expectScreen(c, sz.rows)
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := t.run("capture-pane", "-p", "-t", pane)
		if err != nil {
			return 0, err
		}
		got := trimmed(strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"))
		if sameLines(got, want) {
			return time.Since(t0), nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("tmux %s %v: screen differs:\n%q\nwant\n%q", c.name, sz, got, want)
		}
		time.Sleep(time.Millisecond)
	}
}

func setupThroughput(b *bench) error {
	if err := b.sig.createWorkspace("tp"); err != nil {
		return err
	}
	for _, t := range b.tmuxes {
		for _, sz := range throughputSizes { // 80×24 serves the many-panes workload too
			sess := fmt.Sprintf("tp%dx%d", sz.cols, sz.rows)
			if _, err := t.run("new-session", "-d", "-s", sess, "-x", fmt.Sprint(sz.cols), "-y", fmt.Sprint(sz.rows), "sleep", "infinity"); err != nil {
				return err
			}
			if _, err := t.run("set", "-t", sess, "default-size", fmt.Sprintf("%dx%d", sz.cols, sz.rows)); err != nil {
				return err
			}
		}
	}
	return nil
}

var throughputSizes = []size{{80, 24}, {200, 50}}

func throughputContent(name string, sz size) string {
	if name == "full" {
		return fmt.Sprintf("full%d", sz.cols)
	}
	return name
}

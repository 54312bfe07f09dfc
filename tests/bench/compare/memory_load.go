package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Memory under load: N panes of 80×24, each a bash printing one line every
// 100 ms for a window and then idle, in a fresh server each sample. Every
// pane is started first and waits at a gate (a FIFO it reads one byte of);
// once all wait, the server's VmRSS is the baseline, its peak RSS (VmHWM)
// is reset (/proc/PID/clear_refs) and the gate opens. At the window's end
// (a deadline every pane reads from a file) the panes stop by themselves;
// the server's VmHWM and VmRSS are read then, and its VmRSS each second
// for the after window. Only the server process counts.

type loadWorkload struct {
	panes  int
	window time.Duration // how long the panes print
	after  time.Duration // how long VmRSS is followed once they stopped
}

func (l loadWorkload) String() string {
	return fmt.Sprintf("%d panes × a line every 100 ms for %v", l.panes, l.window)
}

// loadEnv is -loadenv: what the daemon is given in this workload
// (NAME=VALUE).
var loadEnv []string

// loadLine is what each pane prints, with its line number after it.
const loadLine = "a line of the memory load workload, printed every 100 ms by bash:"

// loadResult is one sample, in KiB.
type loadResult struct {
	base    int64   // VmRSS with every pane started and waiting, before the output
	hwm     int64   // VmHWM over the output (reset when it began)
	end     int64   // VmRSS at the end of the output
	after   []int64 // VmRSS each second after the output stopped
	during  []int64 // VmRSS each second of the output
	hwmNote string  // why VmHWM could not be reset ("" when it was)
}

// afterAt is VmRSS at the end of the after window.
func (r loadResult) afterAt() int64 {
	if len(r.after) == 0 {
		return -1
	}
	return r.after[len(r.after)-1]
}

// loadGate is one sample's gate and deadline: the panes block reading one
// byte each from gate (a FIFO), then read the deadline (µs since the epoch)
// from end; idle is a FIFO nobody writes, whose timed reads pace them.
type loadGate struct {
	dir, gate, idle, end string
	hold                 *os.File // the gate held open, so no byte written to it is lost
}

func newLoadGate(b *bench) (*loadGate, error) {
	dir, err := os.MkdirTemp(b.tmp, "load-")
	if err != nil {
		return nil, err
	}
	g := &loadGate{dir: dir, gate: filepath.Join(dir, "gate"), idle: filepath.Join(dir, "idle"), end: filepath.Join(dir, "end")}
	for _, f := range []string{g.gate, g.idle} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	// O_RDWR: a FIFO opened so does not wait for the other end (Linux).
	if g.hold, err = os.OpenFile(g.gate, os.O_RDWR, 0); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return g, nil
}

func (g *loadGate) close() {
	g.hold.Close()
	os.RemoveAll(g.dir)
}

// argv is each pane's program: the same bash loop in both systems. Each
// line costs the shell an echo and a timed read of idle (both builtins: no
// fork); after the deadline it execs sleep, so the pane stays, idle.
func (g *loadGate) argv() []string {
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	script := "exec 8<>" + q(g.gate) + " 9<>" + q(g.idle) + "; read -r -N 1 -u 8 g; read -r end <" + q(g.end) +
		"; i=0; while (( ${EPOCHREALTIME/./} < end )); do i=$((i+1)); echo \"" + loadLine + " $i\"; read -t 0.1 -u 9 g; done" +
		"; exec 8<&- 9<&- sleep infinity"
	return []string{"bash", "--norc", "--noprofile", "-c", script}
}

// waiting counts the processes holding the gate open as fd 8: the panes
// at (or just before) their first read.
func (g *loadGate) waiting() int {
	st, err := os.Stat(g.gate)
	if err != nil {
		return -1
	}
	self := strconv.Itoa(os.Getpid()) // holds it too, maybe as fd 8
	ents, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range ents {
		if strings.Trim(e.Name(), "0123456789") != "" || e.Name() == self {
			continue
		}
		if s, err := os.Stat("/proc/" + e.Name() + "/fd/8"); err == nil && os.SameFile(s, st) {
			n++
		}
	}
	return n
}

// open writes the deadline (now + window) and lets n panes through.
func (g *loadGate) open(n int, window time.Duration) (time.Time, error) {
	end := time.Now().Add(window)
	if err := os.WriteFile(g.end, []byte(strconv.FormatInt(end.UnixMicro(), 10)+"\n"), 0o644); err != nil {
		return end, err
	}
	_, err := g.hold.Write([]byte(strings.Repeat("\n", n)))
	return end, err
}

// measureLoad waits for the panes at the gate, then measures pid through
// the output and the after window. at is called with "0" (baseline read),
// "peak" (a second before the output's end) and "after" (at the end).
func measureLoad(b *bench, pid int, g *loadGate, w loadWorkload, at func(string)) (loadResult, error) {
	var r loadResult
	if err := pollFor(2*time.Minute, func() (bool, error) { return g.waiting() >= w.panes, nil }); err != nil {
		return r, fmt.Errorf("memory-load: %d of %d panes at the gate: %v", g.waiting(), w.panes, err)
	}
	time.Sleep(time.Second) // from the open to the read
	r.base = rssKiB(pid)
	at("0")
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		r.hwmNote = fmt.Sprintf("VmHWM not reset (%v): the peak is the server's whole life", err)
		b.logf("memory-load: %s", r.hwmNote)
	}
	end, err := g.open(w.panes, w.window)
	if err != nil {
		return r, err
	}
	peakTaken := false
	for t := time.Now().Add(time.Second); t.Before(end); t = t.Add(time.Second) {
		time.Sleep(time.Until(t))
		r.during = append(r.during, rssKiB(pid))
		if !peakTaken && time.Until(end) <= 1500*time.Millisecond {
			at("peak")
			peakTaken = true
		}
	}
	// The panes test the deadline before each line: the last is printed
	// before it; 100 ms later the server has read it.
	time.Sleep(time.Until(end.Add(100 * time.Millisecond)))
	r.hwm = statusKiB(pid, "VmHWM:")
	r.end = rssKiB(pid)
	stopped := time.Now()
	for i := 1; i <= int(w.after/time.Second); i++ {
		time.Sleep(time.Until(stopped.Add(time.Duration(i) * time.Second)))
		r.after = append(r.after, rssKiB(pid))
	}
	at("after")
	return r, nil
}

// loadLines is how many lines a pane printed, from its last non-empty row.
func loadLines(rows []string) int {
	for i := len(rows) - 1; i >= 0; i-- {
		if l := strings.TrimRight(rows[i], " "); l != "" {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(l, loadLine)))
			if err != nil {
				return -1
			}
			return n
		}
	}
	return 0
}

// checkLines fails unless every pane printed at least half of the lines
// the window has room for (a pane that did not run would measure nothing).
func checkLines(sys string, w loadWorkload, got []int) error {
	want := int(w.window / (100 * time.Millisecond))
	for i, n := range got {
		if n < want/2 {
			return fmt.Errorf("memory-load %s: pane %d printed %d lines, want about %d", sys, i, n, want)
		}
	}
	return nil
}

// loadPanesChecked are the panes whose lines are counted after a sample.
func loadPanesChecked(n int) []int { return []int{0, n / 2, n - 1} }

func loadSignaltty(b *bench, w loadWorkload) (loadResult, []int, error) {
	g, err := newLoadGate(b)
	if err != nil {
		return loadResult{}, nil, err
	}
	defer g.close()
	d, err := startDaemon(b.bin, b.tmp, append(append([]string(nil), loadEnv...), memProfEnv()...)...)
	if err != nil {
		return loadResult{}, nil, err
	}
	defer d.stop()
	if memProfDir != "" {
		defer os.Remove(filepath.Join(memProfDir, strconv.Itoa(d.pid())+".sock")) // only the profiles stay
	}
	const perWS = 100 // as the scale workload: workspaces of 100 panes
	panes := make([]string, w.panes)
	for i := range panes {
		if i%perWS == 0 {
			if err := d.createWorkspace(fmt.Sprint("load", i/perWS)); err != nil {
				return loadResult{}, nil, err
			}
		}
		if panes[i], err = d.spawn(fmt.Sprint("load", i/perWS), 80, 24, g.argv()...); err != nil {
			return loadResult{}, nil, fmt.Errorf("memory-load: pane %d: %v", i, err)
		}
	}
	r, err := measureLoad(b, d.pid(), g, w, func(what string) {
		switch what {
		case "0", "after":
			memProfile(d, fmt.Sprintf("load-%d-%s", w.panes, what))
		case "peak":
			memHeapProfile(d, fmt.Sprintf("load-%d-peak", w.panes))
		}
	})
	if err != nil {
		return r, nil, err
	}
	var lines []int
	for _, i := range loadPanesChecked(w.panes) {
		c, err := d.capture(panes[i], nil, nil)
		if err != nil {
			return r, nil, err
		}
		lines = append(lines, loadLines(c.Lines))
	}
	return r, lines, checkLines("signaltty", w, lines)
}

func loadTmux(b *bench, bin *tmuxBin, w loadWorkload) (loadResult, []int, error) {
	g, err := newLoadGate(b)
	if err != nil {
		return loadResult{}, nil, err
	}
	defer g.close()
	t, err := startTmux(b.tmp, bin)
	if err != nil {
		return loadResult{}, nil, err
	}
	defer t.stop()
	if _, err := t.run("new-session", "-d", "-s", "load", "sleep", "infinity"); err != nil {
		return loadResult{}, nil, err
	}
	var panes []string
	for len(panes) < w.panes { // 100 new-window commands a client, as the memory workloads
		var cmds [][]string
		for i := len(panes); i < min(len(panes)+100, w.panes); i++ {
			cmds = append(cmds, append([]string{"new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "load:"}, g.argv()...))
		}
		out, err := t.chain(cmds)
		if err != nil {
			return loadResult{}, nil, err
		}
		got := strings.Fields(string(out))
		if len(got) != len(cmds) {
			return loadResult{}, nil, fmt.Errorf("memory-load %s: %d panes made, want %d", bin.label, len(got), len(cmds))
		}
		panes = append(panes, got...)
	}
	r, err := measureLoad(b, t.pid, g, w, func(string) {})
	if err != nil {
		return r, nil, err
	}
	var lines []int
	for _, i := range loadPanesChecked(w.panes) {
		out, err := t.run("capture-pane", "-p", "-t", panes[i])
		if err != nil {
			return r, nil, err
		}
		lines = append(lines, loadLines(strings.Split(string(out), "\n")))
	}
	return r, lines, checkLines(bin.label, w, lines)
}

// runLoad runs the memory-under-load workload for rounds, the systems
// alternating, a fresh server each sample.
func runLoad(b *bench, w loadWorkload, rounds int) error {
	restore, err := ensurePtys(b, w.panes+10)
	if err != nil {
		return err
	}
	defer restore()
	b.loadAfter = map[string][]int64{}
	for r := 0; r < rounds; r++ {
		for _, sys := range b.systems(r) {
			var res loadResult
			var lines []int
			var err error
			if sys == "signaltty" {
				res, lines, err = loadSignaltty(b, w)
			} else {
				res, lines, err = loadTmux(b, b.bins()[sys], w)
			}
			if err != nil {
				return err
			}
			b.add("load-base/"+sys, float64(res.base))
			b.add("load-hwm/"+sys, float64(res.hwm))
			b.add("load-end/"+sys, float64(res.end))
			b.add("load-after/"+sys, float64(res.afterAt()))
			b.loadAfter[sys] = res.after
			if res.hwmNote != "" {
				b.loadNote = res.hwmNote
			}
			b.logf("memory-load round %d %s %v: baseline %d KiB, peak %d KiB, end %d KiB, %v after %d KiB; during %v; after %v; lines of panes %v: %v",
				r, sys, w, res.base, res.hwm, res.end, w.after, res.afterAt(), res.during, res.after, loadPanesChecked(w.panes), lines)
		}
	}
	return nil
}

// loadTable renders the memory-under-load rows.
func (b *bench) loadTable(w *strings.Builder) {
	s, ok := b.median("load-hwm/signaltty")
	if !ok {
		return
	}
	l := b.load
	envArg := ""
	if len(loadEnv) > 0 {
		envArg = " -loadenv " + strings.Join(loadEnv, ",")
	}
	fmt.Fprintf(w, "\n## Memory under load (server RSS while panes print)\n\n")
	fmt.Fprintf(w, "%d panes of 80×24, each `bash --norc --noprofile -c` running the same loop in both systems: `echo` a line of %d characters, then `read -t 0.1` from a FIFO nobody writes (builtins only: no fork per line), until a shared deadline %v after the output began; then the pane stays, `exec sleep infinity`. A fresh server each sample (signaltty: SpawnPane in workspaces of 100 on one varlink connection; tmux: `new-window`, 100 a client, history-limit 10000). Every pane is started and waits at a gate first; with all waiting, the server's VmRSS is the **baseline**; then its VmHWM is reset (`echo 5 > /proc/PID/clear_refs`) and the gate opens. **Peak**: the server's VmHWM at the output's end (its peak RSS over the output); **end**: its VmRSS then; **%v after**: its VmRSS %v after the output stopped (read each second). `/proc/PID/status` of the server process only. Each pane keeps what it printed (about %d lines) in its history in both systems, and signaltty releases a pane's emulator only after its idle emulator release time (SIGNALTTY_EMULATOR_RELEASE_MS, default 30 s; -loadenv gives the daemon another). Command: `tests/bench/compare.sh --only memory-load -loadpanes %d -loadfor %v -loadafter %v%s`. Goals: signaltty's peak ≤ 1× tmux's; %v after the output, signaltty's VmRSS ≤ %.1f× its baseline (back near idle).\n\n",
		l.panes, len(loadLine)+4, l.window, l.after, l.after, int(l.window/(100*time.Millisecond)), l.panes, l.window, l.after, envArg, l.after, goalLoadAfter)
	if len(loadEnv) > 0 {
		fmt.Fprintf(w, "The daemon was given %s.\n\n", "`"+strings.Join(loadEnv, "`, `")+"`")
	}
	if b.loadNote != "" {
		fmt.Fprintf(w, "%s.\n\n", b.loadNote)
	}
	mib := func(v float64) string { return fmt.Sprintf("%.1f MiB", v/1024) }
	noGoal := func(cells string) string {
		i := strings.LastIndex(strings.TrimSuffix(cells, " |"), "|")
		return cells[:i+1] + " no goal |"
	}
	fmt.Fprintf(w, "| server RSS, %d panes | signaltty |%s goal |\n|---|---|%s---|\n", l.panes, b.tmuxHeader(), strings.Repeat("---|---|", len(b.tmuxCol)))
	base, _ := b.median("load-base/signaltty")
	fmt.Fprintf(w, "| baseline: all panes started, before the output (VmRSS) | %s |%s\n", mib(base), noGoal(b.vsTmux("load-base", base, mib, 0)))
	fmt.Fprintf(w, "| peak during the output (VmHWM) | %s |%s\n", mib(s), b.vsTmux("load-hwm", s, mib, 1))
	e, _ := b.median("load-end/signaltty")
	fmt.Fprintf(w, "| end of the output (VmRSS) | %s |%s\n", mib(e), noGoal(b.vsTmux("load-end", e, mib, 0)))
	a, _ := b.median("load-after/signaltty")
	cells := b.vsTmux("load-after", a, mib, 0)
	i := strings.LastIndex(strings.TrimSuffix(cells, " |"), "|")
	fmt.Fprintf(w, "| %v after the output stopped (VmRSS) | %s |%s ≤ %.1f× baseline (%.2f×): %s |\n", l.after, mib(a), cells[:i+1], goalLoadAfter, a/base, met(a <= goalLoadAfter*base))
	var parts []string
	for _, sys := range append([]string{"signaltty"}, b.colKeys()...) {
		bs, ok1 := b.median("load-base/" + sys)
		as, ok2 := b.median("load-after/" + sys)
		if !ok1 || !ok2 || bs <= 0 {
			continue
		}
		var each []string
		for _, v := range b.loadAfter[sys] {
			each = append(each, fmt.Sprintf("%.1f", float64(v)/1024))
		}
		parts = append(parts, fmt.Sprintf("%s %.2f× (MiB each second: %s)", b.label(sys), as/bs, strings.Join(each, ", ")))
	}
	fmt.Fprintf(w, "\n%v after the output stopped ÷ baseline, and VmRSS each second after it stopped (last sample): %s.\n", l.after, strings.Join(parts, "; "))
}

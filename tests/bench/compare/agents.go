package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Agent workloads: N panes of 120×40, each replaying a recorded agent
// stream (tests/bench/streams, by tests/bench/replay) at the recorded pace
// or faster, in a fresh server each sample. Pane i replays stream i mod K,
// starting a fraction of the way into it (what comes before is written at
// once, untimed) so that the panes of one stream are at different places.
// Once every pane's paced replay has started and agentSettle has passed,
// the server's CPU time
// (utime+stime of its process, /proc/PID/stat) is measured over the window;
// its peak RSS (VmHWM) at the end. Each replayer reports how far behind the
// recorded schedule it was at the end of its window.

// agentEnv is -agentenv: what the daemon is given in the agent workloads
// (NAME=VALUE), e.g. SIGNALTTY_SAVE_OUTPUT_INTERVAL_MS=0 to leave out the
// saves of the panes' output.
var agentEnv []string

// agentSettle is the time between the last replayer's start of its paced
// replay and the window's start.
const agentSettle = 3 * time.Second

// agentSize is the size the streams were recorded at.
var agentSize = size{120, 40}

type agentWorkload struct {
	panes  int
	speed  float64
	window time.Duration
}

func (a agentWorkload) key() string { return fmt.Sprintf("agents-%d-%g", a.panes, a.speed) }

// agentResult is one sample.
type agentResult struct {
	cpu       float64 // server CPU seconds over the window
	hwmKiB    int64   // peak RSS of the server
	behind    float64 // median over panes of how far behind the end was, s
	maxBehind float64 // the largest of the panes' ends behind, s
	bytes     int64   // bytes the replayers wrote, paced part and skipped part
}

// agentStreams are the recorded streams, as DIR/KIND (without .data.gz).
func agentStreams(root string) ([]string, error) {
	m, err := filepath.Glob(filepath.Join(root, "tests/bench/streams/*.data.gz"))
	if err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("no streams in tests/bench/streams (tests/bench/streams/record.sh records them)")
	}
	sort.Strings(m)
	for i := range m {
		m[i] = strings.TrimSuffix(m[i], ".data.gz")
	}
	return m, nil
}

// buildReplay builds tests/bench/replay into bin.
func buildReplay(b *bench) error {
	c := exec.Command("go", "build", "-o", filepath.Join(b.bin, "replay"), "./tests/bench/replay")
	c.Env = append(os.Environ(), "CGO_ENABLED=0")
	c.Stdout, c.Stderr = os.Stderr, os.Stderr
	return c.Run()
}

// agentArgv is pane i's replayer; its ready and stats files go into dir.
func agentArgv(b *bench, streams []string, w agentWorkload, i int, dir string) []string {
	k := len(streams)
	per := (w.panes + k - 1) / k
	skip := float64(i/k) / float64(per)
	return []string{filepath.Join(b.bin, "replay"), "-speed", strconv.FormatFloat(w.speed, 'g', -1, 64),
		"-skip", strconv.FormatFloat(skip, 'f', 4, 64), "-for", (w.window + agentSettle).String(),
		"-ready", filepath.Join(dir, fmt.Sprintf("ready-%d", i)), "-stats", filepath.Join(dir, fmt.Sprintf("stats-%d", i)),
		streams[i%k]}
}

// agentMeasure waits for every replayer's ready file, measures pid's CPU
// over the window, then reads the replayers' statistics. during (if not
// nil) is called as the window opens, after as it closes.
func agentMeasure(pid int, w agentWorkload, dir string, during, after func()) (agentResult, error) {
	var r agentResult
	if err := agentsReady(dir, w.panes); err != nil {
		return r, err
	}
	// The server may still be emulating the skipped parts and making the
	// panes' emulators: let it settle (the replayers pace on) first.
	time.Sleep(agentSettle)
	c0 := cpuSeconds(pid)
	t0 := time.Now()
	if during != nil {
		during()
	}
	time.Sleep(time.Until(t0.Add(w.window)))
	r.cpu = cpuSeconds(pid) - c0
	if after != nil {
		after()
	}
	r.hwmKiB = statusKiB(pid, "VmHWM:")
	var behind []float64
	if err := pollFor(w.window+time.Minute, func() (bool, error) {
		m, _ := filepath.Glob(filepath.Join(dir, "stats-*"))
		return len(m) == w.panes, nil
	}); err != nil {
		return r, fmt.Errorf("agents: not every replayer finished: %v", err)
	}
	for i := 0; i < w.panes; i++ {
		var st struct {
			Bytes   int64   `json:"bytes"`
			BehindS float64 `json:"behind_s"`
		}
		j, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("stats-%d", i)))
		if err != nil {
			return r, err
		}
		if err := json.Unmarshal(j, &st); err != nil {
			return r, err
		}
		behind = append(behind, st.BehindS)
		r.bytes += st.Bytes
	}
	sort.Float64s(behind)
	r.behind, r.maxBehind = behind[len(behind)/2], behind[len(behind)-1]
	return r, nil
}

// agentsReady waits until n replayers have started their paced replay
// (their ready files in dir).
func agentsReady(dir string, n int) error {
	if err := pollFor(5*time.Minute, func() (bool, error) {
		m, _ := filepath.Glob(filepath.Join(dir, "ready-*"))
		return len(m) == n, nil
	}); err != nil {
		return fmt.Errorf("agents: not every replayer started: %v", err)
	}
	return nil
}

// agentsSignaltty runs one sample in a fresh daemon; with prof, a daemon
// built with the test hooks (bin) whose CPU profile over the window and
// heap profile at its end are saved in prof.
func agentsSignaltty(b *bench, bin string, streams []string, w agentWorkload, prof string) (agentResult, error) {
	dir, err := os.MkdirTemp(b.tmp, "agents-")
	if err != nil {
		return agentResult{}, err
	}
	defer os.RemoveAll(dir)
	env := append([]string(nil), agentEnv...)
	if prof != "" {
		env = append(env, "SIGNALTTY_PPROF="+prof)
	}
	d, err := startDaemon(bin, b.tmp, env...)
	if err != nil {
		return agentResult{}, err
	}
	defer d.stop()
	if err := d.createWorkspace("agents"); err != nil {
		return agentResult{}, err
	}
	for i := 0; i < w.panes; i++ {
		if _, err := d.spawn("agents", agentSize.cols, agentSize.rows, agentArgv(b, streams, w, i, dir)...); err != nil {
			return agentResult{}, err
		}
	}
	var during func()
	done := make(chan error, 1)
	if prof != "" {
		during = func() {
			go func() { done <- agentProfile(d, prof, w) }()
		}
	}
	r, err := agentMeasure(d.pid(), w, dir, during, nil)
	if prof != "" {
		if perr := <-done; perr != nil {
			b.logf("agents profile: %v", perr)
		}
	}
	return r, err
}

// agentProfile saves the daemon's CPU profile over the window and then its
// heap profile as prof/agents-<panes>-<speed>-{cpu,heap}.prof.
func agentProfile(d *daemon, prof string, w agentWorkload) error {
	sock := filepath.Join(prof, strconv.Itoa(d.pid())+".sock")
	defer os.Remove(sock) // only the profiles stay in prof
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	secs := int(w.window.Seconds()) - 1
	base := filepath.Join(prof, w.key())
	if err := saveURL(c, fmt.Sprintf("/debug/pprof/profile?seconds=%d", max(secs, 1)), base+"-cpu.prof"); err != nil {
		return err
	}
	return saveURL(c, "/debug/pprof/heap", base+"-heap.prof")
}

// agentsTmux runs one sample in a fresh tmux server.
func agentsTmux(b *bench, bin *tmuxBin, streams []string, w agentWorkload) (agentResult, error) {
	dir, err := os.MkdirTemp(b.tmp, "agents-")
	if err != nil {
		return agentResult{}, err
	}
	defer os.RemoveAll(dir)
	t, err := startTmux(b.tmp, bin)
	if err != nil {
		return agentResult{}, err
	}
	defer t.stop()
	if err := agentWindowsTmux(b, t, streams, w, dir); err != nil {
		return agentResult{}, err
	}
	return agentMeasure(t.pid, w, dir, nil, nil)
}

// agentWindowsTmux makes session "agents" in t with one window of
// agentSize a replayer (w.panes of them).
func agentWindowsTmux(b *bench, t *tmuxServer, streams []string, w agentWorkload, dir string) error {
	sz := fmt.Sprintf("%dx%d", agentSize.cols, agentSize.rows)
	if _, err := t.run("new-session", "-d", "-s", "agents", "-x", fmt.Sprint(agentSize.cols), "-y", fmt.Sprint(agentSize.rows), "sleep", "infinity"); err != nil {
		return err
	}
	if _, err := t.run("set", "-t", "agents", "default-size", sz); err != nil {
		return err
	}
	var cmds [][]string
	for i := 0; i < w.panes; i++ {
		cmds = append(cmds, append([]string{"new-window", "-d", "-t", "agents:"}, agentArgv(b, streams, w, i, dir)...))
	}
	_, err := t.chain(cmds)
	return err
}

// cpuSeconds is pid's utime+stime (/proc/PID/stat fields 14 and 15) in
// seconds, at the kernel's USER_HZ of 100.
func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	// f[0] is field 3 (state): utime is field 14, stime 15.
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return float64(u+st) / 100
}

// statusKiB is a "kB" line of /proc/PID/status (VmHWM:, VmRSS:).
func statusKiB(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return -1
}

// runAgents runs every agent workload for rounds, the systems alternating,
// then (with prof) one more signaltty sample of the first workload with a
// profiling daemon.
func runAgents(b *bench, ws []agentWorkload, rounds int, prof string) error {
	streams, err := agentStreams(b.root)
	if err != nil {
		return err
	}
	b.agentStreams = streams
	if err := buildReplay(b); err != nil {
		return err
	}
	maxPanes := 0
	for _, w := range ws {
		maxPanes = max(maxPanes, w.panes)
	}
	restore, err := ensurePtys(b, maxPanes+10)
	if err != nil {
		return err
	}
	defer restore()
	for r := 0; r < rounds; r++ {
		for _, w := range ws {
			for _, sys := range b.systems(r) {
				var res agentResult
				var err error
				if sys == "signaltty" {
					res, err = agentsSignaltty(b, b.bin, streams, w, "")
				} else {
					res, err = agentsTmux(b, b.bins()[sys], streams, w)
				}
				if err != nil {
					return err
				}
				k := w.key()
				b.add(k+"/"+sys, res.cpu)
				b.add(k+"-hwm/"+sys, float64(res.hwmKiB))
				b.add(k+"-behind/"+sys, res.behind)
				b.add(k+"-maxbehind/"+sys, res.maxBehind)
				b.logf("round %d %s %d panes × %gx for %v: cpu %.2f s, peak RSS %d KiB, behind median %.3f s max %.3f s, %d bytes",
					r, sys, w.panes, w.speed, w.window, res.cpu, res.hwmKiB, res.behind, res.maxBehind, res.bytes)
			}
		}
	}
	if prof == "" || len(ws) == 0 {
		return nil
	}
	if err := os.MkdirAll(prof, 0o755); err != nil {
		return err
	}
	pbin := filepath.Join(b.tmp, "bin-testhooks")
	c := exec.Command("go", "build", "-tags", "signaltty_testhooks", "-o", pbin+"/", "./cmd/signalttyd")
	c.Env = append(os.Environ(), "CGO_ENABLED=0")
	c.Stdout, c.Stderr = os.Stderr, os.Stderr
	if err := c.Run(); err != nil {
		return err
	}
	w := ws[0]
	res, err := agentsSignaltty(b, pbin, streams, w, prof)
	if err != nil {
		return err
	}
	b.logf("profiled %d panes × %gx: cpu %.2f s; profiles in %s", w.panes, w.speed, res.cpu, prof)
	return nil
}

package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Attached clients under agent load, a fresh server each sample:
//
// agents-keys: while panes replay the agent streams at 1× (as the agent
// workloads do), one more pane runs keysProgram and is attached by a real
// client on a PTY this program opened; keys are written into the client's
// PTY one at a time, each a distinct character, and each is timed from its
// write until its character comes out of the client.
//
// agents-attached: every replaying pane has a client of its own on its
// own PTY; over the window, the bytes each client wrote to its terminal,
// the server's and the clients' CPU; then, once the replayers stopped, how
// long after each pane's last write its client's screen showed the pane's.

// keysProgram is what the typed pane runs: without the terminal's echo,
// every character comes back written by the program itself (cat), as an
// editor or an agent's prompt echoes; "ready" says the echo is off.
const keysProgram = "stty raw -echo && printf ready && exec cat"

// attachFrame is the spacing of signaltty's frames to a client (service's
// minFrameInterval; docs/attach.md, "Slow clients"): the attached
// clients' lag goal is one of it.
const attachFrame = 10 * time.Millisecond

// keysWait is how long after the last key its echoes may still come.
const keysWait = 5 * time.Second

// quietFor is how long every client must have written nothing before the
// panes' screens are captured, after the replayers stopped.
const quietFor = time.Second

type keysWorkload struct {
	panes int           // replaying panes besides the typed one
	keys  int           // keys typed
	pace  time.Duration // between keys
}

// agents is the replaying panes' workload: long enough for the replayers'
// start, agentSettle and every key with its echo.
func (k keysWorkload) agents() agentWorkload {
	return agentWorkload{panes: k.panes, speed: 1, window: time.Duration(k.keys)*k.pace + keysWait + 10*time.Second}
}

type attachedWorkload struct {
	panes  int
	window time.Duration
}

// keysResult is one sample of agents-keys.
type keysResult struct {
	p50, p99, max time.Duration
	lost          int // keys whose character never came out within keysWait
}

// attachedResult is one sample of agents-attached.
type attachedResult struct {
	bpsMed, bpsMax     float64 // client output over the window, bytes a second
	cpu, clientsCPU    float64 // server's and all clients' CPU seconds over the window
	lagMed, lagMax     float64 // until the client's screen showed the pane's, s
	differ             int     // clients whose screen never showed it
	silent             int     // panes left out of the lags: no write in the window
	quietMed, quietMax float64 // until the client's last output, s
}

// keysSignaltty runs one agents-keys sample in a fresh daemon.
func keysSignaltty(b *bench, streams []string, k keysWorkload) (keysResult, error) {
	dir, err := os.MkdirTemp(b.tmp, "keys-")
	if err != nil {
		return keysResult{}, err
	}
	defer os.RemoveAll(dir)
	d, err := startDaemon(b.bin, b.tmp, agentEnv...)
	if err != nil {
		return keysResult{}, err
	}
	defer d.stop()
	if err := d.createWorkspace("agents"); err != nil {
		return keysResult{}, err
	}
	w := k.agents()
	for i := 0; i < w.panes; i++ {
		if _, err := d.spawn("agents", agentSize.cols, agentSize.rows, agentArgv(b, streams, w, i, dir)...); err != nil {
			return keysResult{}, err
		}
	}
	pane, err := d.spawn("agents", agentSize.cols, agentSize.rows, "sh", "-c", keysProgram)
	if err != nil {
		return keysResult{}, err
	}
	tr := newKeyTracker(k.keys)
	c, err := signalttyClient(b, d, pane, tr.feed)
	if err != nil {
		return keysResult{}, err
	}
	defer c.stop()
	return keysType(c, tr, k, dir)
}

// keysTmux runs one agents-keys sample in a fresh tmux server: the
// replayers are windows of session "agents", the typed pane session
// "keys", which the client attaches to.
func keysTmux(b *bench, bin *tmuxBin, streams []string, k keysWorkload) (keysResult, error) {
	dir, err := os.MkdirTemp(b.tmp, "keys-")
	if err != nil {
		return keysResult{}, err
	}
	defer os.RemoveAll(dir)
	t, err := startTmux(b.tmp, bin)
	if err != nil {
		return keysResult{}, err
	}
	defer t.stop()
	if err := agentWindowsTmux(b, t, streams, k.agents(), dir); err != nil {
		return keysResult{}, err
	}
	if _, err := t.run("new-session", "-d", "-s", "keys", "-x", fmt.Sprint(agentSize.cols), "-y", fmt.Sprint(agentSize.rows), "sh", "-c", keysProgram); err != nil {
		return keysResult{}, err
	}
	tr := newKeyTracker(k.keys)
	c, err := tmuxClient(t, "keys", tr.feed)
	if err != nil {
		return keysResult{}, err
	}
	defer c.stop()
	return keysType(c, tr, k, dir)
}

// keysType waits for the typed pane's "ready" on the client's screen and
// for the replayers' paced start (then agentSettle), types the keys and
// waits for their echoes.
func keysType(c *ptyClient, tr *keyTracker, k keysWorkload, dir string) (keysResult, error) {
	var r keysResult
	if err := pollFor(30*time.Second, func() (bool, error) { return c.shows("ready"), nil }); err != nil {
		return r, fmt.Errorf("agents-keys: the client never showed the typed pane's \"ready\": %v", err)
	}
	if err := agentsReady(dir, k.panes); err != nil {
		return r, err
	}
	time.Sleep(agentSettle)
	start := time.Now()
	for i := 0; i < k.keys; i++ {
		time.Sleep(time.Until(start.Add(time.Duration(i) * k.pace)))
		if err := tr.send(i, c.master); err != nil {
			return r, err
		}
	}
	pollFor(keysWait, func() (bool, error) { return tr.allSeen(), nil })
	lat, lost := tr.result()
	if len(lat) == 0 {
		return r, fmt.Errorf("agents-keys: no key came back (%d written)", k.keys)
	}
	for i := 0; i < lost; i++ {
		lat = append(lat, keysWait) // at least that: the percentiles count it
	}
	r.p50, r.p99, r.max, r.lost = percentile(lat, 0.5), percentile(lat, 0.99), percentile(lat, 1), lost
	return r, nil
}

// attachedSignaltty runs one agents-attached sample in a fresh daemon: a
// `signaltty attach --pane P` for every pane.
func attachedSignaltty(b *bench, streams []string, a attachedWorkload) (attachedResult, error) {
	dir, err := os.MkdirTemp(b.tmp, "attached-")
	if err != nil {
		return attachedResult{}, err
	}
	defer os.RemoveAll(dir)
	d, err := startDaemon(b.bin, b.tmp, agentEnv...)
	if err != nil {
		return attachedResult{}, err
	}
	defer d.stop()
	if err := d.createWorkspace("agents"); err != nil {
		return attachedResult{}, err
	}
	w := agentWorkload{panes: a.panes, speed: 1, window: a.window}
	stops, err := watchStops(dir) // before a replayer can end
	if err != nil {
		return attachedResult{}, err
	}
	defer stops.close()
	var panes []string
	var cs []*ptyClient
	defer func() {
		for _, c := range cs {
			c.stop()
		}
	}()
	for i := 0; i < w.panes; i++ {
		p, err := d.spawn("agents", agentSize.cols, agentSize.rows, agentArgv(b, streams, w, i, dir)...)
		if err != nil {
			return attachedResult{}, err
		}
		panes = append(panes, p)
		c, err := signalttyClient(b, d, p, nil)
		if err != nil {
			return attachedResult{}, err
		}
		cs = append(cs, c)
	}
	return attachedMeasure(d.pid(), w, dir, stops, cs, func(i int) ([]string, error) {
		c, err := d.capture(panes[i], nil, nil)
		return trimmed(c.Lines), err
	})
}

// attachedTmux runs one agents-attached sample in a fresh tmux server: a
// session a<i> for every pane and a `tmux attach -t a<i>` for each, so
// that every client shows its own pane (the status line is off: a client
// of 120×40 shows a pane of 120×40).
func attachedTmux(b *bench, bin *tmuxBin, streams []string, a attachedWorkload) (attachedResult, error) {
	dir, err := os.MkdirTemp(b.tmp, "attached-")
	if err != nil {
		return attachedResult{}, err
	}
	defer os.RemoveAll(dir)
	t, err := startTmux(b.tmp, bin)
	if err != nil {
		return attachedResult{}, err
	}
	defer t.stop()
	w := agentWorkload{panes: a.panes, speed: 1, window: a.window}
	stops, err := watchStops(dir) // before a replayer can end
	if err != nil {
		return attachedResult{}, err
	}
	defer stops.close()
	var cmds [][]string
	for i := 0; i < w.panes; i++ {
		cmds = append(cmds, append([]string{"new-session", "-d", "-s", fmt.Sprintf("a%d", i), "-x", fmt.Sprint(agentSize.cols), "-y", fmt.Sprint(agentSize.rows)},
			agentArgv(b, streams, w, i, dir)...))
	}
	if _, err := t.chain(cmds); err != nil {
		return attachedResult{}, err
	}
	var cs []*ptyClient
	defer func() {
		for _, c := range cs {
			c.stop()
		}
	}()
	for i := 0; i < w.panes; i++ {
		c, err := tmuxClient(t, fmt.Sprintf("a%d", i), nil)
		if err != nil {
			return attachedResult{}, err
		}
		cs = append(cs, c)
	}
	return attachedMeasure(t.pid, w, dir, stops, cs, func(i int) ([]string, error) {
		out, err := t.run("capture-pane", "-p", "-t", fmt.Sprintf("a%d:", i))
		return trimmed(strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")), err
	})
}

// attachedMeasure measures the window (agentMeasure) and the clients over
// it, then, once every replayer stopped (stops has watched dir since
// before they started) and every client has been quiet for quietFor, each
// client's lag behind its pane (capture i: pane i's screen, trailing
// spaces trimmed).
func attachedMeasure(pid int, w agentWorkload, dir string, stops *stopWatch, cs []*ptyClient, capture func(int) ([]string, error)) (attachedResult, error) {
	var r attachedResult
	var t0, t1 time.Time
	var c0 float64
	ar, err := agentMeasure(pid, w, dir,
		func() { t0, c0 = time.Now(), sumCPU(cs) },
		func() { t1, r.clientsCPU = time.Now(), sumCPU(cs)-c0 })
	if err != nil {
		return r, err
	}
	r.cpu = ar.cpu
	var bps []float64
	for _, c := range cs {
		bps = append(bps, float64(c.bytesIn(t0, t1))/t1.Sub(t0).Seconds())
	}
	// Each replayer writes its statistics file right after its last write.
	lastWrite := make([]time.Time, len(cs))
	if err := pollFor(5*time.Second, func() (bool, error) {
		for i := range cs {
			var ok bool
			if lastWrite[i], ok = stops.at(fmt.Sprintf("stats-%d", i)); !ok {
				return false, nil
			}
		}
		return true, nil
	}); err != nil {
		return r, fmt.Errorf("agents-attached: not every replayer's end was seen: %v", err)
	}
	if err := pollFor(30*time.Second, func() (bool, error) {
		for _, c := range cs {
			if time.Since(c.last()) < quietFor {
				return false, nil
			}
		}
		return true, nil
	}); err != nil {
		return r, fmt.Errorf("agents-attached: the clients did not go quiet after the replayers stopped: %v", err)
	}
	var lags, quiets []float64
	for i, c := range cs {
		if lastWrite[i].Before(t0) {
			// Its stream was silent for the whole window (opencode's
			// start-up is 91 s): no last write to measure from.
			r.silent++
			continue
		}
		want, err := capture(i)
		if err != nil {
			return r, err
		}
		out := c.output()
		quiets = append(quiets, max(0, c.last().Sub(lastWrite[i]).Seconds()))
		since, ok, got := screenSince(out, agentSize, want, lastWrite[i].Add(-time.Second))
		if !ok {
			r.differ++
			if r.differ == 1 {
				fmt.Fprintf(os.Stderr, "compare: agents-attached: client %d's screen differs from its pane's: %s\n", i, firstDiff(got, want))
			}
			continue
		}
		lags = append(lags, max(0, since.Sub(lastWrite[i]).Seconds()))
	}
	r.bpsMed, r.bpsMax = medianMax(bps)
	r.quietMed, r.quietMax = medianMax(quiets)
	r.lagMed, r.lagMax = medianMax(lags)
	if len(lags) == 0 {
		r.lagMed, r.lagMax = -1, -1
	}
	return r, nil
}

// stopWatch notes when each replayer's statistics file appears in a
// directory: the rename that makes it, seen through inotify, comes right
// after the replayer's last write. (The file's modification time is not
// used: the kernel's file times are coarse, a tick of 4 ms here.)
type stopWatch struct {
	f    *os.File
	mu   sync.Mutex
	seen map[string]time.Time
	done chan struct{}
}

func watchStops(dir string) (*stopWatch, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("inotify: %v", err)
	}
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_MOVED_TO); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("inotify %s: %v", dir, err)
	}
	w := &stopWatch{f: os.NewFile(uintptr(fd), "inotify"), seen: map[string]time.Time{}, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		buf := make([]byte, 64<<10)
		for {
			n, err := w.f.Read(buf)
			at := time.Now()
			// Events: wd, mask, cookie, len (uint32 each), then len
			// bytes of NUL-padded name.
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				l := int(binary.NativeEndian.Uint32(buf[off+12:]))
				name := strings.TrimRight(string(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+l]), "\x00")
				w.mu.Lock()
				if _, ok := w.seen[name]; !ok {
					w.seen[name] = at
				}
				w.mu.Unlock()
				off += unix.SizeofInotifyEvent + l
			}
			if err != nil {
				return
			}
		}
	}()
	return w, nil
}

// at is when file name appeared.
func (w *stopWatch) at(name string) (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	t, ok := w.seen[name]
	return t, ok
}

func (w *stopWatch) close() {
	w.f.Close()
	<-w.done
}

// firstDiff describes the first row where got and want differ.
func firstDiff(got, want []string) string {
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf("row %d shows %q, the pane %q", i, g, w)
		}
	}
	return "no row differs"
}

// medianMax is the median and the largest of v (0, 0 for none).
func medianMax(v []float64) (float64, float64) {
	if len(v) == 0 {
		return 0, 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return m, s[len(s)-1]
}

// runAttach runs agents-keys (k.panes > 0) and agents-attached (a.panes >
// 0) for rounds, the systems alternating.
func runAttach(b *bench, k keysWorkload, a attachedWorkload, rounds int) error {
	streams, err := agentStreams(b.root)
	if err != nil {
		return err
	}
	b.agentStreams = streams
	if _, err := os.Stat(filepath.Join(b.bin, "replay")); err != nil {
		if err := buildReplay(b); err != nil {
			return err
		}
	}
	restore, err := ensurePtys(b, max(k.panes+2, 2*a.panes)+10)
	if err != nil {
		return err
	}
	defer restore()
	for r := 0; r < rounds; r++ {
		if k.panes > 0 {
			for _, sys := range b.systems(r) {
				var res keysResult
				var err error
				if sys == "signaltty" {
					res, err = keysSignaltty(b, streams, k)
				} else {
					res, err = keysTmux(b, b.bins()[sys], streams, k)
				}
				if err != nil {
					return err
				}
				b.add("keys-p50/"+sys, res.p50.Seconds())
				b.add("keys-p99/"+sys, res.p99.Seconds())
				b.add("keys-max/"+sys, res.max.Seconds())
				b.add("keys-lost/"+sys, float64(res.lost))
				b.logf("round %d %s agents-keys: %d keys %v apart, %d agent panes at 1×: p50 %.2f ms, p99 %.2f ms, max %.2f ms, %d not echoed",
					r, sys, k.keys, k.pace, k.panes, ms(res.p50), ms(res.p99), ms(res.max), res.lost)
			}
		}
		if a.panes > 0 {
			for _, sys := range b.systems(r) {
				var res attachedResult
				var err error
				if sys == "signaltty" {
					res, err = attachedSignaltty(b, streams, a)
				} else {
					res, err = attachedTmux(b, b.bins()[sys], streams, a)
				}
				if err != nil {
					return err
				}
				b.add("att-bps-med/"+sys, res.bpsMed)
				b.add("att-bps-max/"+sys, res.bpsMax)
				b.add("att-cpu/"+sys, res.cpu)
				b.add("att-ccpu/"+sys, res.clientsCPU)
				if res.lagMax >= 0 {
					b.add("att-lag-med/"+sys, res.lagMed)
					b.add("att-lag-max/"+sys, res.lagMax)
				}
				b.add("att-differ/"+sys, float64(res.differ))
				b.add("att-silent/"+sys, float64(res.silent))
				b.add("att-quiet-med/"+sys, res.quietMed)
				b.add("att-quiet-max/"+sys, res.quietMax)
				b.logf("round %d %s agents-attached: %d panes × 1× for %v, a client each: output median %.1f KB/s max %.1f KB/s, server cpu %.2f s, clients cpu %.2f s, lag median %.1f ms max %.1f ms (%d screens differ, %d panes without a write in the window), quiet median %.1f ms max %.1f ms",
					r, sys, a.panes, a.window, res.bpsMed/1e3, res.bpsMax/1e3, res.cpu, res.clientsCPU, res.lagMed*1e3, res.lagMax*1e3, res.differ, res.silent, res.quietMed*1e3, res.quietMax*1e3)
			}
		}
	}
	return nil
}

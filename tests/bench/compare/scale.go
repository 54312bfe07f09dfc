package main

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	vl "github.com/varlink/go/varlink"
)

// Scale: one daemon with N live panes (idle `sleep`), every verb timed on
// one open connection; then concurrent runs.

type verbStat struct {
	name          string
	n             int
	p50, p99, max time.Duration
}

type scaleResult struct {
	panes      int
	fill       time.Duration // making all the panes, one SpawnPane after another
	wake       time.Duration // window the idle wake-ups were counted over (0: not counted)
	slices     int64         // the daemon's timeslices over wake
	asked      int           // panes asked for (panes is how many were made)
	fillErr    error         // why filling stopped early (only when nofile > 0)
	made       int           // panes made before it stopped
	spawnP50   time.Duration
	spawnP99   time.Duration
	rssKiB     int64
	verbs      []verbStat
	concurrent int
	concWall   time.Duration
	concP99    time.Duration
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(p*float64(len(s))+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func stat(name string, d []time.Duration) verbStat {
	return verbStat{name: name, n: len(d), p50: percentile(d, 0.5), p99: percentile(d, 0.99), max: percentile(d, 1)}
}

// runScale fills one daemon with npanes idle panes, then times every verb
// (samples calls each) and concurrent runs. With wake > 0 it counts the
// daemon's idle wake-ups over wake after filling. nofile > 0 raises
// RLIMIT_NOFILE to it first (the daemon inherits it).
func runScale(b *bench, npanes, samples, concurrent int, wake time.Duration, nofile uint64) (scaleResult, error) {
	res := scaleResult{panes: npanes, asked: npanes, concurrent: concurrent}
	if nofile > 0 {
		if err := raiseNofile(b, nofile); err != nil {
			return res, err
		}
	}
	d, err := startDaemon(b.bin, b.tmp)
	if err != nil {
		return res, err
	}
	defer d.stop()
	c := d.conn
	const perWS = 100
	var panes []string
	var spawnT []time.Duration
	fill0 := time.Now()
	for i := 0; i < npanes; i++ {
		if i > 0 && i%1000 == 0 {
			b.logf("scale: %d panes (%.0f a second)", i, float64(i)/time.Since(fill0).Seconds())
		}
		ws := fmt.Sprintf("s%d", i/perWS)
		if i%perWS == 0 {
			if err := d.createWorkspace(ws); err != nil {
				return res, err
			}
		}
		t0 := time.Now()
		p, err := d.spawn(ws, 80, 24, "sleep", "infinity")
		if err != nil && nofile > 0 && i > 0 {
			// A limit of this machine: measure with the panes made, less
			// 300 to leave the verbs below room (file descriptors) to work.
			res.fillErr, res.made = fmt.Errorf("pane %d: %v", i+1, err), i
			b.logf("scale: filling stopped at %d panes: %v", i, err)
			for len(panes) > 0 && len(panes) > i-300 {
				if err := d.removePane(panes[len(panes)-1]); err != nil {
					return res, err
				}
				panes = panes[:len(panes)-1]
			}
			res.panes = len(panes)
			break
		}
		if err != nil {
			return res, fmt.Errorf("pane %d: %v", i, err)
		}
		spawnT = append(spawnT, time.Since(t0))
		panes = append(panes, p)
	}
	res.fill = time.Since(fill0)
	res.spawnP50, res.spawnP99 = percentile(spawnT, 0.5), percentile(spawnT, 0.99)
	if err := d.createWorkspace("v"); err != nil { // for the verbs that add panes, tabs and runs
		return res, err
	}
	time.Sleep(3 * time.Second) // the debounced save after the spawns
	res.rssKiB = rssKiB(d.pid())
	if wake > 0 {
		s0 := timeslices(d.pid())
		time.Sleep(wake)
		res.wake, res.slices = wake, timeslices(d.pid())-s0
	}

	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() string { return panes[rng.IntN(len(panes))] }
	timed := func(name string, n int, f func(i int) error) error {
		var ts []time.Duration
		for i := 0; i < n; i++ {
			t0 := time.Now()
			if err := f(i); err != nil {
				return fmt.Errorf("%s: %v", name, err)
			}
			ts = append(ts, time.Since(t0))
		}
		res.verbs = append(res.verbs, stat(name, ts))
		return nil
	}
	cl := func(method string, params map[string]any) func(int) error {
		if params == nil {
			params = map[string]any{}
		}
		return func(int) error { return call(c, method, params, nil) }
	}
	var extra []string  // panes spawned by SpawnPane samples
	var inputs []string // panes SendInput wrote to
	var runs []string
	var tabs []string
	steps := []struct {
		name string
		n    int
		f    func(i int) error
	}{
		{"Server.GetStatus", samples, cl("dev.signaltty.Server.GetStatus", nil)},
		{"Server.GetConfig", samples, cl("dev.signaltty.Server.GetConfig", nil)},
		{"Server.ListSnapshots", samples, cl("dev.signaltty.Server.ListSnapshots", nil)},
		{"Server.Save", min(samples, 20), cl("dev.signaltty.Server.Save", nil)},
		{"Mux.ListWorkspaces", samples, cl("dev.signaltty.Mux.ListWorkspaces", nil)},
		{"Mux.GetWorkspace (100 panes)", samples, cl("dev.signaltty.Mux.GetWorkspace", map[string]any{"workspace": "s0"})},
		{"Mux.ListPanes (all)", samples, cl("dev.signaltty.Mux.ListPanes", nil)},
		{"Mux.ListPaneFields (7 fields, all)", samples, cl("dev.signaltty.Mux.ListPaneFields", map[string]any{"fields": overviewFields})},
		{"Mux.ListPaneFields (7 fields, page of 100)", samples, cl("dev.signaltty.Mux.ListPaneFields", map[string]any{"fields": overviewFields, "limit": 100})},
		{"Mux.GetPane", samples, func(int) error { return call(c, "dev.signaltty.Mux.GetPane", map[string]any{"pane": pick()}, nil) }},
		{"Mux.CaptureRows", samples, func(int) error {
			return call(c, "dev.signaltty.Mux.CaptureRows", map[string]any{"pane": pick()}, nil)
		}},
		{"Mux.SendInput (first output: the pane's emulator is made)", samples, func(i int) error {
			inputs = append(inputs, pick())
			return call(c, "dev.signaltty.Mux.SendInput", map[string]any{"pane": inputs[i], "text": "x"}, nil)
		}},
		{"Mux.SendInput (same panes again)", samples, func(i int) error {
			return call(c, "dev.signaltty.Mux.SendInput", map[string]any{"pane": inputs[i], "text": "y"}, nil)
		}},
		{"Mux.ResizePane", samples, func(i int) error {
			return call(c, "dev.signaltty.Mux.ResizePane", map[string]any{"pane": pick(), "cols": 80 + i%2, "rows": 24}, nil)
		}},
		{"Mux.SignalPane", samples, func(int) error {
			return call(c, "dev.signaltty.Mux.SignalPane", map[string]any{"pane": pick(), "signal": "CONT"}, nil)
		}},
		{"Mux.CreateTab", samples, func(int) error {
			var r struct{ Tab struct{ ID string } }
			err := call(c, "dev.signaltty.Mux.CreateTab", map[string]any{"workspace": "v"}, &r)
			tabs = append(tabs, r.Tab.ID)
			return err
		}},
		{"Mux.RemoveTab", samples, func(i int) error {
			return call(c, "dev.signaltty.Mux.RemoveTab", map[string]any{"tab": tabs[i]}, nil)
		}},
		{"Mux.CreateWorkspace", samples, func(i int) error {
			return call(c, "dev.signaltty.Mux.CreateWorkspace", map[string]any{"name": fmt.Sprint("x", i)}, nil)
		}},
		{"Mux.RemoveWorkspace", samples, func(i int) error {
			return call(c, "dev.signaltty.Mux.RemoveWorkspace", map[string]any{"workspace": fmt.Sprint("x", i)}, nil)
		}},
		{"Mux.SpawnPane", samples, func(int) error {
			var r struct{ Pane struct{ ID string } }
			err := call(c, "dev.signaltty.Mux.SpawnPane", map[string]any{"workspace": "v", "argv": []string{"sleep", "infinity"}}, &r)
			extra = append(extra, r.Pane.ID)
			return err
		}},
		{"Mux.KillPane", samples, func(i int) error {
			return call(c, "dev.signaltty.Mux.KillPane", map[string]any{"pane": extra[i]}, nil)
		}},
		{"Mux.RemovePane", samples, func(i int) error {
			return call(c, "dev.signaltty.Mux.RemovePane", map[string]any{"pane": extra[i]}, nil)
		}},
		{"Run.Start", samples, func(i int) error {
			var r struct{ Run string }
			err := call(c, "dev.signaltty.Run.Start", map[string]any{"key": fmt.Sprint("k", i), "workspace": "v", "argv": []string{"true"}}, &r)
			runs = append(runs, r.Run)
			return err
		}},
		{"Run.Wait (completed)", samples, func(i int) error {
			time.Sleep(0) // the run has had the previous samples' time to end
			_, err := runWait(c, runs[i], true)
			return err
		}},
		{"Run.Get", samples, func(i int) error { return call(c, "dev.signaltty.Run.Get", map[string]any{"run": runs[i]}, nil) }},
		{"Run.List", samples, cl("dev.signaltty.Run.List", nil)},
	}
	for _, s := range steps {
		if npanes > 1000 && wholeTree(s.name) {
			s.n = min(s.n, 20) // each takes a second or so with 10,000 panes
		}
		if err := timed(s.name, s.n, s.f); err != nil {
			return res, err
		}
	}
	// A cancel of a running run (SIGHUP ends `sleep`).
	var cancelRuns []string
	for i := 0; i < min(samples, 50); i++ {
		var r struct{ Run string }
		if err := call(c, "dev.signaltty.Run.Start", map[string]any{"key": fmt.Sprint("c", i), "workspace": "v", "argv": []string{"sleep", "infinity"}}, &r); err != nil {
			return res, err
		}
		cancelRuns = append(cancelRuns, r.Run)
	}
	if err := timed("Run.Cancel", len(cancelRuns), func(i int) error {
		return call(c, "dev.signaltty.Run.Cancel", map[string]any{"run": cancelRuns[i]}, nil)
	}); err != nil {
		return res, err
	}

	// Concurrent runs, each on its own connection.
	var wg sync.WaitGroup
	lat := make([]time.Duration, concurrent)
	errs := make([]error, concurrent)
	t0 := time.Now()
	for i := 0; i < concurrent; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := dialDaemon(d)
			if err != nil {
				errs[i] = err
				return
			}
			defer conn.Close()
			errs[i] = concurrentRun(conn, i, &lat[i])
		}()
	}
	wg.Wait()
	res.concWall = time.Since(t0)
	for _, err := range errs {
		if err != nil {
			return res, fmt.Errorf("concurrent run: %v", err)
		}
	}
	res.concP99 = percentile(lat, 0.99)
	return res, nil
}

// concurrentRun starts `seq 1 20000` (a little output) and waits for it.
func concurrentRun(conn *vl.Connection, i int, lat *time.Duration) error {
	t0 := time.Now()
	var st struct{ Run string }
	if err := call(conn, "dev.signaltty.Run.Start", map[string]any{"key": fmt.Sprint("conc", i), "workspace": "v",
		"argv": []string{"seq", "1", "20000"}}, &st); err != nil {
		return err
	}
	rec, err := runWait(conn, st.Run, true)
	if err != nil {
		return err
	}
	*lat = time.Since(t0)
	if rec.Status == nil || *rec.Status != 0 {
		return fmt.Errorf("run %s: %+v", st.Run, rec)
	}
	return nil
}

// overviewFields is what a pane overview (tmux's list-panes -F) asks for.
var overviewFields = []string{"id", "workspace", "tab", "title", "state", "lifecycle", "attention"}

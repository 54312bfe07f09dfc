package tests

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// TestScaleManyIdlePanes (opt-in: SIGNALTTY_SCALE=N, e.g. 10000) fills one
// daemon with N idle panes (`sleep infinity`, 100 per workspace) and
// reports what docs/scale.md asks of it: the spawn rate, the daemon's RSS
// and open fds, each verb's p50/p99 over the full daemon and the daemon's
// CPU time per call (user+system; steadier than latency on a loaded
// machine), and its idle
// wake-ups over 10 s (the sum of field 3 of /proc/PID/task/*/schedstat, as
// tests/bench/compare counts them). It reports figures and asserts no
// timings; it fails only if a call fails.
func TestScaleManyIdlePanes(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("SIGNALTTY_SCALE"))
	if n <= 0 {
		t.Skip("opt-in: set SIGNALTTY_SCALE to a number of panes (e.g. 10000)")
	}
	raiseFdLimit(t, uint64(4*n+4096))
	d := harness.Start(t)
	c := d.Dial(t)
	defer c.Close()
	const perWS = 100
	var panes, workspaces []string
	spawnT := make([]time.Duration, 0, n)
	t0 := time.Now()
	for i := 0; i < n; i++ {
		if i%perWS == 0 {
			var w struct{ Workspace struct{ ID string } }
			harness.MustCall(t, c, "dev.signaltty.Mux.CreateWorkspace", map[string]any{"name": fmt.Sprint("s", i/perWS)}, &w)
			workspaces = append(workspaces, w.Workspace.ID)
		}
		var r struct{ Pane struct{ ID string } }
		s := time.Now()
		harness.MustCall(t, c, "dev.signaltty.Mux.SpawnPane", map[string]any{"workspace": workspaces[len(workspaces)-1],
			"argv": []string{"sleep", "infinity"}, "cols": 80, "rows": 24}, &r)
		spawnT = append(spawnT, time.Since(s))
		panes = append(panes, r.Pane.ID)
	}
	fill := time.Since(t0)
	t.Logf("%d panes spawned in %v: %.0f panes/s; SpawnPane while filling p50 %v p99 %v (first 10%%: p99 %v, last 10%%: p99 %v)",
		n, fill.Round(time.Millisecond), float64(n)/fill.Seconds(), pct(spawnT, .5), pct(spawnT, .99),
		pct(spawnT[:n/10+1], .99), pct(spawnT[n-n/10-1:], .99))

	// Idle: let the debounced save pass, then count wake-ups.
	time.Sleep(3 * time.Second)
	w0 := schedSlices(d.Pid())
	time.Sleep(10 * time.Second)
	wake := schedSlices(d.Pid()) - w0
	t.Logf("idle: wake-ups over 10 s %d; RSS %d MiB; open fds %d; threads %d", wake, rssMiB(d.Pid()), countDir(fmt.Sprintf("/proc/%d/fd", d.Pid())),
		countDir(fmt.Sprintf("/proc/%d/task", d.Pid())))

	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() string { return panes[rng.IntN(len(panes))] }
	var v struct{ Workspace struct{ ID string } }
	harness.MustCall(t, c, "dev.signaltty.Mux.CreateWorkspace", map[string]any{"name": "v"}, &v)
	timed := func(name string, k int, params func(i int) (string, map[string]any)) []string {
		var ts []time.Duration
		var ids []string
		cpu0 := cpuTime(d.Pid())
		for i := 0; i < k; i++ {
			method, p := params(i)
			var r struct {
				Pane struct{ ID string }
				Tab  struct{ ID string }
			}
			s := time.Now()
			harness.MustCall(t, c, method, p, &r)
			ts = append(ts, time.Since(s))
			ids = append(ids, r.Pane.ID+r.Tab.ID)
		}
		cpu := (cpuTime(d.Pid()) - cpu0) / time.Duration(k)
		t.Logf("%-34s calls %4d  p50 %8v  p99 %8v  max %8v  daemon CPU/call %8v", name, k, pct(ts, .5), pct(ts, .99), pct(ts, 1),
			cpu.Round(10*time.Microsecond))
		return ids
	}
	m := func(method string, p map[string]any) func(int) (string, map[string]any) {
		return func(int) (string, map[string]any) { return method, p }
	}
	const k = 100
	timed("Server.GetStatus", k, m("dev.signaltty.Server.GetStatus", map[string]any{}))
	timed("Server.Save (whole tree)", 20, m("dev.signaltty.Server.Save", map[string]any{}))
	timed("Mux.ListWorkspaces (whole tree)", 20, m("dev.signaltty.Mux.ListWorkspaces", map[string]any{}))
	timed("Mux.ListPanes (whole tree)", 20, m("dev.signaltty.Mux.ListPanes", map[string]any{}))
	timed("Mux.ListPanes (one workspace)", k, m("dev.signaltty.Mux.ListPanes", map[string]any{"workspace": workspaces[0]}))
	timed("Mux.GetWorkspace (100 panes)", k, m("dev.signaltty.Mux.GetWorkspace", map[string]any{"workspace": workspaces[0]}))
	timed("Mux.GetPane", k, func(int) (string, map[string]any) { return "dev.signaltty.Mux.GetPane", map[string]any{"pane": pick()} })
	timed("Mux.CaptureRows", k, func(int) (string, map[string]any) {
		return "dev.signaltty.Mux.CaptureRows", map[string]any{"pane": pick()}
	})
	var inputs []string
	timed("Mux.SendInput (first)", k, func(int) (string, map[string]any) {
		inputs = append(inputs, pick())
		return "dev.signaltty.Mux.SendInput", map[string]any{"pane": inputs[len(inputs)-1], "text": "x"}
	})
	timed("Mux.SendInput (same panes again)", k, func(i int) (string, map[string]any) {
		return "dev.signaltty.Mux.SendInput", map[string]any{"pane": inputs[i], "text": "y"}
	})
	timed("Mux.ResizePane", k, func(i int) (string, map[string]any) {
		return "dev.signaltty.Mux.ResizePane", map[string]any{"pane": pick(), "cols": 80 + i%2, "rows": 24}
	})
	timed("Mux.SignalPane", k, func(int) (string, map[string]any) {
		return "dev.signaltty.Mux.SignalPane", map[string]any{"pane": pick(), "signal": "CONT"}
	})
	tabs := timed("Mux.CreateTab", k, m("dev.signaltty.Mux.CreateTab", map[string]any{"workspace": v.Workspace.ID}))
	timed("Mux.RemoveTab", k, func(i int) (string, map[string]any) {
		return "dev.signaltty.Mux.RemoveTab", map[string]any{"tab": tabs[i]}
	})
	timed("Mux.CreateWorkspace", k, func(i int) (string, map[string]any) {
		return "dev.signaltty.Mux.CreateWorkspace", map[string]any{"name": fmt.Sprint("x", i)}
	})
	timed("Mux.RemoveWorkspace", k, func(i int) (string, map[string]any) {
		return "dev.signaltty.Mux.RemoveWorkspace", map[string]any{"workspace": fmt.Sprint("x", i)}
	})
	extra := timed("Mux.SpawnPane", k, m("dev.signaltty.Mux.SpawnPane", map[string]any{"workspace": v.Workspace.ID, "argv": []string{"sleep", "infinity"}}))
	timed("Mux.KillPane", k, func(i int) (string, map[string]any) {
		return "dev.signaltty.Mux.KillPane", map[string]any{"pane": extra[i]}
	})
	timed("Mux.RemovePane", k, func(i int) (string, map[string]any) {
		return "dev.signaltty.Mux.RemovePane", map[string]any{"pane": extra[i]}
	})
	timed("Run.List", k, m("dev.signaltty.Run.List", map[string]any{}))
	t.Logf("after the verbs: RSS %d MiB", rssMiB(d.Pid()))
}

// raiseFdLimit raises this process's fd limits (which the daemon inherits)
// to at least n when they are lower: the soft one up to the hard one, the
// hard one only where that is allowed (root).
func raiseFdLimit(t *testing.T, n uint64) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		t.Fatal(err)
	}
	if l.Max < n {
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
			t.Logf("fd hard limit %d < %d and cannot be raised (%v): spawns may fail with too many open files", l.Max, n, err)
		}
	}
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l)
	t.Logf("fd limit: soft %d hard %d", l.Cur, l.Max)
}

func pct(d []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(p*float64(len(s))+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)].Round(10 * time.Microsecond)
}

// schedSlices sums field 3 of each thread's schedstat: the times it was
// scheduled.
func schedSlices(pid int) int64 {
	var sum int64
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if fs := strings.Fields(string(b)); len(fs) == 3 {
			v, _ := strconv.ParseInt(fs[2], 10, 64)
			sum += v
		}
	}
	return sum
}

// cpuTime is the process's user+system CPU time (/proc/PID/stat fields
// 14 and 15, in clock ticks of 10 ms).
func cpuTime(pid int) time.Duration {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+2:]
	}
	f := strings.Fields(s) // from field 3 (state)
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * 10 * time.Millisecond
}

func rssMiB(pid int) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			kb, _ := strconv.ParseInt(strings.Fields(l)[1], 10, 64)
			return kb / 1024
		}
	}
	return 0
}

func countDir(dir string) int {
	es, _ := os.ReadDir(dir)
	return len(es)
}

// Command compare measures signaltty against tmux (and systemd-run --user
// --wait under a private user manager) on the same machine, alternating the
// systems within every round, and prints a table of medians and ratios
// (optionally written to tests/bench/RESULTS.md). Run it through
// tests/bench/compare.sh, from the repository root.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

type bench struct {
	root    string // repository root
	tmp     string
	bin     string // signalttyd and signaltty
	content map[string]content
	sig     *daemon
	tmux    *tmuxServer
	usd     *userSystemd // nil when the private user manager could not start
	seq     atomic.Int64
	samples map[string][]float64
	log     io.Writer
	cliNote string // the CLI binary given with -cli
}

func (b *bench) next() int64 { return b.seq.Add(1) }

func (b *bench) add(key string, v float64) { b.samples[key] = append(b.samples[key], v) }

func (b *bench) median(key string) (float64, bool) {
	s := b.samples[key]
	if len(s) == 0 {
		return 0, false
	}
	c := append([]float64(nil), s...)
	sort.Float64s(c)
	if len(c)%2 == 1 {
		return c[len(c)/2], true
	}
	return (c[len(c)/2-1] + c[len(c)/2]) / 2, true
}

func main() {
	rounds := flag.Int("rounds", 5, "rounds of the throughput workloads")
	latIters := flag.Int("lat", 20, "run/wait samples per system per round (rounds as -rounds)")
	memRounds := flag.Int("memrounds", 3, "rounds of the memory workloads (a fresh server each)")
	scalePanes := flag.Int("scale", 1000, "live panes in the scale workload (0: skip)")
	samples := flag.Int("samples", 100, "calls per verb in the scale workload")
	conc := flag.Int("concurrent", 50, "concurrent runs in the scale workload")
	wake := flag.Duration("wake", 10*time.Second, "window for counting idle wake-ups (0: skip)")
	gobench := flag.Bool("gobench", true, "run the Go micro-benchmarks (pty, snapshot) and include them")
	quick := flag.Bool("quick", false, "small inputs and few rounds (a smoke test; not for RESULTS.md)")
	results := flag.String("results", "", "write the table as Markdown to this file (compare.sh: tests/bench/RESULTS.md)")
	only := flag.String("only", "", "regexp: run only the workload groups it matches (throughput, latency, memory, scale, gobench)")
	cli := flag.String("cli", "", "use this signaltty binary as the CLI instead of the one built from the tree (to measure a proposed CLI build)")
	flag.Parse()
	if *quick {
		*rounds, *latIters, *memRounds, *scalePanes, *samples, *conc = 1, 5, 1, 100, 20, 10
		*wake = 2 * time.Second
	}
	want := func(group string) bool {
		if *only == "" {
			return true
		}
		return regexp.MustCompile(*only).MatchString(group)
	}
	b := &bench{samples: map[string][]float64{}, log: os.Stderr}
	var err error
	if b.root, err = os.Getwd(); err != nil {
		fatal(err)
	}
	if _, err := os.Stat(filepath.Join(b.root, "tests/bench/compare")); err != nil {
		fatal(fmt.Errorf("run from the repository root: %v", err))
	}
	if b.tmp, err = os.MkdirTemp("", "signaltty-bench-"); err != nil {
		fatal(err)
	}
	tmpRoot = b.tmp
	defer os.RemoveAll(b.tmp)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() { fatal(fmt.Errorf("%v", <-sigs)) }()
	started := time.Now()

	b.logf("building signalttyd and signaltty")
	b.bin = filepath.Join(b.tmp, "bin")
	build := exec.Command("go", "build", "-o", b.bin+"/", "./cmd/signalttyd", "./cmd/signaltty")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as meson.build builds them
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fatal(err)
	}
	if *cli != "" {
		if err := copyFile(*cli, filepath.Join(b.bin, "signaltty")); err != nil {
			fatal(err)
		}
		b.cliNote = *cli
	}
	b.logf("writing inputs")
	if b.content, err = makeContents(b.tmp, *quick); err != nil {
		fatal(err)
	}
	if b.sig, err = startDaemon(b.bin, b.tmp); err != nil {
		fatal(err)
	}
	defer b.sig.stop()
	if b.tmux, err = startTmux(b.tmp); err != nil {
		fatal(err)
	}
	defer b.tmux.stop()
	if want("latency") {
		if b.usd, err = startUserSystemd(b.root, b.tmp); err != nil {
			b.logf("no systemd-run column: %v", err)
			b.usd = nil
		} else {
			defer b.usd.stop()
		}
	}

	if want("throughput") {
		if err := setupThroughput(b); err != nil {
			fatal(err)
		}
		for r := 0; r < *rounds; r++ {
			for _, name := range []string{"seq", "full", "color"} {
				for _, sz := range throughputSizes {
					c := b.content[throughputContent(name, sz)]
					key := fmt.Sprintf("tp-%s-%v", name, sz)
					systems := []string{"signaltty", "tmux"}
					if r%2 == 1 {
						systems = []string{"tmux", "signaltty"}
					}
					for _, sys := range systems {
						var d time.Duration
						var err error
						k := fmt.Sprintf("%s-%d-%d", name, sz.cols, b.next())
						if sys == "signaltty" {
							d, err = throughputSignaltty(b, c, sz, k)
						} else {
							d, err = throughputTmux(b, c, sz, k)
						}
						if err != nil {
							fatal(err)
						}
						b.add(key+"/"+sys, d.Seconds())
						b.logf("round %d %s %s %v: %.3f s", r, sys, name, sz, d.Seconds())
					}
				}
			}
		}
	}

	if want("latency") {
		if err := setupLatency(b); err != nil {
			fatal(err)
		}
		conn, err := dialDaemon(b.sig)
		if err != nil {
			fatal(err)
		}
		type sys struct {
			name string
			f    func(*bench) (time.Duration, error)
		}
		cli := []sys{{"signaltty", latSignaltty}, {"tmux", latTmux}}
		if b.usd != nil {
			cli = append(cli, sys{"systemd-run", latSystemdRun})
		}
		inproc := []sys{{"inproc", func(b *bench) (time.Duration, error) { return latInproc(b, conn) }}, {"floor", latFloor}}
		// Warm up (page cache, first connections).
		for _, s := range append(append([]sys{}, cli...), inproc...) {
			if _, err := s.f(b); err != nil {
				fatal(err)
			}
		}
		for r := 0; r < *rounds; r++ {
			for i := 0; i < *latIters; i++ {
				for _, group := range [][]sys{cli, inproc} {
					for k := range group {
						s := group[(i+k+r)%len(group)]
						d, err := s.f(b)
						if err != nil {
							fatal(err)
						}
						b.add("lat/"+s.name, d.Seconds())
					}
				}
			}
			b.logf("latency round %d done", r)
		}
		conn.Close()
	}

	if want("memory") {
		for r := 0; r < *memRounds; r++ {
			for _, w := range memWorkloads {
				systems := []string{"signaltty", "tmux"}
				if r%2 == 1 {
					systems = []string{"tmux", "signaltty"}
				}
				for _, sys := range systems {
					wk := time.Duration(0)
					if r == 0 && w.name == "idle" {
						wk = *wake
					}
					var kib, slices int64
					var err error
					if sys == "signaltty" {
						kib, slices, err = memSignaltty(b, w, wk)
					} else {
						kib, slices, err = memTmux(b, w, wk)
					}
					if err != nil {
						fatal(err)
					}
					b.add("mem/"+w.name+"/"+sys, float64(kib))
					if wk > 0 {
						b.add("wake/"+sys, float64(slices))
					}
					b.logf("memory round %d %s %s: %d KiB (%d KiB per pane)", r, sys, w.name, kib, kib/int64(w.panes))
				}
			}
		}
	}

	var sc *scaleResult
	if want("scale") && *scalePanes > 0 {
		b.logf("scale: %d panes", *scalePanes)
		r, err := runScale(b, *scalePanes, *samples, *conc)
		if err != nil {
			fatal(err)
		}
		sc = &r
	}

	var gb string
	if want("gobench") && *gobench {
		b.logf("Go micro-benchmarks")
		gb = runGoBench(b, *quick)
	}

	table := b.table(sc, gb, time.Since(started), *quick)
	fmt.Print(table)
	if *results != "" {
		if err := os.WriteFile(*results, []byte(table), 0o644); err != nil {
			fatal(err)
		}
		b.logf("wrote %s", *results)
	}
}

func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(b.log, "compare: "+format+"\n", args...)
}

// fatal stops every server this program started and exits.
func fatal(err error) {
	fmt.Fprintln(os.Stderr, "compare:", err)
	stopAll()
	if tmpRoot != "" {
		os.RemoveAll(tmpRoot)
	}
	os.Exit(1)
}

var tmpRoot string

// runGoBench runs the micro-benchmarks and returns their output lines.
func runGoBench(b *bench, quick bool) string {
	var out bytes.Buffer
	benchtime := "1s"
	if quick {
		benchtime = "1x"
	}
	for _, args := range [][]string{
		{"./snapshot", "-bench", "Save200Panes|Load200Panes", "-benchtime", "20x"},
		{"./term", "-bench", ".", "-benchtime", benchtime},
		{"./pty", "-bench", ".", "-benchtime", benchtime},
		{"./service", "-bench", ".", "-benchtime", benchtime},
	} {
		c := exec.Command("go", append([]string{"test", "-run", "^$", "-benchmem", args[0]}, args[1:]...)...)
		var o bytes.Buffer
		c.Stdout, c.Stderr = &o, os.Stderr
		if err := c.Run(); err != nil {
			b.logf("go test %s: %v", args[0], err)
		}
		for _, l := range strings.Split(o.String(), "\n") {
			if strings.HasPrefix(l, "Benchmark") {
				out.WriteString(l + "\n")
				if f := strings.Fields(l); len(f) >= 3 {
					if ns, err := strconv.ParseFloat(f[2], 64); err == nil {
						name := strings.TrimSuffix(f[0], fmt.Sprintf("-%d", runtime.GOMAXPROCS(0)))
						b.add("go/"+name, ns/1e6)
					}
				}
			}
		}
	}
	return out.String()
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o755)
}

func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
		}
	}
	return "unknown"
}

func version(name string, args ...string) string {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		return "n/a"
	}
	return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
}

// table renders the results as Markdown.
func (b *bench) table(sc *scaleResult, gb string, took time.Duration, quick bool) string {
	var w strings.Builder
	kernel := version("uname", "-r")
	fmt.Fprintf(&w, "# signaltty benchmark results\n\n")
	fmt.Fprintf(&w, "- date: %s\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&w, "- machine: %d CPUs (nproc), %s, Linux %s\n", runtime.NumCPU(), cpuModel(), kernel)
	fmt.Fprintf(&w, "- compared with: %s; %s\n", version("tmux", "-V"), version("systemd-run", "--version"))
	fmt.Fprintf(&w, "- commit: %s\n", strings.TrimSpace(version("git", "-C", b.root, "describe", "--always", "--dirty")))
	fmt.Fprintf(&w, "- command: `tests/bench/compare.sh` (%s)\n", took.Round(time.Second))
	if quick {
		fmt.Fprintf(&w, "- QUICK MODE: small inputs, one round; not comparable\n")
	}
	if b.cliNote != "" {
		fmt.Fprintf(&w, "- CLI: %s (given with -cli, not built from the tree)\n", b.cliNote)
	}
	fmt.Fprintf(&w, "\nEvery figure is a median over rounds in which the systems alternate. Ratios are signaltty ÷ the other system; lower is better.\n\n")

	fmt.Fprintf(&w, "## Output throughput through one pane\n\n")
	fmt.Fprintf(&w, "`cat FILE` in a new pane, from the first client command until the program is done and the file's last line is capturable; the screen is checked row by row (and signaltty's oldest history rows). signaltty: `run`, `run wait`, `pane capture` (CLI). tmux (history-limit 10000): `new-window sh -c 'cat FILE; tmux wait-for -S C; exec sleep infinity'`, `wait-for C`, `capture-pane` until the last line shows.\n\n")
	fmt.Fprintf(&w, "| input | size | signaltty | tmux | ratio | goal ≤ 1.0 |\n|---|---|---|---|---|---|\n")
	for _, name := range []string{"seq", "full", "color"} {
		for _, sz := range throughputSizes {
			key := fmt.Sprintf("tp-%s-%v", name, sz)
			s, ok1 := b.median(key + "/signaltty")
			t, ok2 := b.median(key + "/tmux")
			if !ok1 || !ok2 {
				continue
			}
			c := b.content[throughputContent(name, sz)]
			desc := map[string]string{"seq": "seq lines", "full": "full-width lines", "color": "coloured text"}[name]
			fmt.Fprintf(&w, "| %s (%d lines, %.1f MB) | %v | %.3f s | %.3f s | %.2f | %s |\n", desc, c.lines, float64(c.bytes)/1e6, sz, s, t, s/t, met(s/t <= 1.0))
		}
	}

	fmt.Fprintf(&w, "\n## Memory (server RSS growth)\n\n")
	fmt.Fprintf(&w, "A fresh server each round; VmRSS of the server process only, %v after the panes finished their output.\n\n", settle)
	fmt.Fprintf(&w, "| workload | signaltty | tmux | ratio | goal |\n|---|---|---|---|---|\n")
	if s, ok := b.median("mem/idle/signaltty"); ok {
		t, _ := b.median("mem/idle/tmux")
		fmt.Fprintf(&w, "| 100 idle panes (`sleep`), per pane | %.0f KiB | %.0f KiB | %.1f | ≤ 256 KiB: %s |\n", s/100, t/100, s/t, met(s/100 <= 256))
	}
	if s, ok := b.median("mem/short10k/signaltty"); ok {
		t, _ := b.median("mem/short10k/tmux")
		fmt.Fprintf(&w, "| 20 panes × 10,000 history rows of short text (seq), per pane | %.2f MiB | %.2f MiB | %.2f | ≤ 3 MiB: %s |\n", s/20/1024, t/20/1024, s/t, met(s/20/1024 <= 3))
	}
	if s, ok := b.median("mem/full10k/signaltty"); ok {
		t, _ := b.median("mem/full10k/tmux")
		fmt.Fprintf(&w, "| 100 panes × 10,000 history rows of 80-column text, total | %.0f MiB | %.0f MiB | %.2f | ≤ 2.0: %s |\n", s/1024, t/1024, s/t, met(s/t <= 2))
	}

	fmt.Fprintf(&w, "\n## Start `true` and wait for it\n\n")
	if s, ok := b.median("lat/signaltty"); ok {
		t, _ := b.median("lat/tmux")
		fmt.Fprintf(&w, "| client | median | signaltty ÷ this | goal |\n|---|---|---|---|\n")
		fmt.Fprintf(&w, "| `signaltty run --key K --workspace W -- true` + `signaltty run wait --run R` | %.2f ms | | |\n", s*1e3)
		fmt.Fprintf(&w, "| `tmux new-window -d true` + `tmux wait-for C` (pane-exited hook) | %.2f ms | %.2f | ≤ 1.0: %s |\n", t*1e3, s/t, met(s/t <= 1))
		if u, ok := b.median("lat/systemd-run"); ok {
			fmt.Fprintf(&w, "| `systemd-run --user --wait --pipe -q true` (private user manager) | %.2f ms | %.2f | ≤ 0.5: %s |\n", u*1e3, s/u, met(s/u <= 0.5))
		} else {
			fmt.Fprintf(&w, "| `systemd-run --user --wait` | n/a (no private user manager) | | |\n")
		}
		i, _ := b.median("lat/inproc")
		f, _ := b.median("lat/floor")
		fmt.Fprintf(&w, "| in-process varlink client: Run.Start + Run.Wait on one connection | %.2f ms | | |\n", i*1e3)
		fmt.Fprintf(&w, "| floor: pty.Start(`true`) until reaped, no daemon | %.2f ms | in-process ÷ floor %.2f | ≤ 2.0: %s |\n", f*1e3, i/f, met(i/f <= 2))
	}

	if sc != nil {
		fmt.Fprintf(&w, "\n## Scale: %d live panes in one daemon\n\n", sc.panes)
		worst := verbStat{}
		var save verbStat
		for _, v := range sc.verbs {
			if v.name == "Server.Save" {
				save = v // writes and fsyncs the snapshot: goal (5), not a 10 ms verb
				continue
			}
			if v.p99 > worst.p99 {
				worst = v
			}
		}
		fmt.Fprintf(&w, "SpawnPane while filling: p50 %.2f ms, p99 %.2f ms. Daemon RSS with %d idle panes: %.0f MiB. Worst verb p99: %s %.2f ms (goal ≤ 10 ms: %s). Server.Save (a snapshot of all %d panes written and fsynced, the snapshot goal's business rather than a 10 ms verb): p50 %.1f ms, p99 %.1f ms.\n\n",
			ms(sc.spawnP50), ms(sc.spawnP99), sc.panes, float64(sc.rssKiB)/1024, worst.name, ms(worst.p99), met(worst.p99 <= 10*time.Millisecond), sc.panes, ms(save.p50), ms(save.p99))
		fmt.Fprintf(&w, "| verb | calls | p50 | p99 | max |\n|---|---|---|---|---|\n")
		for _, v := range sc.verbs {
			fmt.Fprintf(&w, "| %s | %d | %.2f ms | %.2f ms | %.2f ms |\n", v.name, v.n, ms(v.p50), ms(v.p99), ms(v.max))
		}
		fmt.Fprintf(&w, "\n%d concurrent runs of `seq 1 20000` (each Run.Start + Run.Wait on its own connection): all succeeded, wall %.0f ms, p99 %.0f ms.\n",
			sc.concurrent, ms(sc.concWall), ms(sc.concP99))
	}

	if s, ok := b.median("wake/signaltty"); ok {
		t, _ := b.median("wake/tmux")
		fmt.Fprintf(&w, "\n## Idle wake-ups\n\nServer with 100 idle panes: times its threads were scheduled (sum of `/proc/PID/task/*/schedstat` field 3) over the window: signaltty %.0f, tmux %.0f (goal: no periodic wake-ups).\n", s, t)
	}

	fmt.Fprintf(&w, "\n## Notes\n\n")
	fmt.Fprintf(&w, "- Both systems get the same bytes through a real PTY; `cat` and the kernel's PTY path take about as much CPU as the server, so on 2 cores the servers' CPU use shows in the times.\n")
	fmt.Fprintf(&w, "- tmux stops reading a pane whose program exited and drops the output still in the PTY (with `remain-on-exit` and a `pane-died` hook, the last ~700 of 2,000,000 seq lines never show), so its pane is kept alive until the last line is captured.\n")
	fmt.Fprintf(&w, "- Memory is VmRSS of the server process; Go's heap returns freed memory to the OS only gradually, so signaltty's figures include some garbage.\n")
	fmt.Fprintf(&w, "- The CLI is built like meson.build builds it (`go build`, CGO_ENABLED=0); `-cli PATH` measures another build of it.\n")

	if gb != "" {
		fmt.Fprintf(&w, "\n## Snapshot and micro-benchmarks (`go test -bench`)\n\n")
		if s, ok := b.median("go/BenchmarkSave200Panes/first"); ok {
			u, _ := b.median("go/BenchmarkSave200Panes/unchanged")
			l, _ := b.median("go/BenchmarkLoad200Panes")
			fmt.Fprintf(&w, "| snapshot of 200 panes with 64 KiB tails | time | goal ≤ 100 ms |\n|---|---|---|\n")
			fmt.Fprintf(&w, "| save, every tail written (fsync) | %.1f ms | %s |\n| save, tails unchanged | %.1f ms | %s |\n| load | %.1f ms | %s |\n\n",
				s, met(s <= 100), u, met(u <= 100), l, met(l <= 100))
		}
		fmt.Fprintf(&w, "```\n%s```\n", gb)
	}
	return w.String()
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}

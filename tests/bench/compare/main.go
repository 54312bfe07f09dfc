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
	tmuxCol []tmuxCol              // the tmux columns, in table order
	tmuxes  map[string]*tmuxServer // running servers of the available builds, by key
	usd     *userSystemd           // nil when the private user manager could not start
	seq     atomic.Int64
	samples map[string][]float64
	log     io.Writer
	cliNote string // the CLI binary given with -cli
	cliWait bool   // the CLI has `run --wait`
	release time.Duration
	many    manyWorkload

	agents       []agentWorkload
	agentStreams []string         // the streams replayed, as DIR/KIND
	keys         keysWorkload     // agents-keys (panes 0: not run)
	attached     attachedWorkload // agents-attached (panes 0: not run)

	load      loadWorkload
	loadAfter map[string][]int64 // by system: VmRSS each second after the output, last sample
	loadNote  string             // why the peak could not be reset ("" when it was)
}

// tmuxCol is one tmux build the tables compare with; bin is nil (and err
// says why) when it cannot run here.
type tmuxCol struct {
	key, label string
	bin        *tmuxBin
	err        error
}

// systems is signaltty and the available tmux builds, rotated by r so
// that each goes first in turn.
func (b *bench) systems(r int) []string {
	s := []string{"signaltty"}
	for _, c := range b.tmuxCol {
		if c.bin != nil {
			s = append(s, c.key)
		}
	}
	out := make([]string, len(s))
	for i := range s {
		out[i] = s[(i+r)%len(s)]
	}
	return out
}

func (b *bench) bins() map[string]*tmuxBin {
	m := map[string]*tmuxBin{}
	for _, c := range b.tmuxCol {
		if c.bin != nil {
			m[c.key] = c.bin
		}
	}
	return m
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
	memRounds := flag.Int("memrounds", 2, "rounds of the memory workloads (a fresh server each)")
	scalePanes := flag.Int("scale", 1000, "live panes in the scale workload (0: skip)")
	samples := flag.Int("samples", 100, "calls per verb in the scale workloads")
	conc := flag.Int("concurrent", 50, "concurrent runs in the scale workloads")
	wake := flag.Duration("wake", 10*time.Second, "window for counting idle wake-ups (0: skip)")
	gobench := flag.Bool("gobench", true, "run the Go micro-benchmarks (pty, snapshot) and include them")
	quick := flag.Bool("quick", false, "small inputs and few rounds (a smoke test; not for RESULTS.md)")
	results := flag.String("results", "", "write the table as Markdown to this file (compare.sh: tests/bench/RESULTS.md)")
	only := flag.String("only", "", "regexp: run only the workload groups it matches (throughput, many, agents, agents-keys, agents-attached, latency, memory, memory-<workload>: memory-idle, memory-short10k, memory-full10k, memory-color10k, memory-bash, memory-load; scale, scale10k, gobench)")
	cli := flag.String("cli", "", "use this signaltty binary as the CLI instead of the one built from the tree (to measure a proposed CLI build)")
	home, _ := os.UserHomeDir()
	tmux2 := flag.String("tmux2", filepath.Join(home, ".cache/signaltty-tests/tmux-3.5a/argv"),
		"the second tmux: a file with its command, one word a line (tests/harness/get-tmux.sh writes it); \"\" for none")
	manyPanes := flag.Int("many", 100, "panes in the many-panes throughput workload (0: skip)")
	manyLines := flag.Int("manylines", 200000, "lines each of them prints (`seq 1 N`)")
	manyRounds := flag.Int("manyrounds", 1, "rounds of that workload (at most -rounds; each takes about 2 minutes here, mostly tmux's)")
	bash := flag.Int("bashpanes", 1000, "`bash --norc -i` panes in the idle printed panes memory workload (0: skip)")
	bashRounds := flag.Int("bashrounds", 1, "rounds of that workload (at most -memrounds; each takes about 1 minute)")
	release := flag.Duration("release", 5*time.Second, "idle time of those panes before measuring; also given to the daemon as SIGNALTTY_EMULATOR_RELEASE_MS")
	loadPanes := flag.Int("loadpanes", 1000, "panes in the memory-under-load workload (memory-load; 0: skip)")
	loadWindow := flag.Duration("loadfor", time.Minute, "how long each of them prints a line every 100 ms")
	loadAfter := flag.Duration("loadafter", 10*time.Second, "how long the server's VmRSS is followed after the output stopped")
	loadEnvFlag := flag.String("loadenv", "", "NAME=VALUE[,NAME=VALUE...] given to the daemon in that workload (e.g. SIGNALTTY_EMULATOR_RELEASE_MS=5000)")
	loadRounds := flag.Int("loadrounds", 1, "rounds of that workload (a fresh server each sample; each takes about the window plus the after window plus starting the panes)")
	panes10k := flag.Bool("panes-10k", false, "also run the 10,000 idle panes scale section (slow: about 2-4 minutes; --only scale10k runs it alone)")
	scale10k := flag.Int("scale10k", 10000, "panes in that section")
	agentPanes := flag.String("agentpanes", "20,50", "pane counts of the agent workloads (\"\": skip)")
	agentSpeeds := flag.String("agentspeeds", "1,10", "replay speeds of the agent workloads (1: the recorded pace)")
	agentWindow := flag.Duration("agentfor", envDuration("SIGNALTTY_BENCH_AGENT_FOR", time.Minute), "measured window of each agent sample (env SIGNALTTY_BENCH_AGENT_FOR)")
	agentRounds := flag.Int("agentrounds", 1, "rounds of the agent workloads, agents-keys and agents-attached included (a fresh server each sample)")
	agentProf := flag.String("agentprof", "", "after the agent samples, profile the daemon (a test-hooks build) in one more sample of the first agent workload; save its CPU and heap profiles in this directory")
	agentEnvFlag := flag.String("agentenv", "", "NAME=VALUE[,NAME=VALUE...] given to the daemon in the agent workloads (e.g. SIGNALTTY_SAVE_OUTPUT_INTERVAL_MS=0)")
	keyPanes := flag.Int("keypanes", 20, "agent panes replaying at 1× while keys are typed into one more pane, attached by a real client (agents-keys; 0: skip)")
	keys := flag.Int("keys", 200, fmt.Sprintf("keys typed in agents-keys, one at a time, each a different character (at most %d)", maxKeys))
	keyPace := flag.Duration("keypace", 20*time.Millisecond, "time between those keys")
	attachPanes := flag.Int("attachpanes", 20, "agent panes replaying at 1×, each shown by an attached client of its own (agents-attached; 0: skip)")
	attachFor := flag.Duration("attachfor", envDuration("SIGNALTTY_BENCH_AGENT_FOR", time.Minute), "measured window of each agents-attached sample (env SIGNALTTY_BENCH_AGENT_FOR)")
	flag.StringVar(&memProfDir, "memprof", "", "save the daemon's heap profiles and statistics in the memory workloads to this directory, before and at the measurement (needs GOFLAGS=-tags=signaltty_testhooks)")
	flag.Parse()
	if *quick {
		*rounds, *latIters, *memRounds, *scalePanes, *samples, *conc = 1, 5, 1, 100, 20, 10
		*wake = 2 * time.Second
		*manyPanes, *manyLines = min(*manyPanes, 20), min(*manyLines, 20000)
		*bash, *bashRounds, *release = min(*bash, 50), 1, min(*release, time.Second)
		*scale10k = min(*scale10k, 500)
		*agentWindow = min(*agentWindow, 10*time.Second)
		*keyPanes, *keys, *attachPanes = min(*keyPanes, 4), min(*keys, 50), min(*attachPanes, 4)
		*attachFor = min(*attachFor, 5*time.Second)
		*loadPanes, *loadWindow, *loadRounds = min(*loadPanes, 50), min(*loadWindow, 5*time.Second), 1
	}
	if *keys < 1 || *keys > maxKeys {
		fatal(fmt.Errorf("-keys %d: from 1 to %d", *keys, maxKeys))
	}
	bashPanes, releaseWait = *bash, *release
	if memProfDir != "" {
		if err := os.MkdirAll(memProfDir, 0o755); err != nil {
			fatal(err)
		}
	}
	agentEnv = strings.FieldsFunc(*agentEnvFlag, func(r rune) bool { return r == ',' })
	loadEnv = strings.FieldsFunc(*loadEnvFlag, func(r rune) bool { return r == ',' })
	want := func(group string) bool {
		if *only == "" {
			return true
		}
		return regexp.MustCompile(*only).MatchString(group)
	}
	// --only scale matches "scale10k" too; the 10,000-pane section runs only
	// when asked for by its flag or by an -only that leaves out "scale".
	run10k := *panes10k || (*only != "" && want("scale10k") && !want("scale"))
	b := &bench{samples: map[string][]float64{}, log: os.Stderr, tmuxes: map[string]*tmuxServer{}, release: *release,
		many: manyWorkload{panes: *manyPanes, lines: *manyLines},
		load: loadWorkload{panes: *loadPanes, window: *loadWindow, after: *loadAfter}}
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

	sysTmux, err := systemTmux()
	if err != nil {
		fatal(err)
	}
	sysTmux.key = "tmux"
	b.tmuxCol = append(b.tmuxCol, tmuxCol{key: "tmux", label: sysTmux.label, bin: sysTmux})
	second := tmuxCol{key: "tmux35", label: "tmux 3.5a"}
	if *tmux2 == "" {
		second.err = fmt.Errorf("not asked for (-tmux2 \"\")")
	} else if t, err := argvTmux("tmux35", *tmux2); err != nil {
		second.err = err
	} else {
		second.bin, second.label = t, t.label
	}
	if second.err != nil {
		b.logf("no %s column: %v", second.label, second.err)
	}
	b.tmuxCol = append(b.tmuxCol, second)

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
	b.cliWait = cliHasWait(b)
	if !b.cliWait {
		b.logf("this CLI has no `run --wait`: its latency row is left out")
	}
	b.logf("writing inputs")
	if b.content, err = makeContents(b.tmp, *quick); err != nil {
		fatal(err)
	}
	if b.sig, err = startDaemon(b.bin, b.tmp); err != nil {
		fatal(err)
	}
	defer b.sig.stop()
	for key, bin := range b.bins() {
		t, err := startTmux(b.tmp, bin)
		if err != nil {
			fatal(err)
		}
		defer t.stop()
		b.tmuxes[key] = t
	}
	if want("latency") {
		if b.usd, err = startUserSystemd(b.root, b.tmp); err != nil {
			b.logf("no systemd-run column: %v", err)
			b.usd = nil
		} else {
			defer b.usd.stop()
		}
	}

	if want("throughput") || (want("many") && b.many.panes > 0) {
		section := time.Now()
		restore, err := ensurePtys(b, b.many.panes+10)
		if err != nil {
			fatal(err)
		}
		defer restore()
		if err := setupThroughput(b); err != nil {
			fatal(err)
		}
		for r := 0; r < *rounds; r++ {
			if want("throughput") {
				for _, name := range []string{"seq", "full", "color"} {
					for _, sz := range throughputSizes {
						c := b.content[throughputContent(name, sz)]
						key := fmt.Sprintf("tp-%s-%v", name, sz)
						for _, sys := range b.systems(r) {
							var d time.Duration
							var err error
							k := fmt.Sprintf("%s-%d-%d", name, sz.cols, b.next())
							if sys == "signaltty" {
								d, err = throughputSignaltty(b, c, sz, k)
							} else {
								d, err = throughputTmux(b.tmuxes[sys], c, sz, k)
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
			if b.many.panes > 0 && (want("throughput") || want("many")) && r < *manyRounds {
				for _, sys := range b.systems(r) {
					var d time.Duration
					var err error
					k := fmt.Sprintf("many-%d", b.next())
					if sys == "signaltty" {
						d, err = throughputManySignaltty(b, b.many, k)
					} else {
						d, err = throughputManyTmux(b, b.bins()[sys], b.many, k)
					}
					if err != nil {
						fatal(err)
					}
					b.add("tp-many/"+sys, d.Seconds())
					b.logf("round %d %s %v: %.3f s", r, sys, b.many, d.Seconds())
				}
			}
		}
		b.took("throughput", section)
	}

	if want("agents") {
		section := time.Now()
		for _, n := range intList(*agentPanes) {
			for _, sp := range floatList(*agentSpeeds) {
				b.agents = append(b.agents, agentWorkload{panes: n, speed: sp, window: *agentWindow})
			}
		}
		if len(b.agents) > 0 {
			if err := runAgents(b, b.agents, *agentRounds, *agentProf); err != nil {
				fatal(err)
			}
		}
		b.took("agents", section)
	}

	if (want("agents-keys") && *keyPanes > 0) || (want("agents-attached") && *attachPanes > 0) {
		section := time.Now()
		b.keys = keysWorkload{keys: *keys, pace: *keyPace}
		b.attached = attachedWorkload{window: *attachFor}
		if want("agents-keys") {
			b.keys.panes = *keyPanes
		}
		if want("agents-attached") {
			b.attached.panes = *attachPanes
		}
		if err := runAttach(b, b.keys, b.attached, *agentRounds); err != nil {
			fatal(err)
		}
		b.took("attached clients", section)
	}

	if want("latency") {
		section := time.Now()
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
		cli := []sys{{"signaltty", latSignaltty}}
		if b.cliWait {
			cli = append(cli, sys{"signaltty-wait", latSignalttyWait})
		}
		for _, c := range b.tmuxCol {
			if t := b.tmuxes[c.key]; t != nil {
				cli = append(cli, sys{c.key, func(*bench) (time.Duration, error) { return latTmux(t) }})
			}
		}
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
		b.took("latency", section)
	}

	for _, w := range memWorkloads {
		if !(want("memory") || want("memory-"+w.name)) || w.panesOf() == 0 {
			continue
		}
		section := time.Now()
		restore, err := ensurePtys(b, w.panesOf()+10)
		if err != nil {
			fatal(err)
		}
		n := *memRounds
		if w.prompt {
			n = min(n, *bashRounds)
		}
		for r := 0; r < n; r++ {
			for _, sys := range b.systems(r) {
				wk := time.Duration(0)
				if r == 0 && w.name == "idle" {
					wk = *wake
				}
				var kib, slices int64
				var err error
				if sys == "signaltty" {
					kib, slices, err = memSignaltty(b, w, wk)
				} else {
					kib, slices, err = memTmux(b, b.bins()[sys], w, wk)
				}
				if err != nil {
					fatal(err)
				}
				b.add("mem/"+w.name+"/"+sys, float64(kib))
				if wk > 0 {
					b.add("wake/"+sys, float64(slices))
				}
				b.logf("memory round %d %s %s: %d KiB (%d KiB per pane)", r, sys, w.name, kib, kib/int64(w.panesOf()))
			}
		}
		restore()
		b.took("memory "+w.name, section)
	}

	if want("memory-load") && b.load.panes > 0 {
		section := time.Now()
		if err := runLoad(b, b.load, *loadRounds); err != nil {
			fatal(err)
		}
		b.took("memory-load", section)
	}

	var scs []*scaleResult
	if want("scale") && *scalePanes > 0 {
		section := time.Now()
		b.logf("scale: %d panes", *scalePanes)
		restore, err := ensurePtys(b, *scalePanes+*conc+3*(*samples))
		if err != nil {
			fatal(err)
		}
		r, err := runScale(b, *scalePanes, *samples, *conc, 0, 0)
		restore()
		if err != nil {
			fatal(err)
		}
		scs = append(scs, &r)
		b.took("scale", section)
	}
	if run10k && *scale10k > 0 {
		section := time.Now()
		b.logf("scale: %d idle panes", *scale10k)
		r, err := runScale10k(b, *scale10k, *samples, *conc, *wake)
		if err != nil {
			fatal(err)
		}
		scs = append(scs, &r)
		b.took("scale10k", section)
	}

	var gb string
	if want("gobench") && *gobench {
		section := time.Now()
		b.logf("Go micro-benchmarks")
		gb = runGoBench(b, *quick)
		b.took("gobench", section)
	}

	table := b.table(scs, gb, time.Since(started), *quick)
	fmt.Print(table)
	if *results != "" {
		if err := os.WriteFile(*results, []byte(table), 0o644); err != nil {
			fatal(err)
		}
		b.logf("wrote %s", *results)
	}
}

// took logs how long a section ran.
func (b *bench) took(section string, since time.Time) {
	b.logf("section %s took %v", section, time.Since(since).Round(time.Second))
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
		{"./service/runs", "-bench", ".", "-benchtime", benchtime},
		{"./cmd/internal/historyview", "-bench", "HistoryViewEnterAndTop", "-benchtime", "200x"},
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
						for i := 4; i < len(f); i++ {
							if f[i] == "p99-ms" { // a percentile the benchmark reports
								if v, err := strconv.ParseFloat(f[i-1], 64); err == nil {
									b.add("go/"+name+"/p99", v)
								}
							}
						}
					}
				}
			}
		}
	}
	return out.String()
}

// envDuration is the duration in environment variable name, or def.
func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil && d > 0 {
		return d
	}
	return def
}

// intList and floatList parse comma-separated numbers; bad ones are fatal.
func intList(s string) []int {
	var out []int
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' }) {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			fatal(fmt.Errorf("%q: %v", s, err))
		}
		out = append(out, n)
	}
	return out
}

func floatList(s string) []float64 {
	var out []float64
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' }) {
		n, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			fatal(fmt.Errorf("%q: %v", s, err))
		}
		out = append(out, n)
	}
	return out
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

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}

package main

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Goals of the performance issue: ratios are signaltty ÷ the other system.
const (
	goalThroughput   = 0.8  // every throughput row, ≤ × tmux
	goalLatTwoCLI    = 0.7  // run + run wait, ≤ × tmux
	goalLatTwoCLIUsd = 0.5  // run + run wait, ≤ × systemd-run
	goalLatWait      = 0.5  // run --wait, ≤ × tmux
	goalLatWaitUsd   = 0.25 // run --wait, ≤ × systemd-run
	goalInproc       = 1.3  // in-process Start→Wait, ≤ × the floor
	goalIdleKiB      = 256  // 100 idle `sleep` panes, KiB a pane
	goalBashKiB      = 64   // idle printed panes, KiB a pane
	goalShort10k     = 1.1  // 10,000 rows of seq, ≤ × tmux
	goalFull10k      = 0.7  // 100 × 10,000 full-width rows, ≤ × tmux
	goalVerb1k       = 5 * time.Millisecond
	goalSave1k       = 20 * time.Millisecond
	goalVerb10k      = 10 * time.Millisecond
	goalRSS10kKiB    = 1 << 20
	goalAgentsCPU    = 0.5                   // agent streams at the recorded pace, server CPU ≤ × tmux
	goalAgents50Core = 0.05                  // 50 agent panes at pace, server CPU ≤ this share of one core
	goalKeysP99      = 10 * time.Millisecond // keystroke to echo under agent load, p99
	goalKeysVsTmux   = 1.0                   // and ≤ × tmux's p99
	goalLoadAfter    = 1.1                   // memory under load: VmRSS after the output ≤ × the baseline
)

// tmuxHeader is the tmux columns' header cells: "| tmux 3.3a | ratio | tmux 3.5a | ratio".
func (b *bench) tmuxHeader() string {
	var s strings.Builder
	for _, c := range b.tmuxCol {
		fmt.Fprintf(&s, " %s | ratio |", c.label)
	}
	return s.String()
}

func (b *bench) tmuxLabels() string {
	var l []string
	for _, c := range b.tmuxCol {
		l = append(l, strings.TrimPrefix(c.label, "tmux "))
	}
	return strings.Join(l, " / ")
}

// vsTmux renders the tmux cells of a row whose signaltty figure is s:
// each tmux's median of key+"/"+tmuxkey, shown by f, and the ratio; and the
// goal cell (ratio ≤ goal for each tmux, "met / **missed**"). Missing
// columns show n/a.
func (b *bench) vsTmux(key string, s float64, f func(float64) string, goal float64) string {
	var cells, marks []string
	for _, c := range b.tmuxCol {
		t, ok := b.median(key + "/" + c.key)
		if !ok || t == 0 {
			cells = append(cells, "n/a", "")
			marks = append(marks, "n/a")
			continue
		}
		cells = append(cells, f(t), fmt.Sprintf("%.2f", s/t))
		marks = append(marks, met(s/t <= goal))
	}
	return " " + strings.Join(cells, " | ") + " | " + strings.Join(marks, " / ") + " |"
}

func sec(v float64) string { return fmt.Sprintf("%.3f s", v) }

// table renders the results as Markdown.
func (b *bench) table(scs []*scaleResult, gb string, took time.Duration, quick bool) string {
	var w strings.Builder
	kernel := version("uname", "-r")
	fmt.Fprintf(&w, "# signaltty benchmark results\n\n")
	fmt.Fprintf(&w, "- date: %s\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&w, "- machine: %d CPUs (nproc), %s, Linux %s\n", runtime.NumCPU(), cpuModel(), kernel)
	var with []string
	for _, c := range b.tmuxCol {
		if c.bin != nil {
			with = append(with, c.label+" ("+c.bin.argv[len(c.bin.argv)-1]+")")
		} else {
			with = append(with, c.label+": not available ("+c.err.Error()+")")
		}
	}
	fmt.Fprintf(&w, "- compared with: %s; %s\n", strings.Join(with, "; "), version("systemd-run", "--version"))
	fmt.Fprintf(&w, "- commit: %s\n", strings.TrimSpace(version("git", "-C", b.root, "describe", "--always", "--dirty")))
	fmt.Fprintf(&w, "- command: `tests/bench/compare.sh` (%s)\n", took.Round(time.Second))
	if quick {
		fmt.Fprintf(&w, "- QUICK MODE: small inputs, one round; not comparable\n")
	}
	if b.cliNote != "" {
		fmt.Fprintf(&w, "- CLI: %s (given with -cli, not built from the tree)\n", b.cliNote)
	}
	fmt.Fprintf(&w, "\nEvery figure is a median over rounds in which the systems alternate. Ratios are signaltty ÷ the other system; lower is better. A goal cell judges the ratio against each tmux in column order (%s). Why a goal is missed, with the profile that shows it: [MISSES.md](MISSES.md).\n\n", b.tmuxLabels())

	fmt.Fprintf(&w, "## Output throughput\n\n")
	fmt.Fprintf(&w, "One pane: `cat FILE` in a new pane, from the first client command until the program is done and the file's last line is capturable; the screen is checked row by row (and signaltty's oldest history rows). signaltty: `run`, `run wait`, `pane capture` (CLI). tmux (history-limit 10000): `new-window sh -c 'cat FILE; tmux wait-for -S C; exec sleep infinity'`, `wait-for C`, `capture-pane` until the last line shows.\n\n")
	fmt.Fprintf(&w, "Many panes: %d panes of 80×24 each running `seq 1 %d`, all started before any is waited for, in a fresh server each sample (started untimed); from the first request until every program is done and every pane shows its last line. One client each: signaltty one varlink connection (Run.Start ×%[1]d, Run.Wait ×%[1]d, Mux.CaptureRows ×%[1]d); tmux one client invocation per phase (%[1]d `new-window` joined with `;`, then %[1]d `wait-for`, then %[1]d `capture-pane` of the last line's row until all show it).\n\n", b.many.panes, b.many.lines)
	fmt.Fprintf(&w, "| input | size | signaltty |%s goal ≤ %.1f |\n|---|---|---|%s---|\n", b.tmuxHeader(), goalThroughput, strings.Repeat("---|---|", len(b.tmuxCol)))
	for _, name := range []string{"seq", "full", "color"} {
		for _, sz := range throughputSizes {
			key := fmt.Sprintf("tp-%s-%v", name, sz)
			s, ok := b.median(key + "/signaltty")
			if !ok {
				continue
			}
			c := b.content[throughputContent(name, sz)]
			desc := map[string]string{"seq": "seq lines", "full": "full-width lines", "color": "coloured text"}[name]
			fmt.Fprintf(&w, "| %s (%d lines, %.1f MB) | %v | %s |%s\n", desc, c.lines, float64(c.bytes)/1e6, sz, sec(s), b.vsTmux(key, s, sec, goalThroughput))
		}
	}
	if s, ok := b.median("tp-many/signaltty"); ok {
		fmt.Fprintf(&w, "| %d panes printing at once, each `seq 1 %d` | %v each | %s |%s\n", b.many.panes, b.many.lines, manySize, sec(s), b.vsTmux("tp-many", s, sec, goalThroughput))
	}

	fmt.Fprintf(&w, "\n## Memory (server RSS growth)\n\n")
	fmt.Fprintf(&w, "A fresh server each round; VmRSS of the server process only, %v after the panes finished their output (the prompt panes: after every pane showed its prompt and then %v of idling, the daemon's idle emulator release time, given to it as SIGNALTTY_EMULATOR_RELEASE_MS=%d).\n\n", settle, b.release, b.release.Milliseconds())
	fmt.Fprintf(&w, "| workload | signaltty |%s goal |\n|---|---|%s---|\n", b.tmuxHeader(), strings.Repeat("---|---|", len(b.tmuxCol)))
	kib := func(n float64) func(float64) string {
		return func(v float64) string { return fmt.Sprintf("%.0f KiB", v/n) }
	}
	mib := func(n float64) func(float64) string {
		return func(v float64) string { return fmt.Sprintf("%.2f MiB", v/n/1024) }
	}
	// goal cells of absolute goals: the ratio columns stay informative.
	abs := func(cells string, ok bool, goal string) string {
		i := strings.LastIndex(strings.TrimSuffix(cells, " |"), "|")
		return cells[:i+1] + " " + goal + ": " + met(ok) + " |"
	}
	if s, ok := b.median("mem/idle/signaltty"); ok {
		fmt.Fprintf(&w, "| 100 idle panes (`sleep`), per pane | %s |%s\n", kib(100)(s), abs(b.vsTmux("mem/idle", s, kib(100), 0), s/100 <= goalIdleKiB, fmt.Sprintf("≤ %d KiB", goalIdleKiB)))
	}
	if s, ok := b.median("mem/bash/signaltty"); ok {
		n := float64(bashPanes)
		fmt.Fprintf(&w, "| %d idle printed panes (`bash --norc -i` at its prompt), per pane | %s |%s\n", bashPanes, kib(n)(s), abs(b.vsTmux("mem/bash", s, kib(n), 0), s/n <= goalBashKiB, fmt.Sprintf("≤ %d KiB", goalBashKiB)))
	}
	if s, ok := b.median("mem/short10k/signaltty"); ok {
		fmt.Fprintf(&w, "| 20 panes × 10,000 history rows of short text (seq), per pane | %s |%s\n", mib(20)(s), b.vsTmux("mem/short10k", s, mib(20), goalShort10k))
	}
	if s, ok := b.median("mem/full10k/signaltty"); ok {
		fmt.Fprintf(&w, "| 100 panes × 10,000 history rows of 80-column text, total | %s |%s\n", mib(1)(s), b.vsTmux("mem/full10k", s, mib(1), goalFull10k))
	}
	if s, ok := b.median("mem/color10k/signaltty"); ok {
		cells := b.vsTmux("mem/color10k", s, mib(20), 0)
		i := strings.LastIndex(strings.TrimSuffix(cells, " |"), "|")
		fmt.Fprintf(&w, "| 20 panes × 10,000 history rows of coloured text (6 styled runs a row), per pane | %s |%s no goal |\n", mib(20)(s), cells[:i+1])
	}
	fmt.Fprintf(&w, "\nGoals: ratios ≤ %.1f (short text) and ≤ %.1f (full width); per pane ≤ %d KiB (idle `sleep`) and ≤ %d KiB (idle printed panes).\n", goalShort10k, goalFull10k, goalIdleKiB, goalBashKiB)

	b.loadTable(&w)

	b.agentsTable(&w)

	b.attachTable(&w)

	b.latencyTable(&w)

	for _, sc := range scs {
		b.scaleTable(&w, sc)
	}

	if s, ok := b.median("wake/signaltty"); ok {
		var o []string
		for _, c := range b.tmuxCol {
			if t, ok := b.median("wake/" + c.key); ok {
				o = append(o, fmt.Sprintf("%s %.0f", c.label, t))
			}
		}
		fmt.Fprintf(&w, "\n## Idle wake-ups\n\nServer with 100 idle panes: times its threads were scheduled (sum of `/proc/PID/task/*/schedstat` field 3) over the window: signaltty %.0f, %s (goal: no periodic wake-ups: %s).\n", s, strings.Join(o, ", "), met(s == 0))
	}

	fmt.Fprintf(&w, "\n## Notes\n\n")
	fmt.Fprintf(&w, "- Both systems get the same bytes through a real PTY; `cat` and the kernel's PTY path take about as much CPU as the server, so on 2 cores the servers' CPU use shows in the times.\n")
	fmt.Fprintf(&w, "- tmux stops reading a pane whose program exited and drops the output still in the PTY (with `remain-on-exit` and a `pane-died` hook, the last ~700 of 2,000,000 seq lines never show), so its pane is kept alive until the last line is captured.\n")
	fmt.Fprintf(&w, "- tmux 3.5a is Debian 13's build (tests/harness/get-tmux.sh): linked with jemalloc and libsystemd, run through Debian 13's own dynamic loader (its client invocations and in-pane `wait-for` calls too), everything else as the system's tmux.\n")
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
		if p99, ok := b.median("go/BenchmarkHistoryViewEnterAndTop/p99"); ok {
			m, _ := b.median("go/BenchmarkHistoryViewEnterAndTop")
			fmt.Fprintf(&w, "History view of a pane with 10,000 rows (`C-b [` then `g`, both drawn, through the varlink layer in one process): mean %.1f ms, p99 %.1f ms.\n\n", m, p99)
		}
		fmt.Fprintf(&w, "```\n%s```\n", gb)
	}
	return w.String()
}

func (b *bench) latencyTable(w *strings.Builder) {
	s, ok := b.median("lat/signaltty")
	if !ok {
		return
	}
	msf := func(v float64) string { return fmt.Sprintf("%.2f ms", v*1e3) }
	fmt.Fprintf(w, "\n## Start `true` and wait for it\n\n")
	fmt.Fprintf(w, "| client | median |\n|---|---|\n")
	fmt.Fprintf(w, "| signaltty, two CLI processes: `signaltty run --key K --workspace W -- true` + `signaltty run wait --run R` | %s |\n", msf(s))
	sw, okw := b.median("lat/signaltty-wait")
	if okw {
		fmt.Fprintf(w, "| signaltty, one CLI process: `signaltty run --key K --workspace W --wait -- true` | %s |\n", msf(sw))
	} else {
		fmt.Fprintf(w, "| signaltty, one CLI process: `signaltty run --key K --workspace W --wait -- true` | not available in this build (`signaltty run --help` has no --wait) |\n")
	}
	for _, c := range b.tmuxCol {
		if t, ok := b.median("lat/" + c.key); ok {
			fmt.Fprintf(w, "| %s: `tmux new-window -d true` + `tmux wait-for C` (pane-exited hook) | %s |\n", c.label, msf(t))
		} else {
			fmt.Fprintf(w, "| %s | n/a |\n", c.label)
		}
	}
	u, oku := b.median("lat/systemd-run")
	if oku {
		fmt.Fprintf(w, "| `systemd-run --user --wait --pipe -q true` (private user manager) | %s |\n", msf(u))
	} else {
		fmt.Fprintf(w, "| `systemd-run --user --wait` | n/a (no private user manager) |\n")
	}
	i, _ := b.median("lat/inproc")
	f, _ := b.median("lat/floor")
	fmt.Fprintf(w, "| in-process varlink client: Run.Start + Run.Wait on one connection | %s |\n", msf(i))
	fmt.Fprintf(w, "| floor: pty.Start(`true`) until reaped, no daemon | %s |\n", msf(f))

	fmt.Fprintf(w, "\n| signaltty | compared with | ratio | goal |\n|---|---|---|---|\n")
	row := func(what string, v float64, against string, o float64, goal float64) {
		fmt.Fprintf(w, "| %s | %s | %.2f | ≤ %.2g: %s |\n", what, against, v/o, goal, met(v/o <= goal))
	}
	for _, c := range b.tmuxCol {
		if t, ok := b.median("lat/" + c.key); ok {
			row("run + run wait (2 processes)", s, c.label, t, goalLatTwoCLI)
		} else {
			fmt.Fprintf(w, "| run + run wait (2 processes) | %s | n/a | ≤ %.2g: n/a |\n", c.label, goalLatTwoCLI)
		}
	}
	if oku {
		row("run + run wait (2 processes)", s, "systemd-run", u, goalLatTwoCLIUsd)
	}
	for _, c := range b.tmuxCol {
		t, ok := b.median("lat/" + c.key)
		if okw && ok {
			row("run --wait (1 process)", sw, c.label, t, goalLatWait)
		} else {
			fmt.Fprintf(w, "| run --wait (1 process) | %s | n/a | ≤ %.2g: n/a |\n", c.label, goalLatWait)
		}
	}
	if okw && oku {
		row("run --wait (1 process)", sw, "systemd-run", u, goalLatWaitUsd)
	} else {
		fmt.Fprintf(w, "| run --wait (1 process) | systemd-run | n/a | ≤ %.2g: n/a |\n", goalLatWaitUsd)
	}
	row("in-process Run.Start → Run.Wait", i, "floor", f, goalInproc)
}

// wholeTree tells the verbs that list or write the whole tree; the
// 10,000-pane goal leaves them out.
func wholeTree(verb string) bool {
	switch verb {
	case "Mux.ListPanes (all)", "Mux.ListPaneFields (7 fields, all)", "Mux.ListWorkspaces", "Run.List", "Server.Save":
		return true
	}
	return false
}

func (b *bench) scaleTable(w *strings.Builder, sc *scaleResult) {
	big := sc.asked > 1000
	fmt.Fprintf(w, "\n## Scale: %d live panes in one daemon\n\n", sc.asked)
	if sc.fillErr != nil {
		fmt.Fprintf(w, "**Only %d of %d panes could be made here** (%v); %d were then removed to leave the verbs room, so the figures below are for %d panes.\n\n", sc.made, sc.asked, sc.fillErr, sc.made-sc.panes, sc.panes)
	}
	if big {
		fmt.Fprintf(w, "Idle `sleep infinity` panes in workspaces of 100, made one SpawnPane after another on one connection (the daemon's RLIMIT_NOFILE raised for them); then every verb timed on that connection. Goals: RSS ≤ 1 GiB, every verb but the whole-tree ones (ListPanes and ListPaneFields of all, ListWorkspaces, Run.List, Server.Save) ≤ %v p99, no idle wake-ups.\n\n", goalVerb10k)
	} else {
		fmt.Fprintf(w, "Idle `sleep infinity` panes in workspaces of 100; every verb timed on one connection. Goals: every verb ≤ %v p99; Server.Save (a snapshot of all %d panes written and fsynced) ≤ %v p99.\n\n", goalVerb1k, sc.panes, goalSave1k)
	}
	rate := float64(sc.panes) / sc.fill.Seconds()
	fmt.Fprintf(w, "Made %d panes in %.1f s (%.0f a second); SpawnPane while filling: p50 %.2f ms, p99 %.2f ms. Daemon RSS with %d idle panes: %.0f MiB",
		sc.panes, sc.fill.Seconds(), rate, ms(sc.spawnP50), ms(sc.spawnP99), sc.panes, float64(sc.rssKiB)/1024)
	if big {
		fmt.Fprintf(w, " (goal ≤ 1 GiB: %s)", met(sc.rssKiB <= goalRSS10kKiB))
	}
	fmt.Fprintf(w, ".")
	if sc.wake > 0 {
		fmt.Fprintf(w, " Idle wake-ups over %v (timeslices of the daemon's threads): %d (goal 0: %s).", sc.wake, sc.slices, met(sc.slices == 0))
	}
	fmt.Fprintf(w, "\n\n| verb | calls | p50 | p99 | max | goal |\n|---|---|---|---|---|---|\n")
	missed := 0
	for _, v := range sc.verbs {
		var g string
		switch {
		case big && wholeTree(v.name):
			g = "(whole tree: none)"
		case big:
			g = fmt.Sprintf("p99 ≤ %v: %s", goalVerb10k, met(v.p99 <= goalVerb10k))
			if v.p99 > goalVerb10k {
				missed++
			}
		case v.name == "Server.Save":
			g = fmt.Sprintf("p99 ≤ %v: %s", goalSave1k, met(v.p99 <= goalSave1k))
			if v.p99 > goalSave1k {
				missed++
			}
		default:
			g = fmt.Sprintf("p99 ≤ %v: %s", goalVerb1k, met(v.p99 <= goalVerb1k))
			if v.p99 > goalVerb1k {
				missed++
			}
		}
		fmt.Fprintf(w, "| %s | %d | %.2f ms | %.2f ms | %.2f ms | %s |\n", v.name, v.n, ms(v.p50), ms(v.p99), ms(v.max), g)
	}
	fmt.Fprintf(w, "\nVerbs missing their goal: %d of %d.\n", missed, len(sc.verbs))
	fmt.Fprintf(w, "\n%d concurrent runs of `seq 1 20000` (each Run.Start + Run.Wait on its own connection): all succeeded, wall %.0f ms, p99 %.0f ms.\n",
		sc.concurrent, ms(sc.concWall), ms(sc.concP99))
}

// agentsTable renders the agent workloads.
func (b *bench) agentsTable(w *strings.Builder) {
	if len(b.agents) == 0 {
		return
	}
	if _, ok := b.median(b.agents[0].key() + "/signaltty"); !ok {
		return
	}
	var kinds []string
	for _, s := range b.agentStreams {
		kinds = append(kinds, "`"+filepath.Base(s)+"`")
	}
	fmt.Fprintf(w, "\n## Agent workloads: panes replaying recorded agent TUIs\n\n")
	fmt.Fprintf(w, "Panes of %v, pane i replaying recorded stream i mod %d (%s: tests/bench/streams, the real agents against the scripted model) with tests/bench/replay, at the recorded pace (1×) or faster, looping, each pane starting at a different place in its stream (what comes before written at once, before the window); a fresh server each sample. Server CPU: utime+stime of the server process (`/proc/PID/stat`) over a window of %v that starts %v after every pane's paced replay has; peak RSS: the server's VmHWM at the window's end. Goals: at the recorded pace ≤ %.1f× tmux's CPU, and %.0f%% of one core for 50 panes.\n\n",
		agentSize, len(b.agentStreams), strings.Join(kinds, ", "), b.agents[0].window, agentSettle, goalAgentsCPU, goalAgents50Core*100)
	if len(agentEnv) > 0 {
		fmt.Fprintf(w, "The daemon was given %s.\n\n", "`"+strings.Join(agentEnv, "`, `")+"`")
	}
	cpu := func(v float64) string { return fmt.Sprintf("%.2f s", v) }
	fmt.Fprintf(w, "| workload | signaltty CPU (share of a core) |%s goal |\n|---|---|%s---|\n", b.tmuxHeader(), strings.Repeat("---|---|", len(b.tmuxCol)))
	for _, a := range b.agents {
		s, ok := b.median(a.key() + "/signaltty")
		if !ok {
			continue
		}
		share := s / a.window.Seconds()
		cells := b.vsTmux(a.key(), s, cpu, goalAgentsCPU)
		goal := ""
		if a.speed != 1 {
			// A burst has no CPU goal: the ratio is shown, the goal cell
			// says so.
			i := strings.LastIndex(strings.TrimSuffix(cells, " |"), "|")
			cells = cells[:i+1] + " (no goal: a burst) |"
		} else if a.panes == 50 {
			goal = fmt.Sprintf(" ≤ %.0f%% of a core: %s |", goalAgents50Core*100, met(share <= goalAgents50Core))
			cells = strings.TrimSuffix(cells, " |") + ";" + goal
		}
		fmt.Fprintf(w, "| %d panes at %g× | %s (%.1f%%) |%s\n", a.panes, a.speed, cpu(s), share*100, cells)
	}
	kib := func(v float64) string { return fmt.Sprintf("%.1f MiB", v/1024) }
	fmt.Fprintf(w, "\n| workload | signaltty peak RSS |%s\n|---|---|%s\n", strings.TrimSuffix(b.tmuxHeader(), " |")+" |", strings.Repeat("---|---|", len(b.tmuxCol)))
	for _, a := range b.agents {
		s, ok := b.median(a.key() + "-hwm/signaltty")
		if !ok {
			continue
		}
		cells := b.vsTmux(a.key()+"-hwm", s, kib, 0)
		i := strings.LastIndex(strings.TrimSuffix(cells, " |"), "|")
		fmt.Fprintf(w, "| %d panes at %g× | %s |%s\n", a.panes, a.speed, kib(s), cells[:i+1])
	}
	fmt.Fprintf(w, "\nHow far the replayers fell behind the recorded schedule at the window's end (median over panes / the worst pane): ")
	var parts []string
	for _, a := range b.agents {
		var cols []string
		for _, sys := range append([]string{"signaltty"}, b.colKeys()...) {
			m, ok1 := b.median(a.key() + "-behind/" + sys)
			x, ok2 := b.median(a.key() + "-maxbehind/" + sys)
			if ok1 && ok2 {
				cols = append(cols, fmt.Sprintf("%s %.2f / %.2f s", b.label(sys), m, x))
			}
		}
		parts = append(parts, fmt.Sprintf("%d panes at %g×: %s", a.panes, a.speed, strings.Join(cols, ", ")))
	}
	fmt.Fprintf(w, "%s.\n", strings.Join(parts, "; "))
}

// colKeys are the available tmux columns' sample keys.
func (b *bench) colKeys() []string {
	var k []string
	for _, c := range b.tmuxCol {
		if c.bin != nil {
			k = append(k, c.key)
		}
	}
	return k
}

// label is a system's name as the tables show it.
func (b *bench) label(key string) string {
	for _, c := range b.tmuxCol {
		if c.key == key {
			return c.label
		}
	}
	return key
}

// sideBySide renders the tmux cells of a row without a goal: each tmux's
// median of key+"/"+tmuxkey, shown by f, and the ratio (— when tmux's
// figure is 0); n/a for a missing column.
func (b *bench) sideBySide(key string, s float64, f func(float64) string) string {
	var cells []string
	for _, c := range b.tmuxCol {
		t, ok := b.median(key + "/" + c.key)
		switch {
		case !ok:
			cells = append(cells, "n/a", "")
		case t == 0:
			cells = append(cells, f(t), "—")
		default:
			cells = append(cells, f(t), fmt.Sprintf("%.2f", s/t))
		}
	}
	return " " + strings.Join(cells, " | ") + " |"
}

// attachTable renders agents-keys and agents-attached.
func (b *bench) attachTable(w *strings.Builder) {
	_, keys := b.median("keys-p99/signaltty")
	_, att := b.median("att-cpu/signaltty")
	if !keys && !att {
		return
	}
	k, a := b.keys, b.attached
	msf := func(v float64) string { return fmt.Sprintf("%.2f ms", v*1e3) }
	head := func(what string) {
		fmt.Fprintf(w, "| %s | signaltty |%s goal |\n|---|---|%s---|\n", what, b.tmuxHeader(), strings.Repeat("---|---|", len(b.tmuxCol)))
	}
	fmt.Fprintf(w, "\n## Attached clients under agent load\n\n")
	fmt.Fprintf(w, "Panes of %v replay the recorded agent streams at the recorded pace (1×), as in the agent workloads above, while real clients are attached, each on a PTY of %v that this program opened and reads all along (the bytes a client writes to its terminal); a fresh server each sample. The clients: `signaltty attach --pane P` (the CLI built from the tree) and `tmux -u attach -t S`, both with TERM=xterm-256color. tmux's status line is off (as in every tmux server here), so neither client draws a status row and the PTY is exactly the pane's size. Command: `go run ./tests/bench/compare --only 'agents-keys|agents-attached'` (part of `tests/bench/compare.sh`; -keypanes, -keys, -keypace, -attachpanes, -attachfor).\n\n", agentSize, agentSize)
	if keys {
		fmt.Fprintf(w, "**Keystroke latency.** While %d panes replay, one more pane runs `sh -c '%s'`: with the terminal's echo off, each character comes back written by the program (`cat`), as an editor's or an agent's prompt echoes it. It is attached by a client (tmux: its own session). %d keys are written into the client's PTY one at a time, %v apart, starting %v after every replayer's paced start; each is a different character (U+0100 onwards, Latin letters with diacritics: two UTF-8 bytes that no control sequence contains, so its echo is found by searching the client's output). A key's latency is from its write into the PTY until the read of the PTY that returns its character; a key whose character does not come back within %v counts as %[6]v. Goal: p99 ≤ %v and ≤ tmux's p99.\n\n",
			k.panes, keysProgram, k.keys, k.pace, agentSettle, keysWait, goalKeysP99)
		head(fmt.Sprintf("keystroke to echo, %d agent panes at 1×", k.panes))
		for _, p := range []string{"p50", "p99", "max"} {
			s, _ := b.median("keys-" + p + "/signaltty")
			cells := b.sideBySide("keys-"+p, s, msf)
			if p != "p99" {
				fmt.Fprintf(w, "| %s | %s |%s |\n", p, msf(s), cells)
				continue
			}
			marks := strings.TrimSuffix(b.vsTmux("keys-p99", s, msf, goalKeysVsTmux), " |")
			marks = strings.TrimSpace(marks[strings.LastIndex(marks, "|")+1:])
			fmt.Fprintf(w, "| %s | %s |%s ≤ %v: %s; ≤ tmux: %s |\n", p, msf(s), cells, goalKeysP99, met(s <= goalKeysP99.Seconds()), marks)
		}
		var lost []string
		for _, sys := range append([]string{"signaltty"}, b.colKeys()...) {
			if v, ok := b.median("keys-lost/" + sys); ok {
				lost = append(lost, fmt.Sprintf("%s %.0f", b.label(sys), v))
			}
		}
		fmt.Fprintf(w, "\nKeys not echoed within %v: %s.\n\n", keysWait, strings.Join(lost, ", "))
	}
	if att {
		fmt.Fprintf(w, "**Attached clients.** %d panes replay for a window of %v (opening %v after every replayer's paced start), each shown by a client of its own: signaltty one `signaltty attach --pane P` a pane; tmux one session a pane (`new-session -s aN`) and one `tmux attach -t aN` a session, so that every client shows its own pane. Client output: the bytes a client wrote to its terminal over the window, a second (the median client and the busiest). Server CPU: utime+stime of the server process (`/proc/PID/stat`) over the window; clients' CPU: the same for all clients together. signaltty's frames are rendered by the daemon (docs/attach.md: only what changed since the client's last frame), so its client only decodes and writes them; tmux's client writes what its server drew for it. Lag: each replayer stops at the end of its run; its last write is taken as the moment its statistics file, which it writes right after, is renamed into place (seen through inotify; the file's modification time is too coarse). Once every client has been quiet for %v, each pane's screen is captured (`Mux.CaptureRows`; `tmux capture-pane -p`) and its client's output is fed read by read into a terminal emulator of %v (charmbracelet/x/vt): the lag is from the pane's last write until the read after which the client's screen showed the captured text on every row and kept showing it (0 when it already did); the proxy beside it is until the client's last output byte. Goal: no client lags behind its pane's screen by more than one frame. signaltty sends a client at most one frame every %v (docs/attach.md, \"Slow clients\"), so its frame is %[6]v; tmux has no frame clock (each read of a pane is drawn to its clients at once), its lag is shown against the same %[6]v.\n\n",
			a.panes, a.window, agentSettle, quietFor, agentSize, attachFrame)
		head(fmt.Sprintf("%d panes at 1× for %v, a client each", a.panes, a.window))
		kbs := func(v float64) string { return fmt.Sprintf("%.1f KB/s", v/1e3) }
		cpu := func(v float64) string { return fmt.Sprintf("%.2f s", v) }
		row := func(what, key string, f func(float64) string, goal string) {
			s, ok := b.median(key + "/signaltty")
			if !ok {
				fmt.Fprintf(w, "| %s | n/a |%s %s |\n", what, strings.Repeat(" n/a | |", len(b.tmuxCol)), goal)
				return
			}
			fmt.Fprintf(w, "| %s | %s |%s %s |\n", what, f(s), b.sideBySide(key, s, f), goal)
		}
		row("client output, median client", "att-bps-med", kbs, "")
		row("client output, busiest client", "att-bps-max", kbs, "")
		row("server CPU over the window", "att-cpu", cpu, "")
		row("clients' CPU over the window, all together", "att-ccpu", cpu, "")
		row("lag until the client's screen shows the pane's, median client", "att-lag-med", msf, "")
		lagGoal := "n/a (no screen matched)"
		if v, ok := b.median("att-lag-max/signaltty"); ok {
			lagGoal = fmt.Sprintf("≤ %v (one frame): %s", attachFrame, met(v <= attachFrame.Seconds()))
		}
		row("lag until the client's screen shows the pane's, worst client", "att-lag-max", msf, lagGoal)
		row("lag until the client's last output byte, median client", "att-quiet-med", msf, "")
		row("lag until the client's last output byte, worst client", "att-quiet-max", msf, "")
		var differ []string
		for _, sys := range append([]string{"signaltty"}, b.colKeys()...) {
			if v, ok := b.median("att-differ/" + sys); ok {
				differ = append(differ, fmt.Sprintf("%s %.0f", b.label(sys), v))
			}
		}
		var silent []string
		for _, sys := range append([]string{"signaltty"}, b.colKeys()...) {
			if v, ok := b.median("att-silent/" + sys); ok {
				silent = append(silent, fmt.Sprintf("%s %.0f", b.label(sys), v))
			}
		}
		fmt.Fprintf(w, "\nThe lags are over the panes whose replayer wrote during the window; left out, a stream silent for the whole window (opencode's start-up is 91 s): %s of %d panes. Left out too, clients whose screen never showed their pane's (the first difference is on stderr): %s.\n", strings.Join(silent, ", "), a.panes, strings.Join(differ, ", "))
	}
}

package service

import (
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/signaltty/signaltty/docs/docstest"
	"github.com/signaltty/signaltty/pty"
	"github.com/signaltty/signaltty/service/request"
	"github.com/signaltty/signaltty/service/runs"
)

// docs/run-wait.md and the comments of the Run interface's IDL state the
// bounds, limits and defaults of a run; these tests hold them to the values
// the code uses, and the doc's "Order of checks" to the order Run.Start
// follows.

const (
	runWaitDoc = "../docs/run-wait.md"
	runIDL     = "../varlink/devsignalttyrun/dev.signaltty.Run.varlink"
)

// boundOf is the largest n in [lo, limit] with ok(n), given ok(lo), found
// by bisection; ok must hold on a prefix of the range.
func boundOf(lo, limit int64, ok func(int64) bool) int64 {
	for lo < limit {
		mid := lo + (limit-lo+1)/2
		if ok(mid) {
			lo = mid
		} else {
			limit = mid - 1
		}
	}
	return lo
}

// rangeOf is the range [lo, hi] over which ok holds, searching from
// around, within [-1<<40, 1<<40].
func rangeOf(around int64, ok func(int64) bool) (lo, hi int64) {
	hi = boundOf(around, 1<<40, ok)
	lo = -boundOf(-around, 1<<40, func(n int64) bool { return ok(-n) })
	return lo, hi
}

func refOf[T any](v T) *T { return &v }

// runNumber is one number the contract states, the value the code gives
// it, and how the doc and the IDL state it (a pattern per number, in
// order; "" where one of them does not).
type runNumber struct {
	what     string
	code     []int64
	doc, idl string
}

func runNumbers() []runNumber {
	keyOK := func(n int64) bool { return request.CheckRunKey(strings.Repeat("a", int(n))) == nil }
	configRange := func(set func(n int64) *Error) []int64 {
		lo, hi := rangeOf(1, func(n int64) bool { return set(n) == nil })
		return []int64{lo, hi}
	}
	cfgMaxActive := configRange(func(n int64) *Error { return runs.CheckConfig(refOf(int(n)), nil, nil, nil) })
	cfgRetainCount := configRange(func(n int64) *Error { return runs.CheckConfig(nil, refOf(int(n)), nil, nil) })
	cfgRetainMs := configRange(func(n int64) *Error { return runs.CheckConfig(nil, nil, refOf(n), nil) })
	cfgRetainBytes := configRange(func(n int64) *Error { return runs.CheckConfig(nil, nil, nil, refOf(n)) })
	ms := func(d interface{ Milliseconds() int64 }) int64 { return d.Milliseconds() }
	return []runNumber{
		{"key length", []int64{boundOf(1, 1<<20, keyOK)},
			`'key': 1 to (\d+) bytes of`, `key: 1–(\d+) bytes of`},
		{"shell size", []int64{request.MaxShell}, `'shell': 1 to (\d+) bytes without NUL`, ""},
		{"cols and rows", []int64{MinSize, MaxSize, DefaultCols, DefaultRows},
			`'cols', 'rows': (\d+)\.\.(\d+) each, default (\d+)×(\d+)`,
			`cols, rows: (\d+)\.\.(\d+) \(default (\d+)×(\d+)\)`},
		{"deadline_ms", []int64{1, request.MaxDeadlineMs, ms(pty.DefaultGrace)},
			`'deadline_ms': (\d+)\.\.(\d+)\. That long after the start the run is terminated with cause 'deadline' \(SIGHUP, (\d+) ms grace`,
			`deadline_ms: (\d+)\.\.(\d+); the run is then terminated \(SIGHUP, (\d+) ms grace`},
		{"output_rows", []int64{0, request.MaxOutputRows, request.DefaultOutputRows},
			`'output_rows' \((\d+)\.\.(\d+), default (\d+)\)`, `output_rows \((\d+)\.\.(\d+), default (\d+)\)`},
		{"output_bytes", []int64{0, request.MaxOutputBytes, request.DefaultOutputBytes},
			`'output_bytes' \((\d+)\.\.(\d+), default (\d+)\)`, `output_bytes \((\d+)\.\.(\d+), default (\d+)\)`},
		{"env sizes", []int64{maxEnvVars, maxEnvBytes >> 10}, `At most (\d+) of each; 'env' at most (\d+) KiB`, ""},
		{"run id lease", []int64{runs.IDLeaseSize}, `reserves run ids ahead, ([\d,]+) at a time`, ""},
		{"wait timeout_ms", []int64{0, request.MaxWaitMs},
			`'timeout_ms' \((\d+)\.\.(\d+)\): when it passes first`, `timeout_ms \((\d+)\.\.(\d+); 0 checks without waiting`},
		{"cancel grace_ms", []int64{ms(pty.DefaultGrace), ms(MaxGrace)},
			`'grace_ms' default (\d+), at most (\d+)\)`, ""},
		{"cancel grace_ms range", []int64{ms(pty.DefaultGrace), 0, ms(MaxGrace)},
			"", `SIGKILL after grace_ms \(default (\d+), (\d+)\.\.(\d+)\)`},
		{"kill wait", []int64{ms(pty.DefaultKillWait)}, `If the leader is not reaped (\d+) ms after SIGKILL`, ""},
		{"record lines", []int64{request.MaxOutputBytes}, `A record.s lines are at most (\d+) bytes`, ""},
		{"argv0", []int64{int64(len(argv0([]string{strings.Repeat("a", 1<<16)})))}, `'argv0' is the last path element of 'argv\[0\]', cut to (\d+) bytes`, ""},
		{"max_active", append(cfgMaxActive, int64(DefaultRunConfig.MaxActive)), `\| 'max_active' \| (\d+)\.\.(\d+) \| (\d+) \|`, ""},
		{"retain_count", append(cfgRetainCount, int64(DefaultRunConfig.RetainCount)), `\| 'retain_count' \| (\d+)\.\.(\d+) \| (\d+) \|`, ""},
		{"retain_ms", append(cfgRetainMs, DefaultRunConfig.RetainMs), `\| 'retain_ms' \| (\d+)\.\.(\d+) \| (\d+) \|`, ""},
		{"retain_bytes", append(cfgRetainBytes, DefaultRunConfig.RetainBytes), `\| 'retain_bytes' \| (\d+)\.\.(\d+) \| (\d+) \|`, ""},
	}
}

// TestRunWaitNumbersAreTheCode compares every bound, limit and default
// docs/run-wait.md and the Run IDL state with the value the code uses.
func TestRunWaitNumbersAreTheCode(t *testing.T) {
	doc, idl := docstest.Prose(t, runWaitDoc), docstest.Prose(t, runIDL)
	for _, n := range runNumbers() {
		for _, src := range []struct{ where, text, pattern string }{
			{"docs/run-wait.md", doc, n.doc}, {"dev.signaltty.Run.varlink", idl, n.idl},
		} {
			if src.pattern == "" {
				continue
			}
			if got := docstest.Stated(t, src.where, src.text, src.pattern); got != nil && !slices.Equal(got, n.code) {
				t.Errorf("%s: %s is %v, the code has %v", src.where, n.what, got, n.code)
			}
		}
	}
}

// TestRunListLimitIsTheDoc checks Run.List's limit (1..1024, default 256)
// against Runs.List, on a service with more runs than the default.
func TestRunListLimitIsTheDoc(t *testing.T) {
	doc, idl := docstest.Prose(t, runWaitDoc), docstest.Prose(t, runIDL)
	stated := docstest.Stated(t, "docs/run-wait.md", doc, `at most 'limit' \((\d+)\.\.(\d+), default (\d+)\)`)
	if idlStated := docstest.Stated(t, "dev.signaltty.Run.varlink", idl, `at most limit \((\d+)\.\.(\d+), default (\d+)\)`); !slices.Equal(idlStated, stated) {
		t.Errorf("the IDL states List's limit as %v, the doc as %v", idlStated, stated)
	}
	if len(stated) != 3 {
		return
	}
	s := newTestService(t)
	ok := func(n int64) bool { _, _, err := s.Runs().List("", "", "", int(n)); return err == nil }
	if lo, hi := rangeOf(1, ok); lo != 0 || hi != stated[1] || !ok(stated[0]) {
		// 0 is "absent": the default, not a value out of range.
		t.Errorf("Runs.List takes limits %d..%d (0 meaning the default), the doc states %d..%d", max(lo, 1), hi, stated[0], stated[1])
	}
	for range stated[2] + 1 {
		rec := runs.NewRecord("k", "", nil, false, 0, 0, 0)
		if err := s.runs.TakeID(&s.mu, rec); err != nil {
			t.Fatal(err)
		}
		s.mu.Lock()
		s.runs.Commit(rec, "pane", "tab", "ws", 1, nil)
		s.mu.Unlock()
	}
	listed, next, err := s.Runs().List("", "", "", 0)
	if err != nil || int64(len(listed)) != stated[2] || next == "" {
		t.Errorf("Runs.List without a limit: %d runs, next %q, %v; the doc states the default %d", len(listed), next, err, stated[2])
	}
}

// runStartOrder is the order in which Run.Start checks a request, read
// from the code: each code as it can first fail the request, in order.
// Run.Start's access checks and the grants' delegation come before all of
// these (docs/security.md, "Checks").
var runStartOrder = []string{
	// checkRunFields (validate_run.go), before any lookup:
	"invalid_params.target",  // 1. exactly one of workspace and pane
	"conflict.source",        // 2. CheckSource
	"unavailable.shutdown",   // 3. s.stopping
	"invalid_params.target",  // 4. axis, name
	"invalid_params.command", //    argv xor shell, shell size, NUL
	"invalid_params.key",
	"invalid_params.argv", // checkArgv
	"invalid_params.name", // checkName
	"invalid_params.size", // with pane, or out of range (checkSizeOpt)
	"invalid_params.deadline_ms",
	"invalid_params.output_rows",
	"invalid_params.output_bytes",
	"invalid_params.cwd", // checkCwdSyntax
	"invalid_params.env", // checkRequestEnv
	"invalid_params.env_unset",
	// Runs.Start (run.go): 5. the key
	"conflict.run_key",
	// Runs.start: 6. the start barrier
	"cancelled",
	// 7. Runs.start: runs.Table.TakeID, then reserveNewLocked (start.go), runs.Table.Admit
	"unavailable.run_ids",     // runs.Table.TakeID
	"unavailable.shutdown",    // reserveNewLocked: stopping since step 3
	"unavailable.panes",       // limitState.checkPaneLimitLocked
	"not_found.workspace",     // spawnTargetLocked: a workspace target
	"conflict.ref_ambiguous",  //   lookupWorkspace
	"conflict.name_ambiguous", //   workspaceSet.byName
	"conflict.removing",
	"not_found.pane", //   a pane target
	"conflict.pane_exited",
	"conflict.pane_terminating",
	"conflict.pane_starting",
	"conflict.removing",
	"invalid_params.size",   // splitSizes: too small to split
	"unavailable.run_limit", // runs.Table.Admit
	// launch, then commit (start.go) reports, in this order:
	"conflict.removing",    // a removal took the pane while it started
	"unavailable.cgroup",   // launch: cgroupPolicy.create
	"unavailable.spawn",    // launch: startProcess, spawnError
	"invalid_params.cwd",   //   not an existing directory
	"unavailable.shutdown", // the daemon began to stop
	// (then place resolves the target again: the codes above)
}

// TestRunWaitOrderOfChecksIsTheCode reads the codes the numbered list of
// docs/run-wait.md, "Order of checks" names, in order, and compares them
// with runStartOrder.
func TestRunWaitOrderOfChecksIsTheCode(t *testing.T) {
	b, err := os.ReadFile(runWaitDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Order of checks\n")
	if !ok {
		t.Fatal(`docs/run-wait.md has no heading "Order of checks"`)
	}
	section, _, _ = strings.Cut(section, "\n#")
	// The numbered list: from its first item to the first line after it
	// that is neither an item nor indented.
	var list []string
	in := false
	for _, l := range strings.Split(section, "\n") {
		item := regexp.MustCompile(`^\d+\. `).MatchString(l)
		if item {
			in = true
		} else if in && !strings.HasPrefix(l, "   ") {
			break
		}
		if in {
			list = append(list, l)
		}
	}
	var got []string
	for _, m := range regexp.MustCompile("`(cancelled|[a-z_]+\\.[a-z_]+)`").FindAllStringSubmatch(strings.Join(list, "\n"), -1) {
		got = append(got, m[1])
	}
	if !slices.Equal(got, runStartOrder) {
		t.Errorf("docs/run-wait.md, \"Order of checks\" names\n\t%s\nthe code checks\n\t%s", strings.Join(got, " "), strings.Join(runStartOrder, " "))
	}
}

// TestRunStatusesAreTheDoc completes run records the ways the table of
// docs/run-wait.md, "Outcomes and status" and the IDL's Record comment
// list, and compares the statuses they state with runs.Table.Complete's.
func TestRunStatusesAreTheDoc(t *testing.T) {
	doc, idl := docstest.Prose(t, runWaitDoc), docstest.Prose(t, runIDL)
	signaled := docstest.Stated(t, "docs/run-wait.md", doc, `\| 'signal' \(e\.g\. 'SIGSEGV'\) \| (\d+) \+ the signal.s number, at most (\d+) \|`)
	terminated := docstest.Stated(t, "docs/run-wait.md", doc, `\| (\d+) when the cause is 'deadline', (\d+) otherwise \|`)
	idlStated := docstest.Stated(t, "dev.signaltty.Run.varlink", idl, `status 0 succeeded; exit_code when failed; (\d+)\+signal \(≤(\d+)\) when signaled; (\d+) terminated by its deadline; (\d+) otherwise terminated`)
	if want := append(slices.Clone(signaled), terminated...); !slices.Equal(idlStated, want) {
		t.Errorf("the IDL states statuses %v, the doc %v", idlStated, want)
	}
	if len(signaled) != 2 || len(terminated) != 2 {
		return
	}
	tbl := runs.NewTable("src", slog.New(slog.DiscardHandler), func() {})
	status := func(state, cause string, es pty.ExitStatus) int {
		rec := runs.NewRecord("k", "", nil, false, 0, 0, 0)
		if err := tbl.TakeID(&sync.Mutex{}, rec); err != nil {
			t.Fatal(err)
		}
		tbl.Commit(rec, "pane", "tab", "ws", 1, nil)
		if state == RunStateTerminating {
			tbl.Terminating(rec, cause)
		}
		tbl.Complete(rec, es, nil)
		return *rec.Snapshot("", false).Status
	}
	code := func(n int) pty.ExitStatus { return pty.ExitStatus{Code: &n} }
	for _, c := range []struct {
		what         string
		state, cause string
		es           pty.ExitStatus
		want         int64
	}{
		{"exit 0", RunStateRunning, "", code(0), 0},
		{"exit 3", RunStateRunning, "", code(3), 3},
		{"SIGSEGV", RunStateRunning, "", pty.ExitStatus{Signal: "SIGSEGV"}, signaled[0] + 11},
		{"SIGKILL", RunStateRunning, "", pty.ExitStatus{Signal: "SIGKILL"}, min(signaled[0]+9, signaled[1])},
		{"deadline", RunStateTerminating, CauseDeadline, code(0), terminated[0]},
		{"cancel", RunStateTerminating, CauseCancel, pty.ExitStatus{Signal: "SIGHUP"}, terminated[1]},
	} {
		if got := status(c.state, c.cause, c.es); int64(got) != c.want {
			t.Errorf("%s: status %d, the doc states %d", c.what, got, c.want)
		}
	}
}

package tests

// Helpers of the run/wait conformance suite (run_rows*_test.go): the same
// operation through the CLI (`signaltty --json run …`) and through
// `varlinkctl call`, record comparison, side-effect checks, marker files,
// test-seam files and background clients.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
	vl "github.com/varlink/go/varlink"
)

// runRepeat is how often the repeatable rows (15, 23) run their scenario:
// $SIGNALTTY_RUN_REPEAT, default 1.
func runRepeat(t *testing.T) int {
	t.Helper()
	s := os.Getenv("SIGNALTTY_RUN_REPEAT")
	if s == "" {
		return 1
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("SIGNALTTY_RUN_REPEAT=%q is not a positive integer", s)
	}
	return n
}

// exitOf is the CLI exit status of an error class (the specs README).
func exitOf(code string) int {
	class, _, _ := strings.Cut(code, ".")
	switch class {
	case "invalid_params":
		return 2
	case "not_found":
		return 3
	case "denied":
		return 4
	case "conflict":
		return 5
	case "unavailable":
		return 6
	case "timeout":
		return 7
	case "cancelled":
		return 8
	case "unsupported":
		return 10
	}
	return 1
}

// errorName is the varlink error a code's class is sent as.
func errorName(iface, code string) string {
	class, _, _ := strings.Cut(code, ".")
	names := map[string]string{"invalid_params": "InvalidParams", "not_found": "NotFound", "denied": "Denied",
		"conflict": "Conflict", "unavailable": "Unavailable", "timeout": "Timeout", "cancelled": "Cancelled",
		"unsupported": "Unsupported"}
	n, ok := names[class]
	if !ok {
		n = "Internal"
	}
	return iface + "." + n
}

// --- requests --------------------------------------------------------------

// runSpec is one Run.Start request.
type runSpec struct {
	Key         string
	Workspace   string
	Pane, Axis  string
	Argv        []string
	Shell       *string
	Name        *string
	Cols, Rows  *int
	DeadlineMs  *int
	OutputRows  *int
	OutputBytes *int
	Source      string
}

func ptr[T any](v T) *T { return &v }

// shell returns a spec running text with /bin/sh -c in a new tab of ws.
func shellSpec(key, ws, text string) runSpec {
	return runSpec{Key: key, Workspace: ws, Shell: ptr(text)}
}

func argvSpec(key, ws string, argv ...string) runSpec {
	return runSpec{Key: key, Workspace: ws, Argv: argv}
}

func (s runSpec) withKey(k string) runSpec { s.Key = k; return s }

// params is the spec as Run.Start parameters.
func (s runSpec) params() map[string]any {
	p := map[string]any{"key": s.Key}
	set := func(k, v string) {
		if v != "" {
			p[k] = v
		}
	}
	set("workspace", s.Workspace)
	set("pane", s.Pane)
	set("axis", s.Axis)
	set("source", s.Source)
	if s.Argv != nil {
		p["argv"] = s.Argv
	}
	for k, v := range map[string]*string{"shell": s.Shell, "name": s.Name} {
		if v != nil {
			p[k] = *v
		}
	}
	for k, v := range map[string]*int{"cols": s.Cols, "rows": s.Rows, "deadline_ms": s.DeadlineMs,
		"output_rows": s.OutputRows, "output_bytes": s.OutputBytes} {
		if v != nil {
			p[k] = *v
		}
	}
	return p
}

// cliArgs is the spec as `signaltty run` arguments.
func (s runSpec) cliArgs() []string {
	a := []string{"run", "--key", s.Key}
	set := func(flag, v string) {
		if v != "" {
			a = append(a, flag, v)
		}
	}
	set("--workspace", s.Workspace)
	set("--pane", s.Pane)
	set("--axis", s.Axis)
	set("--source", s.Source)
	if s.Shell != nil {
		a = append(a, "--shell", *s.Shell)
	}
	if s.Name != nil {
		a = append(a, "--name", *s.Name)
	}
	for _, f := range []struct {
		flag string
		v    *int
	}{{"--cols", s.Cols}, {"--rows", s.Rows}, {"--deadline-ms", s.DeadlineMs}, {"--output-rows", s.OutputRows}, {"--output-bytes", s.OutputBytes}} {
		if f.v != nil {
			a = append(a, f.flag, strconv.Itoa(*f.v))
		}
	}
	if s.Argv != nil {
		b, _ := json.Marshal(s.Argv)
		a = append(a, "--argv", string(b))
	}
	return a
}

// --- replies -----------------------------------------------------------------

// reply is the outcome of one call through one transport.
type reply struct {
	via  string
	exit int                 // the process's exit status
	obj  map[string]any      // the reply object on success
	err  *harness.ErrorReply // the error on failure
	name string              // varlinkctl: the qualified varlink error name
	raw  string
	dur  time.Duration
}

func (r reply) String() string {
	return fmt.Sprintf("%s (exit %d, %v): %s", r.via, r.exit, r.dur.Round(time.Millisecond), clipStr(r.raw))
}

func clipStr(s string) string {
	if len(s) > 3000 {
		return s[:3000] + fmt.Sprintf("…(%d bytes)", len(s))
	}
	return s
}

// record is reply.obj["record"] (Wait, Get, Cancel).
func (r reply) record(t *testing.T) map[string]any {
	t.Helper()
	if r.err != nil || r.obj == nil {
		t.Fatalf("want a record, got %s", r)
	}
	rec, ok := r.obj["record"].(map[string]any)
	if !ok {
		t.Fatalf("reply has no record object: %s", r)
	}
	return rec
}

// transport makes calls through the CLI or varlinkctl.
type transport struct {
	name string // "cli" or "varlinkctl"
	d    *harness.Daemon
}

func cliOf(d *harness.Daemon) transport { return transport{"cli", d} }
func vlOf(d *harness.Daemon) transport  { return transport{"varlinkctl", d} }

// both returns the two transports every row goes through.
func both(d *harness.Daemon) []transport { return []transport{cliOf(d), vlOf(d)} }

// short is a key suffix per transport.
func (tr transport) short() string {
	if tr.name == "cli" {
		return "c"
	}
	return "v"
}

var jsonLine = regexp.MustCompile(`^\{.*\}\n$`)

// parseCLI decodes `signaltty --json …` output.
func parseCLI(t *testing.T, r harness.Result) reply {
	t.Helper()
	out := reply{via: "cli", exit: r.Code, raw: r.Stdout, dur: r.Duration}
	if !jsonLine.MatchString(r.Stdout) || strings.Count(r.Stdout, "\n") != 1 {
		t.Fatalf("--json must print exactly one line of JSON:\n%s", r)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &m); err != nil {
		t.Fatalf("cannot decode CLI output: %v\n%s", err, r)
	}
	if e, ok := m["error"]; ok && len(m) == 1 {
		var er struct {
			Error *harness.ErrorReply `json:"error"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &er); err != nil || er.Error == nil {
			t.Fatalf("undecodable error %v:\n%s", e, r)
		}
		out.err = er.Error
		if r.Code != exitOf(er.Error.Code) {
			t.Errorf("CLI exit status %d for %s, want %d (its class):\n%s", r.Code, er.Error.Code, exitOf(er.Error.Code), r)
		}
		if er.Error.Message == "" || er.Error.Data == nil {
			t.Errorf("error without message or data object:\n%s", r)
		}
		return out
	}
	out.obj = m
	return out
}

var failedName = regexp.MustCompile(`failed: (\S+)`)

// parseVL decodes `varlinkctl call --json=short …` output.
func parseVL(t *testing.T, r harness.Result) reply {
	t.Helper()
	out := reply{via: "varlinkctl", exit: r.Code, raw: r.Stdout, dur: r.Duration}
	var m map[string]any
	text := strings.TrimSpace(r.Stdout)
	if text == "" && r.Code == 0 {
		text = "{}" // a reply without parameters
	}
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatalf("cannot decode varlinkctl output: %v\n%s", err, r)
	}
	if r.Code == 0 {
		out.obj = m
		return out
	}
	var er harness.ErrorReply
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.Stdout)), &er); err != nil || er.Code == "" {
		t.Fatalf("varlinkctl failed without an error object:\n%s", r)
	}
	out.err = &er
	if m := failedName.FindStringSubmatch(r.Stderr); m != nil {
		out.name = m[1]
	}
	return out
}

// call makes one call: method with params through varlinkctl, or cliArgs
// through the CLI.
func (tr transport) call(t *testing.T, method string, params map[string]any, cliArgs ...string) reply {
	t.Helper()
	if tr.name == "cli" {
		return parseCLI(t, tr.d.CLI(t, append([]string{"--json"}, cliArgs...)...))
	}
	b, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	rep := parseVL(t, tr.d.Varlinkctl(t, "call", "--json=short", method, string(b)))
	if rep.err != nil {
		iface := method[:strings.LastIndexByte(method, '.')]
		if want := errorName(iface, rep.err.Code); rep.name != want {
			t.Errorf("varlinkctl: error %q sent as %q, want %q", rep.err.Code, rep.name, want)
		}
	}
	return rep
}

func (tr transport) start(t *testing.T, s runSpec) reply {
	t.Helper()
	return tr.call(t, "dev.signaltty.Run.Start", s.params(), s.cliArgs()...)
}

// mustStart starts s and checks the start result's shape.
func (tr transport) mustStart(t *testing.T, s runSpec) startResult {
	t.Helper()
	r := tr.start(t, s)
	if r.err != nil || r.exit != 0 {
		t.Fatalf("start %s via %s failed: %s", s.Key, tr.name, r)
	}
	return checkStart(t, r, s.Key)
}

type startResult struct {
	Run, Source, Key, Pane, Tab, Workspace, Principal string
	Pid                                               int
	Reused                                            bool
	obj                                               map[string]any
}

// checkStart checks a start result is the closed object of the IDL.
func checkStart(t *testing.T, r reply, key string) startResult {
	t.Helper()
	want := []string{"key", "pane", "pid", "principal", "reused", "run", "source", "tab", "workspace"}
	if got := sortedKeys(r.obj); !reflect.DeepEqual(got, want) {
		t.Errorf("start result fields %v, want %v: %s", got, want, r)
	}
	b, _ := json.Marshal(r.obj)
	var s startResult
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("start result: %v", err)
	}
	s.obj = r.obj
	if !regexp.MustCompile(`^r[0-9]+$`).MatchString(s.Run) || s.Key != key || s.Pid <= 0 || s.Pane == "" ||
		!strings.HasPrefix(s.Source, "signaltty/") || s.Principal == "" {
		t.Errorf("start result %+v: want run rN, key %q, a pid, a pane and source signaltty/…", s, key)
	}
	return s
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// waitArgs builds Run.Wait parameters and CLI arguments.
func (tr transport) wait(t *testing.T, run string, timeoutMs *int, output *bool) reply {
	t.Helper()
	p := map[string]any{"run": run}
	a := []string{"run", "wait", "--run", run}
	if timeoutMs != nil {
		p["timeout_ms"] = *timeoutMs
		a = append(a, "--timeout-ms", strconv.Itoa(*timeoutMs))
	}
	if output != nil {
		p["output"] = *output
		a = append(a, "--output="+strconv.FormatBool(*output))
	}
	r := tr.call(t, "dev.signaltty.Run.Wait", p, a...)
	if tr.name == "cli" && r.err == nil {
		rec := r.record(t)
		st, ok := rec["status"].(float64)
		if !ok {
			t.Errorf("run wait result without status: %s", r)
		} else if r.exit != int(st) {
			t.Errorf("run wait exited %d, want the record's status %v: %s", r.exit, st, r)
		}
	}
	return r
}

func (tr transport) get(t *testing.T, run string, output *bool) reply {
	t.Helper()
	p := map[string]any{"run": run}
	a := []string{"run", "get", "--run", run}
	if output != nil {
		p["output"] = *output
		a = append(a, "--output="+strconv.FormatBool(*output))
	}
	return tr.call(t, "dev.signaltty.Run.Get", p, a...)
}

func (tr transport) cancel(t *testing.T, run, signal string, graceMs *int) reply {
	t.Helper()
	p := map[string]any{"run": run}
	a := []string{"run", "cancel", "--run", run}
	if signal != "" {
		p["signal"] = signal
		a = append(a, "--signal", signal)
	}
	if graceMs != nil {
		p["grace_ms"] = *graceMs
		a = append(a, "--grace-ms", strconv.Itoa(*graceMs))
	}
	return tr.call(t, "dev.signaltty.Run.Cancel", p, a...)
}

// list calls Run.List with optional pane, key, after and limit.
func (tr transport) list(t *testing.T, pane, key, after string, limit int) reply {
	t.Helper()
	p := map[string]any{}
	a := []string{"run", "list"}
	for _, f := range []struct{ k, v string }{{"pane", pane}, {"key", key}, {"after", after}} {
		if f.v != "" {
			p[f.k] = f.v
			a = append(a, "--"+f.k, f.v)
		}
	}
	if limit != 0 {
		p["limit"] = limit
		a = append(a, "--limit", strconv.Itoa(limit))
	}
	return tr.call(t, "dev.signaltty.Run.List", p, a...)
}

// setConfig calls Server.SetConfig with run_* fields ("max_active": 4 …).
func (tr transport) setConfig(t *testing.T, fields map[string]int) map[string]any {
	t.Helper()
	p := map[string]any{}
	a := []string{"config", "set"}
	for k, v := range fields {
		p["run_"+k] = v
		a = append(a, "--run-"+strings.ReplaceAll(k, "_", "-"), strconv.Itoa(v))
	}
	r := tr.call(t, "dev.signaltty.Server.SetConfig", p, a...)
	if r.err != nil {
		t.Fatalf("SetConfig %v: %s", fields, r)
	}
	return r.obj
}

// mustWaitBoth waits for run through the CLI and through varlinkctl, requires
// both to return the identical record (the CLI exiting with its status) and
// returns it.
func mustWaitBoth(t *testing.T, d *harness.Daemon, run string) map[string]any {
	t.Helper()
	var recs []map[string]any
	for _, tr := range both(d) {
		r := tr.wait(t, run, nil, nil)
		if r.err != nil {
			t.Fatalf("wait %s via %s: %s", run, tr.name, r)
		}
		recs = append(recs, r.record(t))
	}
	sameJSON(t, "the record of "+run+" via the CLI and via varlinkctl", recs[0], recs[1])
	checkRecord(t, recs[0])
	return recs[0]
}

// mustGetBoth reads run through both transports (output included) and
// requires identical records.
func mustGetBoth(t *testing.T, d *harness.Daemon, run string, output *bool) map[string]any {
	t.Helper()
	var recs []map[string]any
	for _, tr := range both(d) {
		r := tr.get(t, run, output)
		if r.err != nil || r.exit != 0 {
			t.Fatalf("get %s via %s: %s", run, tr.name, r)
		}
		recs = append(recs, r.record(t))
	}
	sameJSON(t, "the record of "+run+" via the CLI and via varlinkctl", recs[0], recs[1])
	checkRecord(t, recs[0])
	return recs[0]
}

// checkRecord checks the presence rules of a record (IDL, RFC §3).
func checkRecord(t *testing.T, rec map[string]any) {
	t.Helper()
	for _, f := range []string{"run", "source", "key", "pane", "tab", "workspace", "principal", "pid", "shell", "state", "started_at"} {
		if _, ok := rec[f]; !ok {
			t.Errorf("record lacks %s: %v", f, rec)
		}
	}
	completed := rec["state"] == "completed"
	for _, f := range []string{"outcome", "status", "completed_at", "duration_ms"} {
		if _, ok := rec[f]; ok != completed {
			t.Errorf("record in state %v: %s present=%v: %v", rec["state"], f, ok, rec)
		}
	}
	if _, ok := rec["output"]; ok && !completed {
		t.Errorf("output before completion: %v", rec)
	}
	_, hasCode := rec["exit_code"]
	_, hasSig := rec["signal"]
	if completed && hasCode == hasSig {
		t.Errorf("a completed record has exactly one of exit_code and signal: %v", rec)
	}
	ts := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	for _, f := range []string{"started_at", "completed_at"} {
		if v, ok := rec[f]; ok && !ts.MatchString(fmt.Sprint(v)) {
			t.Errorf("%s %v is not RFC 3339 UTC with milliseconds", f, v)
		}
	}
}

// volatile lists record fields that legitimately differ between two runs of
// the same command: ids, pid, key, times.
var volatile = []string{"run", "key", "pane", "tab", "workspace", "pid", "started_at", "completed_at", "duration_ms"}

// strip returns a copy of m without keys.
func strip(m map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

// sameJSON requires a and b to be equal as JSON values.
func sameJSON(t *testing.T, what string, a, b any) {
	t.Helper()
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Errorf("%s differ:\n  %s\n  %s", what, clipStr(string(ja)), clipStr(string(jb)))
	}
}

// sameRecords requires records of different runs of the same command to be
// equal except for their volatile fields.
func sameRecords(t *testing.T, what string, recs ...map[string]any) {
	t.Helper()
	for i := 1; i < len(recs); i++ {
		sameJSON(t, what, strip(recs[0], volatile...), strip(recs[i], volatile...))
	}
}

// sameErrors requires identical error objects (code, message, data).
func sameErrors(t *testing.T, what string, rs ...reply) {
	t.Helper()
	for _, r := range rs {
		if r.err == nil {
			t.Errorf("%s: want an error, got %s", what, r)
			return
		}
	}
	for i := 1; i < len(rs); i++ {
		sameJSON(t, what+" (error objects via "+rs[0].via+" and "+rs[i].via+")", rs[0].err, rs[i].err)
	}
}

// wantError requires r to be the error code with the class's CLI exit
// status and, when data is not nil, exactly that data.
func wantError(t *testing.T, r reply, code string, data map[string]any) {
	t.Helper()
	if r.err == nil {
		t.Errorf("want error %s, got %s", code, r)
		return
	}
	if r.err.Code != code {
		t.Errorf("error %q, want %q: %s", r.err.Code, code, r)
	}
	if r.via == "cli" && r.exit != exitOf(code) {
		t.Errorf("exit %d, want %d: %s", r.exit, exitOf(code), r)
	}
	if data != nil {
		sameJSON(t, "error data of "+code+" via "+r.via+" and the expected", r.err.Data, data)
	}
}

// field returns rec[k] as a string ("" when absent).
func field(rec map[string]any, k string) string {
	v, ok := rec[k]
	if !ok {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// num returns rec[k] as an int and whether it is present.
func num(rec map[string]any, k string) (int, bool) {
	v, ok := rec[k].(float64)
	return int(v), ok
}

// wantOutcome checks the result fields of a completed record: outcome,
// exit_code or signal (the other absent), cause ("" = absent) and status.
func wantOutcome(t *testing.T, rec map[string]any, outcome string, exitCode *int, signal, cause string, status int) {
	t.Helper()
	if rec["state"] != "completed" || rec["outcome"] != outcome {
		t.Errorf("state %v outcome %v, want completed %s: %v", rec["state"], rec["outcome"], outcome, rec)
	}
	code, hasCode := num(rec, "exit_code")
	switch {
	case exitCode == nil && hasCode:
		t.Errorf("exit_code %d present, want none: %v", code, rec)
	case exitCode != nil && (!hasCode || code != *exitCode):
		t.Errorf("exit_code %v, want %d: %v", rec["exit_code"], *exitCode, rec)
	}
	if field(rec, "signal") != signal {
		t.Errorf("signal %q, want %q: %v", field(rec, "signal"), signal, rec)
	}
	if field(rec, "cause") != cause {
		t.Errorf("cause %q, want %q: %v", field(rec, "cause"), cause, rec)
	}
	if st, ok := num(rec, "status"); !ok || st != status {
		t.Errorf("status %v, want %d: %v", rec["status"], status, rec)
	}
}

// outputOf returns the record's output object.
func outputOf(t *testing.T, rec map[string]any) map[string]any {
	t.Helper()
	o, ok := rec["output"].(map[string]any)
	if !ok {
		t.Fatalf("record without output: %v", rec)
	}
	return o
}

// linesOf returns output.lines.
func linesOf(t *testing.T, out map[string]any) []string {
	t.Helper()
	raw, ok := out["lines"].([]any)
	if !ok {
		t.Fatalf("output without lines: %v", out)
	}
	ls := make([]string, len(raw))
	for i, l := range raw {
		ls[i] = l.(string)
	}
	return ls
}

func trimmed(ls []string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = strings.TrimRight(l, " ")
	}
	return out
}

// --- daemon state and side effects -------------------------------------------

// newWorkspace creates a workspace (cwd: the daemon's home) and returns its id.
func newWorkspace(t *testing.T, d *harness.Daemon, name string) string {
	t.Helper()
	return d.CreateWorkspace(t, name).ID
}

// world is everything a failed request must leave unchanged.
type world struct {
	seq      int64
	entities string // Events.Subscribe snapshot: workspaces, tabs, panes, runs
	runs     string // Run.List
	children []int  // the daemon's child processes
	ptys     int    // PTY masters the daemon holds
	events   *harness.Stream
}

// snapshot returns Events.Subscribe's snapshot and seq (one call without more).
func snapshot(t *testing.T, d *harness.Daemon) (map[string]any, int64) {
	t.Helper()
	c := d.Dial(t)
	defer c.Close()
	var r struct {
		Seq      int64          `json:"seq"`
		Snapshot map[string]any `json:"snapshot"`
	}
	harness.MustCall(t, c, "dev.signaltty.Events.Subscribe", map[string]any{"snapshot": true}, &r)
	if r.Snapshot == nil {
		t.Fatalf("Subscribe with snapshot returned no snapshot")
	}
	return r.Snapshot, r.Seq
}

func daemonChildren(d *harness.Daemon) []int {
	var out []int
	for _, p := range harness.Children(d.Pid()) {
		out = append(out, p.Pid)
	}
	sort.Ints(out)
	return out
}

func daemonPTYs(t *testing.T, d *harness.Daemon) int {
	n := 0
	for _, target := range harness.FDs(t, d.Pid()) {
		if strings.Contains(target, "ptmx") {
			n++
		}
	}
	return n
}

// takeWorld records the daemon's state and subscribes to its events.
func takeWorld(t *testing.T, d *harness.Daemon) world {
	t.Helper()
	w := world{events: d.Subscribe(t, nil, nil)}
	snap, seq := snapshot(t, d)
	b, _ := json.Marshal(snap)
	w.seq, w.entities = seq, string(b)
	c := d.Dial(t)
	defer c.Close()
	var l map[string]any
	harness.MustCall(t, c, "dev.signaltty.Run.List", map[string]any{}, &l)
	lb, _ := json.Marshal(l)
	w.runs = string(lb)
	w.children = daemonChildren(d)
	w.ptys = daemonPTYs(t, d)
	return w
}

// unchanged requires no new run, workspace, tab, pane, child, PTY or event
// since the world was taken.
func (w world) unchanged(t *testing.T, d *harness.Daemon, what string) {
	t.Helper()
	now := takeWorld(t, d)
	defer now.events.Close()
	defer w.events.Close()
	if now.seq != w.seq {
		t.Errorf("%s: events were published (seq %d → %d):\n%s", what, w.seq, now.seq, harness.DumpEvents(w.events.Seen()))
	}
	if now.entities != w.entities {
		t.Errorf("%s: workspaces, tabs, panes or runs changed:\n  before %s\n  after  %s", what, w.entities, now.entities)
	}
	if now.runs != w.runs {
		t.Errorf("%s: Run.List changed:\n  before %s\n  after  %s", what, w.runs, now.runs)
	}
	if !reflect.DeepEqual(now.children, w.children) {
		t.Errorf("%s: the daemon's children changed: %v → %v\n%s", what, w.children, now.children, harness.DumpProcs(harness.Children(d.Pid())))
	}
	if now.ptys != w.ptys {
		t.Errorf("%s: the daemon holds %d PTY masters, had %d", what, now.ptys, w.ptys)
	}
	if seen := w.events.Seen(); len(seen) > 0 {
		t.Errorf("%s: a subscriber saw events:\n%s", what, harness.DumpEvents(seen))
	}
}

// keyFree requires that no run is bound to key (Run.List --key, both transports).
func keyFree(t *testing.T, d *harness.Daemon, key string) {
	t.Helper()
	for _, tr := range both(d) {
		r := tr.list(t, "", key, "", 0)
		if r.err != nil {
			t.Fatalf("list --key %s: %s", key, r)
		}
		if runs, _ := r.obj["runs"].([]any); len(runs) != 0 {
			t.Errorf("key %s is bound: %s", key, r)
		}
	}
}

// --- markers and seams ---------------------------------------------------------

// markers makes a directory for marker files.
func markers(t *testing.T) string {
	t.Helper()
	return harness.TempDir(t)
}

// mark is the shell command appending a line to marker file name in dir.
func mark(dir, name string) string {
	return `echo >> '` + filepath.Join(dir, name) + `'`
}

// count is how many lines marker file name in dir holds (0 when absent).
func count(dir, name string) int {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "\n")
}

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// waitFile polls until path exists.
func waitFile(t *testing.T, path string) {
	t.Helper()
	harness.Eventually(t, harness.PollTimeout, path+" exists", func() (bool, string) {
		return exists(path), ""
	})
}

// --- background clients ----------------------------------------------------------

// bgProc is a client process running in the background.
type bgProc struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr bytes.Buffer
	done   chan struct{}
	res    harness.Result
	start  time.Time
}

// background starts name with args and env; it is killed at cleanup if
// still running.
func background(t *testing.T, env []string, name string, args ...string) *bgProc {
	t.Helper()
	p := &bgProc{cmd: exec.Command(name, args...), done: make(chan struct{}), start: time.Now()}
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() {
		err := p.cmd.Wait()
		p.res = harness.Result{Args: append([]string{name}, args...), Stdout: p.stdout.String(), Stderr: p.stderr.String(), Duration: time.Since(p.start)}
		if ee, ok := err.(*exec.ExitError); ok {
			p.res.Code = ee.ExitCode()
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// bgCLI runs `signaltty --json args…` in the background.
func bgCLI(t *testing.T, d *harness.Daemon, args ...string) *bgProc {
	t.Helper()
	return background(t, d.ClientEnv(), harness.Bin(t, "signaltty"), append([]string{"--json"}, args...)...)
}

// bgVL runs `varlinkctl call --json=short ADDRESS method params` in the background.
func bgVL(t *testing.T, d *harness.Daemon, method string, params map[string]any) *bgProc {
	t.Helper()
	b, _ := json.Marshal(params)
	return background(t, append(os.Environ(), "SYSTEMD_COLORS=0", "SYSTEMD_PAGER=cat"), harness.Varlinkctl(t),
		"--no-pager", "call", "--json=short", d.Address, method, string(b))
}

func (p *bgProc) pid() int { return p.cmd.Process.Pid }

// result waits up to timeout for the process to end.
func (p *bgProc) result(t *testing.T, timeout time.Duration) harness.Result {
	t.Helper()
	select {
	case <-p.done:
		return p.res
	case <-time.After(timeout):
		t.Fatalf("%s did not finish within %v; stdout %q stderr %q", p.cmd.Path, timeout, p.stdout.String(), p.stderr.String())
	}
	return harness.Result{}
}

// reply waits for the process and decodes its output as its transport's.
func (p *bgProc) reply(t *testing.T, via string, timeout time.Duration) reply {
	t.Helper()
	r := p.result(t, timeout)
	if via == "cli" {
		return parseCLI(t, r)
	}
	return parseVL(t, r)
}

func (p *bgProc) ended() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// signal sends sig to the process (which this test started).
func (p *bgProc) signal(sig syscall.Signal) { p.cmd.Process.Signal(sig) }

// waitBlocked polls until the client process holds a connected socket and
// all its threads sleep, on two polls in a row: its request was written and
// it waits for the reply.
func (p *bgProc) waitBlocked(t *testing.T) {
	t.Helper()
	pid := p.pid()
	streak := 0
	harness.Eventually(t, harness.PollTimeout, fmt.Sprintf("pid %d waits on its connection", pid), func() (bool, string) {
		if p.ended() {
			t.Fatalf("client ended early: %s", p.res)
		}
		ok := hasSocket(pid) && allSleeping(pid)
		if ok {
			streak++
		} else {
			streak = 0
		}
		return streak >= 2, fmt.Sprintf("socket=%v sleeping=%v", hasSocket(pid), allSleeping(pid))
	})
}

func hasSocket(pid int) bool {
	ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, e := range ents {
		if l, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, e.Name())); strings.HasPrefix(l, "socket:") {
			return true
		}
	}
	return false
}

func allSleeping(pid int) bool {
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if len(tasks) == 0 {
		return false
	}
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
		if err != nil {
			return false
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || i+2 >= len(s) || s[i+2] != 'S' {
			return false
		}
	}
	return true
}

// --- raw varlink ---------------------------------------------------------------------

// rawSend writes one call on a fresh raw connection and returns the
// connection and a function receiving its reply (nil error reply on success).
func rawSend(t *testing.T, d *harness.Daemon, method string, params any) (*vl.Connection, func() (map[string]any, *harness.CallError, error)) {
	t.Helper()
	c := d.Dial(t)
	recv, err := c.Send(context.Background(), method, params, 0)
	if err != nil {
		t.Fatalf("sending %s: %v", method, err)
	}
	return c, func() (map[string]any, *harness.CallError, error) {
		var raw json.RawMessage
		ctx, cancel := context.WithTimeout(context.Background(), harness.CallTimeout)
		defer cancel()
		_, err := recv(ctx, &raw)
		if err != nil {
			var ve *vl.Error
			if e, ok := err.(*vl.Error); ok {
				ve = e
			}
			if ve != nil {
				ce := &harness.CallError{Name: ve.Name}
				if p, ok := ve.Parameters.(*json.RawMessage); ok && p != nil {
					json.Unmarshal(*p, &ce.ErrorReply)
				}
				return nil, ce, nil
			}
			return nil, nil, err
		}
		var m map[string]any
		json.Unmarshal(raw, &m)
		return m, nil, nil
	}
}

// rawCall makes one call on a fresh raw connection.
func rawCall(t *testing.T, d *harness.Daemon, method string, params any) (map[string]any, *harness.CallError) {
	t.Helper()
	c := d.Dial(t)
	defer c.Close()
	var m map[string]any
	err := harness.Call(t, c, method, params, &m)
	return m, err
}

// cancelAtEnd cancels runs still running when the test ends (a test's own
// runs only; the daemon's shutdown would stop them too, but slower).
func cancelAtEnd(t *testing.T, d *harness.Daemon, runs *[]string) {
	t.Cleanup(func() {
		var wg sync.WaitGroup
		for _, r := range *runs {
			wg.Add(1)
			go func(r string) {
				defer wg.Done()
				c, err := vl.NewConnection(context.Background(), d.Address)
				if err != nil {
					return
				}
				defer c.Close()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				var out json.RawMessage
				c.Call(ctx, "dev.signaltty.Run.Cancel", map[string]any{"run": r, "grace_ms": 200}, &out)
			}(r)
		}
		wg.Wait()
	})
}

// waitSeen polls the events a stream received (without consuming them)
// until one matches, and returns the first match.
func waitSeen(t *testing.T, s *harness.Stream, what string, match func(harness.Event) bool) harness.Event {
	t.Helper()
	var found harness.Event
	harness.Eventually(t, harness.PollTimeout, "event "+what, func() (bool, string) {
		seen := s.Seen()
		for _, e := range seen {
			if match(e) {
				found = e
				return true, ""
			}
		}
		return false, harness.DumpEvents(seen)
	})
	return found
}

// handMade sends one hand-written varlink call on a plain unix connection
// and returns the reply's error parameters (nil on success).
func handMade(t *testing.T, d *harness.Daemon, method string, params any) *harness.ErrorReply {
	t.Helper()
	c := d.DialUnix(t)
	defer c.Close()
	b, _ := json.Marshal(map[string]any{"method": method, "parameters": params})
	if _, err := c.Write(append(b, 0)); err != nil {
		t.Fatalf("write: %v", err)
	}
	c.SetReadDeadline(time.Now().Add(harness.CallTimeout))
	var buf []byte
	one := make([]byte, 4096)
	for !bytes.Contains(buf, []byte{0}) {
		n, err := c.Read(one)
		buf = append(buf, one[:n]...)
		if err != nil {
			break
		}
	}
	msg, _, _ := bytes.Cut(buf, []byte{0})
	var r struct {
		Error      string             `json:"error"`
		Parameters harness.ErrorReply `json:"parameters"`
	}
	if err := json.Unmarshal(msg, &r); err != nil {
		t.Fatalf("undecodable reply %q: %v", msg, err)
	}
	if r.Error == "" {
		return nil
	}
	return &r.Parameters
}

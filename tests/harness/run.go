package harness

// Runs (dev.signaltty.Run, docs/run-wait.md) driven the same way through
// the CLI (`signaltty --json run …`) and through `varlinkctl call`: run
// requests, the transports, their replies and start results.

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// RunRepeat is how often the repeatable run tests (a dropped start and its
// retry, the active limit) run their scenario: $SIGNALTTY_RUN_REPEAT,
// default 1.
func RunRepeat(t testing.TB) int {
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

// ExitStatusOf is the CLI's exit status for an error code: the status of
// its class (signaltty(1), EXIT STATUS).
func ExitStatusOf(code string) int {
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

// ErrorName is the qualified varlink error an error code of interface
// iface is sent as (its class: "dev.signaltty.Run.Conflict").
func ErrorName(iface, code string) string {
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

// Ptr returns a pointer to v (for the optional fields of requests and
// expectations).
func Ptr[T any](v T) *T { return &v }

// Deref returns what p points at, the zero value when p is nil.
func Deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// --- requests --------------------------------------------------------------

// RunSpec is one Run.Start request. Empty strings and nil pointers are
// left out of the request.
type RunSpec struct {
	Key         string
	Workspace   string
	Pane, Axis  string
	Argv        []string
	Shell       *string
	Name        *string
	Cwd         string
	Env         map[string]string
	EnvUnset    []string
	Cols, Rows  *int
	DeadlineMs  *int
	OutputRows  *int
	OutputBytes *int
	Source      string
}

// ShellSpec is a run of text with /bin/sh -c in a new tab of workspace ws.
func ShellSpec(key, ws, text string) RunSpec {
	return RunSpec{Key: key, Workspace: ws, Shell: Ptr(text)}
}

// ArgvSpec is a run of argv (executed directly) in a new tab of workspace ws.
func ArgvSpec(key, ws string, argv ...string) RunSpec {
	return RunSpec{Key: key, Workspace: ws, Argv: argv}
}

// WithKey returns the spec with another key.
func (s RunSpec) WithKey(k string) RunSpec { s.Key = k; return s }

// Params is the spec as Run.Start parameters.
func (s RunSpec) Params() map[string]any {
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
	set("cwd", s.Cwd)
	if s.Argv != nil {
		p["argv"] = s.Argv
	}
	if s.Env != nil {
		p["env"] = s.Env
	}
	if s.EnvUnset != nil {
		p["env_unset"] = s.EnvUnset
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

// CLIArgs is the spec as `signaltty run` arguments.
func (s RunSpec) CLIArgs() []string {
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
	set("--cwd", s.Cwd)
	envKeys := make([]string, 0, len(s.Env))
	for k := range s.Env {
		envKeys = append(envKeys, k)
	}
	sort.Strings(envKeys)
	for _, k := range envKeys {
		a = append(a, "--env", k+"="+s.Env[k])
	}
	for _, k := range s.EnvUnset {
		a = append(a, "--unset-env", k)
	}
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

// Reply is the outcome of one call through one transport.
type Reply struct {
	Via      string          // "cli", "varlinkctl" or "raw"
	Exit     int             // the process's exit status
	Body     json.RawMessage // the reply object on success (nil on an error)
	Err      *ErrorReply     // the error on failure
	ErrName  string          // varlinkctl and raw: the qualified varlink error name
	Raw      string          // what the transport printed or received
	Duration time.Duration
}

func (r Reply) String() string {
	return fmt.Sprintf("%s (exit %d, %v): %s", r.Via, r.Exit, r.Duration.Round(time.Millisecond), clip(r.Raw))
}

// Decode decodes a successful reply into out; an error reply fails the test.
func (r Reply) Decode(t testing.TB, out any) {
	t.Helper()
	if r.Err != nil || r.Body == nil {
		t.Fatalf("want a successful reply, got %s", r)
	}
	if err := json.Unmarshal(r.Body, out); err != nil {
		t.Fatalf("cannot decode the reply: %v: %s", err, r)
	}
}

// Record is the record of a Run.Wait, Run.Get or Run.Cancel reply; the
// test fails unless the reply succeeded with a record object.
func (r Reply) Record(t testing.TB) RunRecord {
	t.Helper()
	if r.Err != nil || r.Body == nil {
		t.Fatalf("want a record, got %s", r)
	}
	var v struct {
		Record *RunRecord `json:"record"`
	}
	if err := json.Unmarshal(r.Body, &v); err != nil || v.Record == nil {
		t.Fatalf("reply has no record object (%v): %s", err, r)
	}
	return *v.Record
}

// List is the reply of Run.List; the test fails unless the call succeeded.
func (r Reply) List(t testing.TB) RunList {
	t.Helper()
	var l RunList
	r.Decode(t, &l)
	return l
}

var jsonLine = regexp.MustCompile(`^\{.*\}\n$`)

// ParseCLIReply decodes `signaltty --json …` output: exactly one line of
// JSON, an error object {"error":{code, message, data}} with the exit
// status of its class, or the reply object.
func ParseCLIReply(t testing.TB, r Result) Reply {
	t.Helper()
	out := Reply{Via: "cli", Exit: r.Code, Raw: r.Stdout, Duration: r.Duration}
	if !jsonLine.MatchString(r.Stdout) || strings.Count(r.Stdout, "\n") != 1 {
		t.Fatalf("--json must print exactly one line of JSON:\n%s", r)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.Stdout), &m); err != nil {
		t.Fatalf("cannot decode CLI output: %v\n%s", err, r)
	}
	if e, ok := m["error"]; ok && len(m) == 1 {
		var er struct {
			Error *ErrorReply `json:"error"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &er); err != nil || er.Error == nil {
			t.Fatalf("undecodable error %s:\n%s", e, r)
		}
		out.Err = er.Error
		if r.Code != ExitStatusOf(er.Error.Code) {
			t.Errorf("CLI exit status %d for %s, want %d (its class):\n%s", r.Code, er.Error.Code, ExitStatusOf(er.Error.Code), r)
		}
		if er.Error.Message == "" || er.Error.Data == nil {
			t.Errorf("error without message or data object:\n%s", r)
		}
		return out
	}
	out.Body = json.RawMessage(strings.TrimSuffix(r.Stdout, "\n"))
	return out
}

var failedName = regexp.MustCompile(`failed: (\S+)`)

// ParseVarlinkctlReply decodes `varlinkctl call --json=short …` output:
// the reply object on success, else the error parameters (and the error's
// name from stderr).
func ParseVarlinkctlReply(t testing.TB, r Result) Reply {
	t.Helper()
	out := Reply{Via: "varlinkctl", Exit: r.Code, Raw: r.Stdout, Duration: r.Duration}
	var m map[string]json.RawMessage
	text := strings.TrimSpace(r.Stdout)
	if text == "" && r.Code == 0 {
		text = "{}" // a reply without parameters
	}
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatalf("cannot decode varlinkctl output: %v\n%s", err, r)
	}
	if r.Code == 0 {
		out.Body = json.RawMessage(text)
		return out
	}
	var er ErrorReply
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.Stdout)), &er); err != nil || er.Code == "" {
		t.Fatalf("varlinkctl failed without an error object:\n%s", r)
	}
	out.Err = &er
	if m := failedName.FindStringSubmatch(r.Stderr); m != nil {
		out.ErrName = m[1]
	}
	return out
}

// --- transports ----------------------------------------------------------------

// --- the same run through both transports ------------------------------------------

// StartBoth starts spec through the CLI and through varlinkctl (keys
// suffixed -c and -v), requires first starts (reused false) with equal
// results apart from ids, pid and key (and workspace when spec names a
// pane), and returns them in that order.
func (d *Daemon) StartBoth(t testing.TB, spec RunSpec) []RunStart {
	t.Helper()
	var out []RunStart
	for _, tr := range Both(d) {
		st := tr.MustStart(t, spec.WithKey(spec.Key+"-"+tr.Short()))
		if st.Reused {
			t.Errorf("a first start returned reused: true: %+v", st)
		}
		out = append(out, st)
	}
	drop := []string{"run", "key", "pane", "tab", "pid"}
	if spec.Workspace == "" {
		drop = append(drop, "workspace")
	}
	SameJSONExcept(t, "start results via the CLI and via varlinkctl", out[0], out[1], drop...)
	return out
}

// RunBoth starts spec through both transports, waits for both runs through
// both transports, requires equal records (apart from Volatile fields) and
// returns the CLI run's.
func (d *Daemon) RunBoth(t testing.TB, spec RunSpec) RunRecord {
	t.Helper()
	sts := d.StartBoth(t, spec)
	var recs []RunRecord
	for _, st := range sts {
		recs = append(recs, d.WaitBoth(t, st.Run))
	}
	SameRecords(t, "records of the same command started via the CLI and via varlinkctl", recs...)
	return recs[0]
}

// WaitBoth waits for run through the CLI and through varlinkctl, requires
// both to return the identical record (the CLI exiting with its status),
// checks it (CheckRecord) and returns it.
func (d *Daemon) WaitBoth(t testing.TB, run string) RunRecord {
	t.Helper()
	var recs []RunRecord
	for _, tr := range Both(d) {
		r := tr.Wait(t, run, nil, nil)
		if r.Err != nil {
			t.Fatalf("wait %s via %s: %s", run, tr.Name, r)
		}
		recs = append(recs, r.Record(t))
	}
	SameJSON(t, "the record of "+run+" via the CLI and via varlinkctl", recs[0], recs[1])
	CheckRecord(t, recs[0])
	return recs[0]
}

// GetBoth reads run through both transports (output as asked, nil: the
// default) and requires identical, well-formed records.
func (d *Daemon) GetBoth(t testing.TB, run string, output *bool) RunRecord {
	t.Helper()
	var recs []RunRecord
	for _, tr := range Both(d) {
		r := tr.Get(t, run, output)
		if r.Err != nil || r.Exit != 0 {
			t.Fatalf("get %s via %s: %s", run, tr.Name, r)
		}
		recs = append(recs, r.Record(t))
	}
	SameJSON(t, "the record of "+run+" via the CLI and via varlinkctl", recs[0], recs[1])
	CheckRecord(t, recs[0])
	return recs[0]
}

// WantRunning requires the run to be running through both transports, its
// command still alive.
func (d *Daemon) WantRunning(t testing.TB, run, what string) {
	t.Helper()
	rec := d.GetBoth(t, run, nil)
	if rec.State != "running" {
		t.Errorf("%s: run %s is %s, want running: %s", what, run, rec.State, rec.Raw)
	}
	if Gone(rec.Pid) {
		t.Errorf("%s: the command of %s (pid %d) is gone", what, run, rec.Pid)
	}
}

// KeyFree requires that no run is bound to key (Run.List with key, both transports).
func (d *Daemon) KeyFree(t testing.TB, key string) {
	t.Helper()
	for _, tr := range Both(d) {
		r := tr.List(t, RunListOptions{Key: key})
		if r.Err != nil {
			t.Fatalf("list --key %s: %s", key, r)
		}
		if l := r.List(t); len(l.Runs) != 0 {
			t.Errorf("key %s is bound: %s", key, r)
		}
	}
}

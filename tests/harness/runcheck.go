package harness

// Checks of run records, replies and errors (docs/run-wait.md).

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// CheckRecord checks the presence rules of a record (the Record type of
// dev.signaltty.Run, docs/run-wait.md): the identity fields always;
// outcome, status, completed_at and duration_ms exactly when completed;
// output only then, with every field of its type; exactly one of exit_code
// and signal when completed; times in RFC 3339 UTC with milliseconds.
func CheckRecord(t testing.TB, rec RunRecord) {
	t.Helper()
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(rec.Raw, &fields); err != nil {
		t.Errorf("record is not an object (%v): %s", err, rec.Raw)
	}
	for _, f := range []string{"run", "source", "key", "pane", "tab", "workspace", "principal", "pid", "shell", "state", "started_at"} {
		if _, ok := fields[f]; !ok {
			t.Errorf("record lacks %s: %s", f, rec.Raw)
		}
	}
	completed := rec.State == "completed"
	for _, f := range []string{"outcome", "status", "completed_at", "duration_ms"} {
		if _, ok := fields[f]; ok != completed {
			t.Errorf("record in state %s: %s present=%v: %s", rec.State, f, ok, rec.Raw)
		}
	}
	if out, ok := fields["output"]; ok {
		if !completed {
			t.Errorf("output before completion: %s", rec.Raw)
		}
		var of map[string]json.RawMessage
		json.Unmarshal(out, &of)
		for _, f := range []string{"screen", "epoch", "offset", "cols", "rows", "oldest", "start", "end", "complete", "lines"} {
			if _, ok := of[f]; !ok {
				t.Errorf("output lacks %s: %s", f, out)
			}
		}
	}
	_, hasCode := fields["exit_code"]
	_, hasSig := fields["signal"]
	if completed && hasCode == hasSig {
		t.Errorf("a completed record has exactly one of exit_code and signal: %s", rec.Raw)
	}
	ts := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	for f, v := range map[string]*string{"started_at": &rec.StartedAt, "completed_at": rec.CompletedAt} {
		if _, ok := fields[f]; ok && (v == nil || !ts.MatchString(*v)) {
			t.Errorf("%s %s is not RFC 3339 UTC with milliseconds", f, fields[f])
		}
	}
}

// Volatile lists the record fields that legitimately differ between two
// runs of the same command: ids, pid, key, times.
var Volatile = []string{"run", "key", "pane", "tab", "workspace", "pid", "started_at", "completed_at", "duration_ms"}

// canonical is v as JSON decoded into plain Go values (objects as maps,
// numbers as float64), so that equal JSON compares equal whatever the key
// order.
func canonical(v any) (any, []byte) {
	b, _ := json.Marshal(v)
	var x any
	if json.Unmarshal(b, &x) != nil {
		return nil, b
	}
	cb, _ := json.Marshal(x)
	return x, cb
}

// SameJSON requires a and b to be equal as JSON values (the run types
// compare as the JSON the daemon sent).
func SameJSON(t testing.TB, what string, a, b any) {
	t.Helper()
	_, ja := canonical(a)
	_, jb := canonical(b)
	if !bytes.Equal(ja, jb) {
		t.Errorf("%s differ:\n  %s\n  %s", what, clip(string(ja)), clip(string(jb)))
	}
}

// SameJSONExcept requires the JSON objects a and b to be equal apart from
// the fields named in drop.
func SameJSONExcept(t testing.TB, what string, a, b any, drop ...string) {
	t.Helper()
	SameJSON(t, what, without(a, drop), without(b, drop))
}

func without(v any, drop []string) any {
	x, _ := canonical(v)
	m, ok := x.(map[string]any)
	if !ok {
		return x
	}
	for _, k := range drop {
		delete(m, k)
	}
	return m
}

// SameRecords requires records of different runs of the same command to be
// equal except for their Volatile fields.
func SameRecords(t testing.TB, what string, recs ...RunRecord) {
	t.Helper()
	for i := 1; i < len(recs); i++ {
		SameJSONExcept(t, what, recs[0], recs[i], Volatile...)
	}
}

// SameErrors requires every reply to be an error, all with identical error
// objects (code, message, data).
func SameErrors(t testing.TB, what string, rs ...Reply) {
	t.Helper()
	for _, r := range rs {
		if r.Err == nil {
			t.Errorf("%s: want an error, got %s", what, r)
			return
		}
	}
	for i := 1; i < len(rs); i++ {
		SameJSON(t, what+" (error objects via "+rs[0].Via+" and "+rs[i].Via+")", rs[0].Err, rs[i].Err)
	}
}

// WantError requires r to be the error code (through the CLI with the exit
// status of its class) and, when data is not nil, with exactly that data.
func WantError(t testing.TB, r Reply, code string, data map[string]any) {
	t.Helper()
	if r.Err == nil {
		t.Errorf("want error %s, got %s", code, r)
		return
	}
	if r.Err.Code != code {
		t.Errorf("error %q, want %q: %s", r.Err.Code, code, r)
	}
	if r.Via == "cli" && r.Exit != ExitStatusOf(code) {
		t.Errorf("exit %d, want %d: %s", r.Exit, ExitStatusOf(code), r)
	}
	if data != nil {
		SameJSON(t, "error data of "+code+" via "+r.Via+" and the expected", r.Err.Data, data)
	}
}

// WantOutcome checks the result fields of a completed record: outcome,
// exit_code (nil: absent) or signal ("" = absent), cause ("" = absent) and
// status.
func WantOutcome(t testing.TB, rec RunRecord, outcome string, exitCode *int, signal, cause string, status int) {
	t.Helper()
	if rec.State != "completed" || Deref(rec.Outcome) != outcome {
		t.Errorf("state %s outcome %s, want completed %s: %s", rec.State, Deref(rec.Outcome), outcome, rec.Raw)
	}
	switch {
	case exitCode == nil && rec.ExitCode != nil:
		t.Errorf("exit_code %d present, want none: %s", *rec.ExitCode, rec.Raw)
	case exitCode != nil && (rec.ExitCode == nil || *rec.ExitCode != *exitCode):
		t.Errorf("exit_code %s, want %d: %s", optInt(rec.ExitCode), *exitCode, rec.Raw)
	}
	if Deref(rec.Signal) != signal {
		t.Errorf("signal %q, want %q: %s", Deref(rec.Signal), signal, rec.Raw)
	}
	if Deref(rec.Cause) != cause {
		t.Errorf("cause %q, want %q: %s", Deref(rec.Cause), cause, rec.Raw)
	}
	if rec.Status == nil || *rec.Status != status {
		t.Errorf("status %s, want %d: %s", optInt(rec.Status), status, rec.Raw)
	}
}

// optInt renders an optional number for failure messages.
func optInt(p *int) string {
	if p == nil {
		return "absent"
	}
	return strconv.Itoa(*p)
}

// MustOutput returns the record's output; the test fails when the record
// has none or its output has no lines.
func (r RunRecord) MustOutput(t testing.TB) RunOutput {
	t.Helper()
	if r.Output == nil {
		t.Fatalf("record without output: %s", r.Raw)
	}
	if r.Output.Lines == nil {
		t.Fatalf("output without lines: %s", r.Raw)
	}
	return *r.Output
}

// TrimLines returns the lines without trailing spaces.
func TrimLines(ls []string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = strings.TrimRight(l, " ")
	}
	return out
}

// Has reports whether the record, as the daemon sent it, has field name.
func (r RunRecord) Has(name string) bool {
	var fields map[string]json.RawMessage
	json.Unmarshal(r.Raw, &fields)
	_, ok := fields[name]
	return ok
}

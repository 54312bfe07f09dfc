package harness

import (
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Transport makes calls through the CLI or through varlinkctl.
type Transport struct {
	Name string // "cli" or "varlinkctl"
	d    *Daemon
}

// CLIOf is the transport of `signaltty --json`.
func CLIOf(d *Daemon) Transport { return Transport{"cli", d} }

// VarlinkctlOf is the transport of `varlinkctl call`.
func VarlinkctlOf(d *Daemon) Transport { return Transport{"varlinkctl", d} }

// Both returns the two transports every run test goes through, the CLI first.
func Both(d *Daemon) []Transport { return []Transport{CLIOf(d), VarlinkctlOf(d)} }

// Short is a key suffix per transport ("c" or "v").
func (tr Transport) Short() string {
	if tr.Name == "cli" {
		return "c"
	}
	return "v"
}

// Call makes one call: method with params through varlinkctl (whose error,
// if any, must be sent as the varlink error of its class), or cliArgs
// through the CLI.
func (tr Transport) Call(t testing.TB, method string, params any, cliArgs ...string) Reply {
	t.Helper()
	if tr.Name == "cli" {
		return ParseCLIReply(t, tr.d.CLI(t, append([]string{"--json"}, cliArgs...)...))
	}
	b, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	rep := ParseVarlinkctlReply(t, tr.d.Varlinkctl(t, "call", "--json=short", method, string(b)))
	if rep.Err != nil {
		iface := method[:strings.LastIndexByte(method, '.')]
		if want := ErrorName(iface, rep.Err.Code); rep.ErrName != want {
			t.Errorf("varlinkctl: error %q sent as %q, want %q", rep.Err.Code, rep.ErrName, want)
		}
	}
	return rep
}

// Start calls Run.Start.
func (tr Transport) Start(t testing.TB, s RunSpec) Reply {
	t.Helper()
	return tr.Call(t, "dev.signaltty.Run.Start", s.Params(), s.CLIArgs()...)
}

// MustStart starts s, requires success and checks the start result (CheckStart).
func (tr Transport) MustStart(t testing.TB, s RunSpec) RunStart {
	t.Helper()
	r := tr.Start(t, s)
	if r.Err != nil || r.Exit != 0 {
		t.Fatalf("start %s via %s failed: %s", s.Key, tr.Name, r)
	}
	return CheckStart(t, r, s.Key)
}

// CheckStart checks that a start reply is the closed object of the IDL
// (exactly its fields) for key, with a run id rN, a pid, a pane, a
// principal and a source signaltty/…, and returns it.
func CheckStart(t testing.TB, r Reply, key string) RunStart {
	t.Helper()
	var fields map[string]json.RawMessage
	if r.Body != nil {
		if err := json.Unmarshal(r.Body, &fields); err != nil {
			t.Fatalf("start result: %v: %s", err, r)
		}
	}
	want := []string{"key", "pane", "pid", "principal", "reused", "run", "source", "tab", "workspace"}
	got := make([]string, 0, len(fields))
	for k := range fields {
		got = append(got, k)
	}
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("start result fields %v, want %v: %s", got, want, r)
	}
	var s RunStart
	if r.Body != nil {
		if err := json.Unmarshal(r.Body, &s); err != nil {
			t.Fatalf("start result: %v", err)
		}
	}
	if !regexp.MustCompile(`^r[0-9]+$`).MatchString(s.Run) || s.Key != key || s.Pid <= 0 || s.Pane == "" ||
		!strings.HasPrefix(s.Source, "signaltty/") || s.Principal == "" {
		t.Errorf("start result %+v: want run rN, key %q, a pid, a pane and source signaltty/…", s, key)
	}
	return s
}

// Wait calls Run.Wait with an optional timeout and output flag. Through
// the CLI, a record must come with the exit status of its status.
func (tr Transport) Wait(t testing.TB, run string, timeoutMs *int, output *bool) Reply {
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
	r := tr.Call(t, "dev.signaltty.Run.Wait", p, a...)
	if tr.Name == "cli" && r.Err == nil {
		rec := r.Record(t)
		if rec.Status == nil {
			t.Errorf("run wait result without status: %s", r)
		} else if r.Exit != *rec.Status {
			t.Errorf("run wait exited %d, want the record's status %d: %s", r.Exit, *rec.Status, r)
		}
	}
	return r
}

// Get calls Run.Get with an optional output flag.
func (tr Transport) Get(t testing.TB, run string, output *bool) Reply {
	t.Helper()
	p := map[string]any{"run": run}
	a := []string{"run", "get", "--run", run}
	if output != nil {
		p["output"] = *output
		a = append(a, "--output="+strconv.FormatBool(*output))
	}
	return tr.Call(t, "dev.signaltty.Run.Get", p, a...)
}

// Cancel calls Run.Cancel; signal "" and a nil grace leave them out.
func (tr Transport) Cancel(t testing.TB, run, signal string, graceMs *int) Reply {
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
	return tr.Call(t, "dev.signaltty.Run.Cancel", p, a...)
}

// RunListOptions are the optional parameters of Run.List ("" and 0: absent).
type RunListOptions struct {
	Pane, Key, After string
	Limit            int
}

// List calls Run.List.
func (tr Transport) List(t testing.TB, o RunListOptions) Reply {
	t.Helper()
	p := map[string]any{}
	a := []string{"run", "list"}
	for _, f := range []struct{ k, v string }{{"pane", o.Pane}, {"key", o.Key}, {"after", o.After}} {
		if f.v != "" {
			p[f.k] = f.v
			a = append(a, "--"+f.k, f.v)
		}
	}
	if o.Limit != 0 {
		p["limit"] = o.Limit
		a = append(a, "--limit", strconv.Itoa(o.Limit))
	}
	return tr.Call(t, "dev.signaltty.Run.List", p, a...)
}

// SetRunConfig calls Server.SetConfig with the run settings set in c
// (nil: unchanged) and returns the new configuration.
func (tr Transport) SetRunConfig(t testing.TB, c RunConfigChange) Config {
	t.Helper()
	p := map[string]any{}
	a := []string{"config", "set"}
	for _, f := range []struct {
		name string
		v    *int
	}{{"max_active", c.MaxActive}, {"retain_count", c.RetainCount}, {"retain_ms", c.RetainMs}, {"retain_bytes", c.RetainBytes}} {
		if f.v != nil {
			p["run_"+f.name] = *f.v
			a = append(a, "--run-"+strings.ReplaceAll(f.name, "_", "-"), strconv.Itoa(*f.v))
		}
	}
	r := tr.Call(t, "dev.signaltty.Server.SetConfig", p, a...)
	if r.Err != nil {
		t.Fatalf("SetConfig %+v: %s", c, r)
	}
	var out struct {
		Config Config `json:"config"`
	}
	r.Decode(t, &out)
	return out.Config
}

// RunConfigChange is the run settings of a Server.SetConfig call.
type RunConfigChange struct {
	MaxActive, RetainCount, RetainMs, RetainBytes *int
}

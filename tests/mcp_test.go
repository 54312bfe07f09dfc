package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/signaltty/signaltty/tests/harness"
	"github.com/signaltty/signaltty/varlink/mcpschema"
)

// The MCP server (docs/mcp.md) is a thin mapping onto the CLI's calls:
// every tool result and tool error is the line `signaltty --json` prints
// for the same request, after ids, times and pids are normalised.

// mcpWaitCap is the test-only run_wait cap (`signaltty mcp --wait-cap-ms`).
const mcpWaitCap = 1500

// same runs the CLI with --json and the MCP tool with args, and fails
// unless both print the same record (or error) after normalisation; it
// returns the MCP result.
func same(t *testing.T, d *harness.Daemon, m *harness.MCP, cli []string, tool string, args map[string]any) harness.ToolResult {
	t.Helper()
	if mcpTrims[tool] { // MCP asks these without trailing spaces (docs/mcp.md, "Small results")
		cli = append(cli[:len(cli):len(cli)], "--trim")
	}
	r := d.CLI(t, append([]string{"--json"}, cli...)...)
	line := strings.TrimSuffix(r.Stdout, "\n")
	got := m.Call(t, tool, args)
	if want := strings.HasPrefix(line, `{"error":`); got.IsError != want {
		t.Fatalf("%s: isError %v, but the CLI printed %s\nMCP: %s", tool, got.IsError, line, got.Text)
	}
	if !got.IsError {
		line = mcpView(t, tool, line)
	}
	if cn, mn := harness.Normalize(t, line), harness.Normalize(t, got.Text); cn != mn {
		t.Fatalf("%s differs from signaltty --json %s:\nCLI: %s\nMCP: %s", tool, strings.Join(cli, " "), cn, mn)
	}
	if !got.IsError {
		if got.Structured == "" {
			t.Fatalf("%s: no structured content: %s", tool, got.Text)
		}
		if sn, tn := harness.Normalize(t, got.Structured), harness.Normalize(t, got.Text); sn != tn {
			t.Fatalf("%s: structured content and text differ:\n%s\n%s", tool, sn, tn)
		}
	}
	return got
}

// waitEndsFirst runs a CLI wait that must end with timeout.wait and the
// same run_wait in MCP, which must instead be a normal result: the record
// as it is now (state running) with wait_ended "timeout" and next
// (docs/mcp.md, "Long waits"). It returns the MCP result.
func waitEndsFirst(t *testing.T, d *harness.Daemon, m *harness.MCP, cli []string, args map[string]any) harness.ToolResult {
	t.Helper()
	r := d.CLI(t, append([]string{"--json"}, cli...)...)
	if !strings.Contains(r.Stdout, `"code":"timeout.wait"`) {
		t.Fatalf("signaltty --json %s: want timeout.wait, got %s", strings.Join(cli, " "), r.Stdout)
	}
	got := m.Call(t, "run_wait", args)
	var res struct {
		Record    struct{ State string }
		WaitEnded string `json:"wait_ended"`
		Next      string
	}
	decodeText(t, got, &res)
	if got.IsError || res.WaitEnded != "timeout" || res.Record.State != "running" || !strings.Contains(res.Next, "run_wait") {
		t.Fatalf("run_wait %v: want a normal result, state running, wait_ended timeout and next; got isError=%v %s", args, got.IsError, got.Text)
	}
	return got
}

// mcpView is the --json line of a reply with the fields left out that the
// MCP tool's table says it leaves out (docs/mcp.md, "Small results"): what
// the MCP result must then equal.
func mcpView(t *testing.T, tool, line string) string {
	t.Helper()
	var tl mcpschema.Tool
	for _, c := range mcpschema.Tools() {
		if c.Name == tool {
			tl = c
		}
	}
	if len(tl.Omit) == 0 && len(tl.OmitDefault) == 0 {
		return line
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		t.Fatalf("not JSON: %q", line)
	}
	drop := func(path string, when func(any) bool) {
		names := strings.Split(path, ".")
		o := v
		for _, n := range names[:len(names)-1] {
			if o, _ = o[n].(map[string]any); o == nil {
				return
			}
		}
		if x, ok := o[names[len(names)-1]]; ok && when(x) {
			delete(o, names[len(names)-1])
		}
	}
	for _, p := range tl.Omit {
		drop(p, func(any) bool { return true })
	}
	for p, def := range tl.OmitDefault {
		drop(p, func(x any) bool { return x == def })
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// mcpTrims are the tools whose rows MCP trims by default.
var mcpTrims = map[string]bool{"run_wait": true, "run_get": true, "pane_capture": true}

func decodeText(t *testing.T, r harness.ToolResult, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.Text), v); err != nil {
		t.Fatalf("decoding %q: %v", r.Text, err)
	}
}

func errCode(t *testing.T, r harness.ToolResult) string {
	t.Helper()
	var e struct {
		Error struct {
			Code    string         `json:"code"`
			Message string         `json:"message"`
			Data    map[string]any `json:"data"`
		} `json:"error"`
	}
	if !r.IsError {
		t.Fatalf("want a tool error, got %s", r.Text)
	}
	decodeText(t, r, &e)
	if e.Error.Code == "" || e.Error.Message == "" || e.Error.Data == nil {
		t.Fatalf("tool error without code, message and data: %s", r.Text)
	}
	return e.Error.Code
}

func argvJSON(argv ...string) string {
	b, _ := json.Marshal(argv)
	return string(b)
}

func TestMCPRunResultsEqualTheCLIs(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	m := d.StartMCP(t, nil, "--wait-cap-ms", fmt.Sprint(mcpWaitCap))
	ws := d.CreateWorkspace(t, "mcp")
	argv := []string{"sh", "-c", "echo out; echo err >&2; exit 3"}
	start := func(key string) map[string]any {
		return map[string]any{"key": key, "workspace": ws.ID, "argv": argv}
	}

	// start, wait, get, list
	st := same(t, d, m, []string{"run", "--key", "cli-1", "--workspace", ws.ID, "--argv", argvJSON(argv...)}, "run", start("mcp-1"))
	var started struct{ Run, Pane string }
	decodeText(t, st, &started)
	cliRun := cliRunOf(t, d, "cli-1")
	same(t, d, m, []string{"run", "wait", "--run", cliRun, "--timeout-ms", "20000"}, "run_wait", map[string]any{"run": started.Run, "timeout_ms": 20000})
	same(t, d, m, []string{"run", "get", "--run", cliRun}, "run_get", map[string]any{"run": started.Run})
	same(t, d, m, []string{"run", "get", "--run", cliRun, "--output=false"}, "run_get", map[string]any{"run": started.Run, "output": false})
	same(t, d, m, []string{"run", "list", "--key", "cli-1"}, "run_list", map[string]any{"key": "mcp-1"})

	// a lost response retried: the same key and parameters return the same run
	again := same(t, d, m, []string{"run", "--key", "cli-1", "--workspace", ws.ID, "--argv", argvJSON(argv...)}, "run", start("mcp-1"))
	var re struct {
		Run    string
		Reused bool
	}
	decodeText(t, again, &re)
	if !re.Reused || re.Run != started.Run {
		t.Fatalf("retried run: want reused:true with run %s, got %s", started.Run, again.Text)
	}
	// key conflict, invalid params, unknown run
	same(t, d, m, []string{"run", "--key", "cli-1", "--workspace", ws.ID, "--", "true"}, "run", map[string]any{"key": "mcp-1", "workspace": ws.ID, "argv": []string{"true"}})
	same(t, d, m, []string{"run", "--key", "bad key", "--workspace", ws.ID, "--", "true"}, "run", map[string]any{"key": "bad key", "workspace": ws.ID, "argv": []string{"true"}})
	same(t, d, m, []string{"run", "--key", "cli-2", "--workspace", ws.ID, "--shell", "true", "--", "true"}, "run", map[string]any{"key": "mcp-2", "workspace": ws.ID, "shell": "true", "argv": []string{"true"}})
	same(t, d, m, []string{"run", "--key", "cli-2", "--workspace", "nope", "--", "true"}, "run", map[string]any{"key": "mcp-2", "workspace": "nope", "argv": []string{"true"}})
	same(t, d, m, []string{"run", "wait", "--run", "r999", "--timeout-ms", "0"}, "run_wait", map[string]any{"run": "r999", "timeout_ms": 0})
	same(t, d, m, []string{"run", "wait", "--run", cliRun, "--timeout-ms", "-1"}, "run_wait", map[string]any{"run": started.Run, "timeout_ms": -1})

	// a shell run, a deadline, a wait timeout and a cancel
	same(t, d, m, []string{"run", "--key", "cli-3", "--workspace", ws.ID, "--shell", "echo a | tr a b"}, "run", map[string]any{"key": "mcp-3", "workspace": ws.ID, "shell": "echo a | tr a b"})
	same(t, d, m, []string{"run", "wait", "--run", cliRunOf(t, d, "cli-3"), "--timeout-ms", "20000"}, "run_wait", map[string]any{"run": runOf(t, m, "mcp-3"), "timeout_ms": 20000})
	same(t, d, m, []string{"run", "--key", "cli-4", "--workspace", ws.ID, "--deadline-ms", "300", "--", "sleep", "60"}, "run", map[string]any{"key": "mcp-4", "workspace": ws.ID, "deadline_ms": 300, "argv": []string{"sleep", "60"}})
	same(t, d, m, []string{"run", "wait", "--run", cliRunOf(t, d, "cli-4"), "--timeout-ms", "20000"}, "run_wait", map[string]any{"run": runOf(t, m, "mcp-4"), "timeout_ms": 20000})
	same(t, d, m, []string{"run", "--key", "cli-5", "--workspace", ws.ID, "--", "sleep", "60"}, "run", map[string]any{"key": "mcp-5", "workspace": ws.ID, "argv": []string{"sleep", "60"}})
	c5, m5 := cliRunOf(t, d, "cli-5"), runOf(t, m, "mcp-5")
	waitEndsFirst(t, d, m, []string{"run", "wait", "--run", c5, "--timeout-ms", "0"}, map[string]any{"run": m5, "timeout_ms": 0})
	same(t, d, m, []string{"run", "cancel", "--run", c5, "--grace-ms", "500"}, "run_cancel", map[string]any{"run": m5, "grace_ms": 500})
	same(t, d, m, []string{"run", "cancel", "--run", c5}, "run_cancel", map[string]any{"run": m5})

	// an output tail that is not complete
	seq := []string{"seq", "1", "300"}
	same(t, d, m, []string{"run", "--key", "cli-6", "--workspace", ws.ID, "--output-rows", "5", "--", seq[0], seq[1], seq[2]}, "run",
		map[string]any{"key": "mcp-6", "workspace": ws.ID, "output_rows": 5, "argv": seq})
	w := same(t, d, m, []string{"run", "wait", "--run", cliRunOf(t, d, "cli-6"), "--timeout-ms", "20000"}, "run_wait", map[string]any{"run": runOf(t, m, "mcp-6"), "timeout_ms": 20000})
	var rec struct {
		Record struct {
			Output struct {
				Complete bool
				Lines    []string
			}
		}
	}
	decodeText(t, w, &rec)
	if rec.Record.Output.Complete || len(rec.Record.Output.Lines) != 5 || strings.TrimSpace(rec.Record.Output.Lines[4]) != "300" {
		t.Fatalf("want the last 5 rows, not complete: %s", w.Text)
	}
	same(t, d, m, []string{"status"}, "status", nil)
}

// runOf finds the run started by MCP with key.
func runOf(t *testing.T, m *harness.MCP, key string) string {
	t.Helper()
	r := m.Call(t, "run_list", map[string]any{"key": key})
	var l struct{ Runs []struct{ Run string } }
	decodeText(t, r, &l)
	if len(l.Runs) != 1 {
		t.Fatalf("run_list key %s: %s", key, r.Text)
	}
	return l.Runs[0].Run
}

func TestMCPPaneResultsEqualTheCLIs(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	m := d.StartMCP(t, nil)
	ws := d.CreateWorkspace(t, "panes")
	same(t, d, m, []string{"workspace", "get", "--workspace", ws.ID}, "workspace_get", map[string]any{"workspace": ws.ID})
	same(t, d, m, []string{"workspace", "list"}, "workspace_list", nil)
	cliPane := d.Spawn(t, []string{"--workspace", ws.ID}, "cat")
	sp := m.Call(t, "pane_spawn", map[string]any{"workspace": ws.ID, "argv": []string{"cat"}})
	var p struct{ Pane struct{ ID string } }
	decodeText(t, sp, &p)
	same(t, d, m, []string{"pane", "get", "--pane", cliPane.ID}, "pane_get", map[string]any{"pane": p.Pane.ID})
	same(t, d, m, []string{"pane", "send", "--pane", cliPane.ID, "--text", `hello\r`}, "pane_send", map[string]any{"pane": p.Pane.ID, "text": "hello\r"})
	// The terminal's echo and cat's copy: both lines before comparing.
	for _, pane := range []string{cliPane.ID, p.Pane.ID} {
		d.WaitCapture(t, pane, "pane "+pane+" shows hello twice", func(c harness.Capture) bool {
			n := 0
			for _, l := range c.Lines {
				if strings.TrimRight(l, " ") == "hello" {
					n++
				}
			}
			return n == 2
		})
	}
	same(t, d, m, []string{"pane", "capture", "--pane", cliPane.ID}, "pane_capture", map[string]any{"pane": p.Pane.ID})
	same(t, d, m, []string{"pane", "capture", "--pane", cliPane.ID, "--start", "0", "--end", "1"}, "pane_capture", map[string]any{"pane": p.Pane.ID, "start": 0, "end": 1})
	same(t, d, m, []string{"pane", "capture", "--pane", cliPane.ID, "--start", "5", "--end", "1"}, "pane_capture", map[string]any{"pane": p.Pane.ID, "start": 5, "end": 1})
	same(t, d, m, []string{"pane", "remove", "--pane", cliPane.ID}, "pane_remove", map[string]any{"pane": p.Pane.ID})
	same(t, d, m, []string{"pane", "kill", "--pane", cliPane.ID}, "pane_kill", map[string]any{"pane": p.Pane.ID})
	same(t, d, m, []string{"pane", "send", "--pane", cliPane.ID, "--text", "x"}, "pane_send", map[string]any{"pane": p.Pane.ID, "text": "x"})
	same(t, d, m, []string{"pane", "remove", "--pane", cliPane.ID}, "pane_remove", map[string]any{"pane": p.Pane.ID})
	same(t, d, m, []string{"pane", "get", "--pane", cliPane.ID}, "pane_get", map[string]any{"pane": p.Pane.ID})
	same(t, d, m, []string{"pane", "list", "--workspace", ws.ID}, "pane_list", map[string]any{"workspace": ws.ID})
	same(t, d, m, []string{"pane", "list", "--workspace", ws.ID, "--fields", "id,state,status"}, "pane_list_fields",
		map[string]any{"workspace": ws.ID, "fields": []string{"id", "state", "status"}})
	same(t, d, m, []string{"workspace", "rename", "--workspace", ws.ID, "--name", "renamed"}, "workspace_rename", map[string]any{"workspace": ws.ID, "name": "renamed"})
	mw := m.Call(t, "workspace_create", map[string]any{"name": "other", "cwd": d.Home})
	var w struct{ Workspace struct{ ID string } }
	decodeText(t, mw, &w)
	same(t, d, m, []string{"workspace", "remove", "--workspace", ws.ID}, "workspace_remove", map[string]any{"workspace": w.Workspace.ID})
}

func TestMCPToolSchemasAreTheGeneratedOnes(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	m := d.StartMCP(t, nil)
	res, err := m.Session.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := mcpschema.Tools()
	if len(res.Tools) != len(want) {
		t.Fatalf("tools/list has %d tools, want %d", len(res.Tools), len(want))
	}
	canon := func(v any) string {
		b, _ := json.Marshal(v)
		var x any
		_ = json.Unmarshal(b, &x)
		b, _ = json.Marshal(x)
		return string(b)
	}
	byName := map[string]mcpschema.Tool{}
	for _, w := range want {
		byName[w.Name] = w
	}
	for _, got := range res.Tools {
		w, ok := byName[got.Name]
		if !ok {
			t.Errorf("unexpected tool %s", got.Name)
			continue
		}
		if got.Description != w.Description {
			t.Errorf("%s: description differs from the generated one", got.Name)
		}
		if got.Annotations == nil || canon(got.Annotations) != canon(w.Annotations) {
			t.Errorf("%s: annotations %s, want %s", got.Name, canon(got.Annotations), canon(w.Annotations))
		}
		if canon(got.InputSchema) != canon(w.InputSchema) {
			t.Errorf("%s: input schema\n got %s\nwant %s", got.Name, canon(got.InputSchema), canon(w.InputSchema))
		}
		if canon(got.OutputSchema) != canon(w.OutputSchema) {
			t.Errorf("%s: output schema\n got %s\nwant %s", got.Name, canon(got.OutputSchema), canon(w.OutputSchema))
		}
	}
}

func TestMCPRunWaitWithoutTimeoutEndsAtTheCapAsANormalResult(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	m := d.StartMCP(t, nil, "--wait-cap-ms", fmt.Sprint(mcpWaitCap))
	ws := d.CreateWorkspace(t, "cap")
	r := m.Call(t, "run", map[string]any{"key": "long", "workspace": ws.ID, "shell": "echo started-long; exec sleep 120"})
	var st struct{ Run string }
	decodeText(t, r, &st)
	// Without the cap the first would wait for ever and the second a day;
	// both end at the cap with the record as it is now (the harness allows
	// a call 60 s).
	for _, args := range []map[string]any{{"run": st.Run}, {"run": st.Run, "timeout_ms": 86400000}} {
		w := m.Call(t, "run_wait", args)
		var res struct {
			Record struct {
				State  string
				Output struct{ Lines []string }
			}
			OutputSoFar struct{ Lines []string } `json:"output_so_far"`
			WaitEnded   string                   `json:"wait_ended"`
			Next        string
		}
		decodeText(t, w, &res)
		if w.IsError || res.WaitEnded != "timeout" || res.Record.State != "running" || !strings.Contains(res.Next, st.Run) ||
			!strings.Contains(strings.Join(res.OutputSoFar.Lines, "\n"), "started-long") {
			t.Fatalf("run_wait %v: want the running record with its output so far and how to go on, got isError=%v %s", args, w.IsError, w.Text)
		}
		if w.Structured == "" || harness.Normalize(t, w.Structured) != harness.Normalize(t, w.Text) {
			t.Fatalf("structured content and text differ: %s / %s", w.Structured, w.Text)
		}
	}
	m.Call(t, "run_cancel", map[string]any{"run": st.Run, "grace_ms": 0})
}

func TestMCPArgumentsTheSchemaRejectsAreInvalidParams(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	m := d.StartMCP(t, nil)
	for _, args := range []map[string]any{
		{"key": "k", "workspace": "w", "argv": "not a list"},
		{"workspace": "w", "argv": []string{"true"}},
		{"key": "k", "workspace": "w", "argv": []string{"true"}, "bogus": 1},
	} {
		if code := errCode(t, m.Call(t, "run", args)); code != "invalid_params.arguments" {
			t.Errorf("run %v: want invalid_params.arguments, got %s", args, code)
		}
	}
}

// cliRunOf finds the run started by the CLI with key.
func cliRunOf(t *testing.T, d *harness.Daemon, key string) string {
	t.Helper()
	var l struct{ Runs []struct{ Run string } }
	d.JSON(t, &l, "run", "list", "--key", key)
	if len(l.Runs) != 1 {
		t.Fatalf("run list --key %s: %v", key, l.Runs)
	}
	return l.Runs[0].Run
}

func TestSkillPrintsTheGeneratedGuide(t *testing.T) {
	t.Parallel()
	d := harness.Unstarted(t)
	r := d.CLI(t, "skill")
	if r.Code != 0 || r.Stdout != mcpschema.Skill() {
		t.Fatalf("signaltty skill must print SKILL.md:\n%s", r)
	}
	front, _, ok := strings.Cut(strings.TrimPrefix(r.Stdout, "---\n"), "\n---\n")
	if !strings.HasPrefix(r.Stdout, "---\n") || !ok || !strings.Contains(front, "name: signaltty\n") || !strings.Contains(front, "description: ") {
		t.Fatalf("SKILL.md must start with front matter naming and describing the skill:\n%s", front)
	}
	for _, tl := range mcpschema.Tools() {
		if !strings.Contains(r.Stdout, "MCP tool `"+tl.Name+"`") {
			t.Errorf("SKILL.md has no section for %s", tl.Name)
		}
	}
}

// runBoth starts the same command through the CLI (key cli-N) and MCP
// (key mcp-N), compares the replies, then waits for both and compares the
// records; the CLI's exit status must be the record's status. It returns
// the MCP run_wait result.
func runBoth(t *testing.T, d *harness.Daemon, m *harness.MCP, n int, cli []string, args map[string]any) harness.ToolResult {
	t.Helper()
	ck, mk := fmt.Sprintf("cli-%d", n), fmt.Sprintf("mcp-%d", n)
	args["key"] = mk
	st := same(t, d, m, append([]string{"run", "--key", ck}, cli...), "run", args)
	if st.IsError {
		return st
	}
	cr := cliRunOf(t, d, ck)
	r := d.CLI(t, "--json", "run", "wait", "--run", cr, "--timeout-ms", "20000", "--trim")
	w := m.Call(t, "run_wait", map[string]any{"run": runOf(t, m, mk), "timeout_ms": 20000})
	if cn, mn := harness.Normalize(t, mcpView(t, "run_wait", strings.TrimSuffix(r.Stdout, "\n"))), harness.Normalize(t, w.Text); cn != mn {
		t.Fatalf("run_wait differs from signaltty --json run wait:\nCLI: %s\nMCP: %s", cn, mn)
	}
	var rec struct{ Record struct{ Status *int } }
	decodeText(t, w, &rec)
	if rec.Record.Status == nil || *rec.Record.Status != r.Code {
		t.Fatalf("CLI exit status %d is not the record's status: %s", r.Code, w.Text)
	}
	return w
}

// field returns a record field of a run_wait result as JSON text.
func field(t *testing.T, r harness.ToolResult, name string) string {
	t.Helper()
	var rec struct{ Record map[string]json.RawMessage }
	decodeText(t, r, &rec)
	return string(rec.Record[name])
}

// The run/wait conformance cases that need no seams, each through both.
func TestMCPRunConformanceCasesEqualTheCLIs(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	m := d.StartMCP(t, nil, "--wait-cap-ms", fmt.Sprint(mcpWaitCap))
	ws := d.CreateWorkspace(t, "conformance")
	w := []string{"--workspace", ws.ID}
	in := func(kv ...any) map[string]any {
		a := map[string]any{"workspace": ws.ID}
		for i := 0; i < len(kv); i += 2 {
			a[kv[i].(string)] = kv[i+1]
		}
		return a
	}
	n := 0
	next := func() int { n++; return n }
	// 1, 2: succeeded and failed, exit statuses passed through
	for _, c := range []struct {
		cli    []string
		args   map[string]any
		status string
	}{
		{append(w, "--", "true"), in("argv", []string{"true"}), "0"},
		{append(w, "--shell", "exit 3"), in("shell", "exit 3"), "3"},
		{append(w, "--", "false"), in("argv", []string{"false"}), "1"},
		{append(w, "--shell", "nosuchcmd"), in("shell", "nosuchcmd"), "127"},
		{append(w, "--shell", "kill -SEGV $$"), in("shell", "kill -SEGV $$"), "139"}, // 4
	} {
		if got := field(t, runBoth(t, d, m, next(), c.cli, c.args), "status"); got != c.status {
			t.Fatalf("%v: status %s, want %s", c.cli, got, c.status)
		}
	}
	// 3: a program that cannot be executed
	script := d.Home + "/no-shebang"
	if err := os.WriteFile(script, []byte("echo hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, argv := range [][]string{{"/nonexistent/program"}, {"/etc/hostname"}, {script}} {
		k := next()
		r := runBoth(t, d, m, k, append(w, "--argv", argvJSON(argv...)), in("argv", argv))
		if code := errCode(t, r); code != "unavailable.spawn" {
			t.Fatalf("%v: %s", argv, r.Text)
		}
	}
	// 5: a deadline terminates
	if got := field(t, runBoth(t, d, m, next(), append(w, "--deadline-ms", "300", "--", "sleep", "100"), in("deadline_ms", 300, "argv", []string{"sleep", "100"})), "status"); got != "124" {
		t.Fatalf("deadline: status %s", got)
	}
	// 6, 7: a hung run: wait timeouts leave it running, cancel twice
	k := next()
	same(t, d, m, append([]string{"run", "--key", fmt.Sprintf("cli-%d", k)}, append(w, "--", "sleep", "100")...), "run",
		in("key", fmt.Sprintf("mcp-%d", k), "argv", []string{"sleep", "100"}))
	cr, mr := cliRunOf(t, d, fmt.Sprintf("cli-%d", k)), runOf(t, m, fmt.Sprintf("mcp-%d", k))
	for _, ms := range []string{"100", "0"} {
		waitEndsFirst(t, d, m, []string{"run", "wait", "--run", cr, "--timeout-ms", ms}, map[string]any{"run": mr, "timeout_ms": json.Number(ms)})
	}
	first := same(t, d, m, []string{"run", "cancel", "--run", cr, "--signal", "TERM"}, "run_cancel", map[string]any{"run": mr, "signal": "TERM"})
	if field(t, first, "cause") != `"cancel"` || field(t, first, "outcome") != `"terminated"` {
		t.Fatalf("cancel: %s", first.Text)
	}
	again := m.Call(t, "run_cancel", map[string]any{"run": mr, "signal": "TERM"})
	if again.Text != first.Text {
		t.Fatalf("a second cancel must return the identical record:\n%s\n%s", first.Text, again.Text)
	}
	// 12: a tail that is not complete, and the rows before it
	tail := runBoth(t, d, m, next(), append(w, "--", "seq", "1", "3000"), in("argv", []string{"seq", "1", "3000"}))
	var rec struct {
		Record struct {
			Pane   string
			Output struct {
				Complete bool
				Start    int
				Lines    []string
			}
		}
	}
	decodeText(t, tail, &rec)
	if rec.Record.Output.Complete || len(rec.Record.Output.Lines) != 100 {
		t.Fatalf("want the last 100 rows, not complete: complete=%v lines=%d", rec.Record.Output.Complete, len(rec.Record.Output.Lines))
	}
	before := m.Call(t, "pane_capture", map[string]any{"pane": rec.Record.Pane, "start": rec.Record.Output.Start - 3, "end": rec.Record.Output.Start})
	if before.IsError || !strings.Contains(before.Text, "2898") {
		t.Fatalf("rows before the tail: %s", before.Text)
	}
	// 13: output bounds
	wide := strings.Repeat("日", 40) // a full row of 80 cells, 120 bytes
	for _, c := range []struct {
		cli  []string
		args map[string]any
		rows int
	}{
		{append(w, "--output-bytes", "300", "--shell", "for i in 1 2 3 4; do echo "+wide+"; done"), in("output_bytes", 300, "shell", "for i in 1 2 3 4; do echo "+wide+"; done"), 2},
		{append(w, "--output-rows", "0", "--", "seq", "3"), in("output_rows", 0, "argv", []string{"seq", "3"}), 0},
	} {
		r := runBoth(t, d, m, next(), c.cli, c.args)
		var o struct {
			Record struct{ Output struct{ Lines []string } }
		}
		decodeText(t, r, &o)
		if len(o.Record.Output.Lines) != c.rows {
			t.Fatalf("%v: %d lines, want %d: %s", c.cli, len(o.Record.Output.Lines), c.rows, r.Text)
		}
	}
	// 15, 16: a repeat after a lost reply is reused; other parameters conflict
	k = next()
	runBoth(t, d, m, k, append(w, "--", "true"), in("argv", []string{"true"}))
	again = same(t, d, m, append([]string{"run", "--key", fmt.Sprintf("cli-%d", k)}, append(w, "--", "true")...), "run", in("key", fmt.Sprintf("mcp-%d", k), "argv", []string{"true"}))
	if !strings.Contains(again.Text, `"reused":true`) {
		t.Fatalf("repeat: %s", again.Text)
	}
	same(t, d, m, append([]string{"run", "--key", fmt.Sprintf("cli-%d", k)}, append(w, "--", "false")...), "run", in("key", fmt.Sprintf("mcp-%d", k), "argv", []string{"false"}))
	// 17: another daemon's source
	same(t, d, m, append([]string{"run", "--key", "cli-src", "--source", "signaltty/00000000-0000-0000-0000-000000000000"}, append(w, "--", "true")...), "run",
		in("key", "mcp-src", "source", "signaltty/00000000-0000-0000-0000-000000000000", "argv", []string{"true"}))
	// 18, 19: invalid parameters
	long := strings.Repeat("k", 129)
	for _, c := range []struct {
		cli  []string
		args map[string]any
	}{
		{[]string{"run", "--key", "bad key", "--workspace", ws.ID, "--", "true"}, in("key", "bad key", "argv", []string{"true"})},
		{[]string{"run", "--key", long, "--workspace", ws.ID, "--", "true"}, in("key", long, "argv", []string{"true"})},
		{[]string{"run", "--key", "cli-x", "--workspace", ws.ID}, in("key", "mcp-x")},
		{[]string{"run", "--key", "cli-x", "--workspace", ws.ID, "--shell", "true", "--", "true"}, in("key", "mcp-x", "shell", "true", "argv", []string{"true"})},
		{[]string{"run", "--key", "cli-x", "--", "true"}, map[string]any{"key": "mcp-x", "argv": []string{"true"}}},
		{[]string{"run", "--key", "cli-x", "--workspace", ws.ID, "--pane", "pane_x", "--", "true"}, in("key", "mcp-x", "pane", "pane_x", "argv", []string{"true"})},
		{[]string{"run", "--key", "cli-x", "--workspace", ws.ID, "--axis", "cols", "--", "true"}, in("key", "mcp-x", "axis", "cols", "argv", []string{"true"})},
	} {
		if r := same(t, d, m, c.cli, "run", c.args); !strings.HasPrefix(errCode(t, r), "invalid_params.") {
			t.Fatalf("%v: %s", c.cli, r.Text)
		}
	}
	// A NUL byte cannot reach the CLI through exec; MCP passes it on.
	if r := m.Call(t, "run", in("key", "mcp-nul", "shell", "a\x00b")); errCode(t, r) != "invalid_params.command" {
		t.Fatalf("shell with NUL: %s", r.Text)
	}
}

// A client that gives up on a run call (its response is lost) and repeats
// the identical request gets the same run, reused, and the command ran once
// (conformance case 15 through MCP).
func TestMCPRunRepeatedAfterAnAbandonedCallIsReused(t *testing.T) {
	t.Parallel()
	d, hooks := harness.StartHooks(t)
	m := d.StartMCP(t, nil)
	ws := d.CreateWorkspace(t, "abandoned")
	dir := harness.TempDir(t)
	key := "abandoned-after"
	args := map[string]any{"key": key, "workspace": ws.ID, "shell": harness.Mark(dir, key) + "; exit 0"}
	gate := filepath.Join(hooks, "barrier-after-"+key)
	harness.Touch(t, gate)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := m.Session.CallTool(ctx, &mcp.CallToolParams{Name: "run", Arguments: args})
		done <- err
	}()
	harness.WaitFile(t, filepath.Join(hooks, "reached-after-"+key))
	cancel() // the client gives up: notifications/cancelled, the call's connection closes
	if err := <-done; err == nil {
		t.Fatal("a cancelled tools/call returned a result")
	}
	harness.RemoveFile(t, gate)
	var st struct {
		Run    string
		Reused bool
	}
	decodeText(t, m.Call(t, "run", args), &st)
	if !st.Reused {
		t.Fatalf("the repeat of an abandoned start must be reused: %+v", st)
	}
	w := m.Call(t, "run_wait", map[string]any{"run": st.Run, "timeout_ms": 20000})
	if field(t, w, "outcome") != `"succeeded"` {
		t.Fatalf("run: %s", w.Text)
	}
	if c := harness.MarkCount(dir, key); c != 1 {
		t.Fatalf("the command ran %d times, want once", c)
	}
}

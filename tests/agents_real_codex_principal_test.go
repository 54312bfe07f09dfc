package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// codexSharedAppServer turns Codex's shared app-server back on (Codex's
// default, [features] daemon_auto_start) after `agent setup codex
// --write` turned it off.
func codexSharedAppServer(t *testing.T, w *realWorld) {
	t.Helper()
	f := filepath.Join(w.d.Home, ".codex", "config.toml")
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "daemon_auto_start = false") {
		t.Fatalf("agent setup codex --write did not turn daemon_auto_start off:\n%s", b)
	}
	writeFile(t, f, strings.Replace(string(b), "daemon_auto_start = false", "daemon_auto_start = true", 1))
}

// workspacePanes is the ids of the panes of workspace ws.
func workspacePanes(t *testing.T, d *harness.Daemon, ws string) []string {
	t.Helper()
	var r struct {
		Panes []struct {
			ID        string `json:"id"`
			Workspace string `json:"workspace"`
		} `json:"panes"`
	}
	d.JSON(t, &r, "pane", "list")
	var ids []string
	for _, p := range r.Panes {
		if p.Workspace == ws {
			ids = append(ids, p.ID)
		}
	}
	return ids
}

// allowCodexMCP waits until Codex sent the result of an MCP tool call
// of the turn prompted with prompt, answering its question before the
// call, when it asks (not for a read-only tool), with its first choice:
// Allow (once). It returns that request.
func allowCodexMCP(t *testing.T, w *realWorld, pane, prompt string) harness.ModelRequest {
	t.Helper()
	var got harness.ModelRequest
	harness.Eventually(t, agentTimeout, "the MCP tool's result, or Codex asking before the call", func() (bool, string) {
		for _, r := range w.model.Requests() {
			if len(r.ToolResultsAfter(prompt)) > 0 {
				got = r
				return true, ""
			}
		}
		c := w.d.Capture(t, pane)
		if c.Contains("Allow the signaltty MCP server to run tool") {
			w.d.JSON(t, nil, "pane", "send", "--pane", pane, "--key", "Enter")
		}
		return false, c.Dump()
	})
	return got
}

// paneProcess is a process of the user's and its name.
type paneProcess struct {
	pid  int
	comm string
}

// paneProcesses is the processes whose environment names pane
// (SIGNALTTY_PANE).
func paneProcesses(pane string) []paneProcess {
	var out []paneProcess
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if err != nil || !slices.Contains(strings.Split(string(env), "\x00"), "SIGNALTTY_PANE="+pane) {
			continue
		}
		comm, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "comm"))
		out = append(out, paneProcess{pid, strings.TrimSpace(string(comm))})
	}
	return out
}

// findKey is the first value named key in v, depth first.
func findKey(v any, key string) any {
	switch v := v.(type) {
	case map[string]any:
		if x, ok := v[key]; ok {
			return x
		}
		for _, x := range v {
			if f := findKey(x, key); f != nil {
				return f
			}
		}
	case []any:
		for _, x := range v {
			if f := findKey(x, key); f != nil {
				return f
			}
		}
	}
	return nil
}

// psTree is the user's processes with their parents, sessions and
// commands, for a failure's log.
func psTree() string {
	out, _ := exec.Command("ps", "-U", strconv.Itoa(os.Getuid()), "-o", "pid,ppid,sid,pgid,args", "--forest").CombinedOutput()
	return string(out)
}

// Two Codex panes in workspaces of their own, set up with `agent setup
// codex --write` (each codex runs its own app-server and MCP server,
// inside its pane): B's model calls signaltty's MCP run in B's workspace,
// and the run is B's (principal pane:B, in B's workspace, a pane of its
// own outside A's workspace) while A's codex runs, after A's codex exited,
// and after kill -9 of the daemon and B's resume; nothing appears in A's
// workspace and A's pane never takes B's session. A's end stops all of
// A's processes, its MCP server included.
func TestRealCodexRunOfOnePaneNeverTouchesAnother(t *testing.T) {
	forEachAgent(t, []string{"codex"}, func(t *testing.T, kind string) {
		codexTwoPanesRun(t, kind, false)
	})
}

// The same with Codex's default shared app-server (daemon_auto_start on:
// the first codex starts one `codex app-server --managed-daemon` that runs
// the MCP servers and hooks of every later codex): B's MCP run and A's are
// denied.shared_helper, naming the fix, never A's, B's nor the owner's; A's
// workspace is untouched, no pane takes a session id through the helper's
// hooks, and doctor names the helper and the pane it was started from.
// A's end stops the helper with A's other processes, so nothing of it is
// left to act as the owner.
func TestRealCodexSharedAppServerNeverActsAsAnotherPaneOrTheOwner(t *testing.T) {
	forEachAgent(t, []string{"codex"}, func(t *testing.T, kind string) {
		codexTwoPanesRun(t, kind, true)
	})
}

func codexTwoPanesRun(t *testing.T, kind string, shared bool) {
	w := newRealWorld(t, kind, nil, harness.Say("share-a0", "a answered"))
	addCodexMCP(t, w)
	if shared {
		codexSharedAppServer(t, w)
	}
	wsA := w.workspace(t, "proj-a")
	wsB := w.workspace(t, "proj-b")
	for _, k := range []string{"s1", "s2", "s3"} {
		w.model.Script(harness.CallTool("share-"+k, codexMCPTool("run"),
			map[string]any{"key": "share-" + k, "workspace": wsB, "shell": "echo share-ran-" + k}, "share "+k+" done"))
	}
	w.model.Script(harness.CallTool("share-a1", codexMCPTool("run"),
		map[string]any{"key": "share-a1", "workspace": wsA, "shell": "echo share-ran-a1"}, "share a1 done"))
	a := w.start(t, wsA)
	b := w.start(t, wsB)
	w.prompt(t, a.ID, "share-a0")
	w.waitScreen(t, a.ID, "a answered")
	panesA := workspacePanes(t, w.d, wsA)
	call := func(k string) {
		t.Helper()
		w.prompt(t, b.ID, "share-"+k)
		defer w.dumpOnFailure(t, b.ID)
		r := allowCodexMCP(t, w, b.ID, "share-"+k)
		res := r.ToolResults()[len(r.ToolResults())-1]
		unq := strings.ReplaceAll(res, `\"`, `"`)
		switch m := regexp.MustCompile(`"run":"(r[0-9]+)"`).FindStringSubmatch(unq); {
		case m != nil && shared:
			t.Errorf("%s: B's MCP run through the shared app-server came back as run %s, want denied.shared_helper:\n%s\n%s", k, m[1], res, psTree())
		case m != nil:
			var rec map[string]any
			out := w.d.JSON(t, &rec, "run", "get", "--run", m[1])
			principal, ws, pane := findKey(rec, "principal"), findKey(rec, "workspace"), findKey(rec, "pane")
			if principal != "pane:"+b.ID || ws != wsB || pane == b.ID || pane == a.ID {
				t.Errorf("%s: B's MCP run %s is %v's in %v (pane %v), want pane:%s in %s in a pane of its own (A is %s)\n%s\n%s", k, m[1], principal, ws, pane, b.ID, wsB, a.ID, out, psTree())
			}
			if out := w.d.CLI(t, "run", "wait", "--run", m[1], "--timeout-ms", "20000"); out.Code != 0 || !strings.Contains(out.Stdout, "share-ran-"+k) {
				t.Errorf("%s: run wait of B's MCP run: %s", k, out)
			}
		case !shared:
			t.Errorf("%s: B's MCP run came back without a run:\n%s\n%s", k, res, psTree())
		}
		if shared && (!strings.Contains(unq, "denied.shared_helper") || !strings.Contains(unq, "daemon_auto_start = false")) {
			t.Errorf("%s: B's MCP run through the shared app-server was not denied.shared_helper with its fix:\n%s\n%s", k, res, psTree())
		}
		if strings.Contains(unq, "owner") || strings.Contains(unq, a.ID) {
			t.Errorf("%s: B's MCP call acted as the owner or as A (%s):\n%s", k, a.ID, res)
		}
		if got := workspacePanes(t, w.d, wsA); strings.Join(got, ",") != strings.Join(panesA, ",") {
			t.Errorf("%s: A's workspace now has panes %v, was %v", k, got, panesA)
		}
		w.waitScreen(t, b.ID, "share "+k+" done")
	}
	call("s1")
	helper := 0 // the shared app-server's pid, as the denial names it
	if shared {
		// A's own MCP server runs under the same app-server: denied too.
		w.prompt(t, a.ID, "share-a1")
		r := allowCodexMCP(t, w, a.ID, "share-a1")
		res := strings.ReplaceAll(r.ToolResults()[len(r.ToolResults())-1], `\"`, `"`)
		if !strings.Contains(res, "denied.shared_helper") || strings.Contains(res, "owner") {
			t.Errorf("A's MCP run through the shared app-server was not denied.shared_helper:\n%s\n%s", res, psTree())
		}
		if got := workspacePanes(t, w.d, wsA); strings.Join(got, ",") != strings.Join(panesA, ",") {
			t.Errorf("A's denied MCP run: A's workspace now has panes %v, was %v", got, panesA)
		}
		if m := regexp.MustCompile(`"helper_pid":([0-9]+)`).FindStringSubmatch(res); m != nil {
			helper, _ = strconv.Atoi(m[1])
		}
		w.waitScreen(t, a.ID, "share a1 done")
		// doctor names the helper and the pane it was started from.
		if out := w.d.CLI(t, "doctor"); !strings.Contains(out.Stdout, "codex's shared helper (pid ") ||
			!strings.Contains(out.Stdout, "started from pane "+a.ID) || !strings.Contains(out.Stdout, "daemon_auto_start = false") {
			t.Errorf("doctor does not name Codex's shared app-server started from pane %s:\n%s", a.ID, out)
		}
		// Hooks run by the app-server are denied too: neither pane takes
		// a session id through it.
		for _, id := range []string{a.ID, b.ID} {
			if p := getAgentPane(t, w.d, id); p.session() != "" {
				t.Errorf("pane %s took session id %s through the shared app-server's hooks", id, p.session())
			}
		}
	}
	// A's processes, its MCP server among them (Codex passes it
	// SIGNALTTY_PANE, addCodexMCP): A's end stops every one.
	procsA := paneProcesses(a.ID)
	if !slices.ContainsFunc(procsA, func(p paneProcess) bool { return strings.HasPrefix(p.comm, "signaltty") }) {
		t.Errorf("no signaltty MCP server among A's processes: %+v", procsA)
	}
	w.d.Kill(t, a.ID)
	w.d.WaitExited(t, a.ID)
	for _, p := range procsA {
		harness.WaitGone(t, harness.PollTimeout, "A's "+p.comm+" after A's end", p.pid)
	}
	if shared {
		// A's end stopped the shared app-server with A's other processes
		// (it was started from A, and B's codex now only reconnects): no
		// process is left to act for B, A or the owner, and doctor no
		// longer names it.
		if !slices.ContainsFunc(procsA, func(p paneProcess) bool { return p.pid == helper }) {
			t.Errorf("the shared app-server (pid %d) was not among A's processes: %+v", helper, procsA)
		}
		if out := w.d.CLI(t, "doctor"); strings.Contains(out.Stdout, "shared helper (pid "+strconv.Itoa(helper)) {
			t.Errorf("doctor still names the stopped shared app-server %d:\n%s", helper, out)
		}
		return
	}
	call("s2")
	sid := w.waitPane(t, b.ID, "B's session id", func(p agentPane) bool { return p.session() != "" }).session()
	if p := getAgentPane(t, w.d, a.ID); p.session() == sid {
		t.Errorf("A's pane took B's session id %s", sid)
	}
	w.crashOnceSaved(t, sid)
	w.restart(t)
	w.resume(t, b.ID, sid)
	call("s3")
}

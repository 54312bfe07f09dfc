package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// Fake coding agents (tests/testdata/fake-agent): one script installed under
// each agent's name on a PATH of the test's own. Each appends a line with
// its argv and selected environment to $FAKE_MARKS/<name>.log, reports its
// session the way the real agent does (claude and codex through `signaltty
// hook` with payloads shaped as their hook documentation shows, the others
// through `signaltty report-session`), then obeys lines typed into its pane.

// agentWorld is a daemon whose panes find the fake agents on PATH.
type agentWorld struct {
	d     *harness.Daemon
	bin   string // the fake agents
	marks string // their logs
	env   []string
}

var fakeAgentNames = []string{"claude", "codex", "opencode", "cursor-agent", "gemini", "pi"}

func newAgentWorld(t *testing.T, extraEnv ...string) *agentWorld {
	t.Helper()
	root := harness.TempDir(t)
	w := &agentWorld{bin: filepath.Join(root, "bin"), marks: filepath.Join(root, "marks")}
	for _, d := range []string{w.bin, w.marks} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script, err := os.ReadFile(filepath.Join(harness.ModuleRoot(t), "tests", "testdata", "fake-agent"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range fakeAgentNames {
		if err := os.WriteFile(filepath.Join(w.bin, name), script, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(harness.Bin(t, "signaltty"), filepath.Join(w.bin, "signaltty")); err != nil {
		t.Fatal(err)
	}
	w.env = append([]string{"PATH=" + w.bin + ":" + os.Getenv("PATH"), "FAKE_MARKS=" + w.marks}, extraEnv...)
	w.d = harness.Start(t, harness.Options{Env: w.env})
	return w
}

// restart stops the daemon (SIGTERM: it saves) and starts a new one on the
// same state directory and environment.
func (w *agentWorld) restart(t *testing.T) {
	t.Helper()
	w.d.Stop(t)
	w.d = harness.Start(t, harness.Options{Dir: w.d.Dir, Env: w.env})
}

// runs are the lines fake agent name logged, one per start.
func (w *agentWorld) runs(name string) []string {
	b, _ := os.ReadFile(filepath.Join(w.marks, name+".log"))
	return strings.Split(strings.TrimSpace(string(b)), "\n")[:strings.Count(string(b), "\n")]
}

// waitRuns polls until fake agent name started n times and returns its lines.
func (w *agentWorld) waitRuns(t *testing.T, name string, n int) []string {
	t.Helper()
	harness.Eventually(t, harness.PollTimeout, fmt.Sprintf("%s started %d times", name, n), func() (bool, string) {
		return len(w.runs(name)) >= n, strings.Join(w.runs(name), "\n")
	})
	return w.runs(name)
}

// agentPane is a pane record with its agent.
type agentPane struct {
	ID           string `json:"id"`
	Title        string `json:"title"`
	State        string `json:"state"`
	RestoreState string `json:"restore_state"`
	Pid          *int   `json:"pid"`
	Agent        *struct {
		Kind           string            `json:"kind"`
		SessionID      string            `json:"session_id"`
		ResumeArgv     []string          `json:"resume_argv"`
		ResumeReported bool              `json:"resume_reported"`
		ConfigEnv      map[string]string `json:"config_env"`
	} `json:"agent"`
	Lifecycle   string  `json:"lifecycle"`
	Attention   string  `json:"attention"`
	LastMessage *string `json:"last_message"`
}

func (p agentPane) session() string {
	if p.Agent == nil {
		return ""
	}
	return p.Agent.SessionID
}

func getAgentPane(t *testing.T, d *harness.Daemon, id string) agentPane {
	t.Helper()
	var r struct {
		Pane agentPane `json:"pane"`
	}
	d.JSON(t, &r, "pane", "get", "--pane", id)
	return r.Pane
}

// waitAgent polls pane id until cond holds.
func waitAgent(t *testing.T, d *harness.Daemon, id, what string, cond func(agentPane) bool) agentPane {
	t.Helper()
	var p agentPane
	harness.Eventually(t, harness.PollTimeout, what, func() (bool, string) {
		p = getAgentPane(t, d, id)
		b, _ := json.Marshal(p)
		return cond(p), string(b)
	})
	return p
}

// spawnAgent starts fake agent name in a new tab of workspace ws with extra spawn flags.
func (w *agentWorld) spawnAgent(t *testing.T, ws, name string, flags ...string) agentPane {
	t.Helper()
	var r struct {
		Pane agentPane `json:"pane"`
	}
	args := append([]string{"pane", "spawn", "--workspace", ws}, flags...)
	w.d.JSON(t, &r, append(append(args, "--"), name)...)
	return r.Pane
}

// savedSnapshot reads the state directory's snapshot.json.
func savedSnapshot(t *testing.T, d *harness.Daemon) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(stateDir(d), "snapshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

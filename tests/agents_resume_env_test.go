package tests

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

type restarted struct {
	Pane    agentPane `json:"pane"`
	EnvLost []string  `json:"env_lost"`
}

// A resume gives the agent back its credentials: while the daemon runs the
// pane's launch environment is kept in memory; after a restart resume names
// the variables it lost (names only) and --env gives them again, for that
// start only (never saved).
func TestResumeEnvGivesCredentialsBackAndNamesWhatARestartLost(t *testing.T) {
	t.Parallel()
	w := newAgentWorld(t)
	d := w.d
	d.CreateWorkspace(t, "proj")
	const sid = "0b7e4c2a-0000-4000-8000-0000000000e1"
	const key, again = "sk-ant-canary-launch-51c2", "sk-ant-canary-again-77d0"
	p := w.spawnAgent(t, "proj", "claude", "--env", "FAKE_SESSION="+sid, "--env", "ANTHROPIC_API_KEY="+key)
	waitAgent(t, d, p.ID, "session", func(p agentPane) bool { return p.session() == sid })

	// While the daemon runs: a resume after the agent exited keeps the key.
	d.JSON(t, nil, "pane", "kill", "--pane", p.ID)
	var r restarted
	d.JSON(t, &r, "resume", p.ID)
	if len(r.EnvLost) != 0 {
		t.Errorf("nothing is lost while the daemon runs: %q", r.EnvLost)
	}
	runs := w.waitRuns(t, "claude", 2)
	if !strings.Contains(runs[1], "argv=--resume "+sid+"|") || !strings.Contains(runs[1], "ANTHROPIC_API_KEY="+key+"|") {
		t.Errorf("in-memory resume ran %q", runs[1])
	}

	w.restart(t)
	d = w.d
	grepTree(t, stateDir(d), key)
	res := d.CLI(t, "resume", p.ID)
	if res.Code != 0 || !strings.Contains(res.Stderr, "ANTHROPIC_API_KEY") || strings.Contains(res.Stderr, key) {
		t.Fatalf("resume after a restart must name the lost variables, never their values: %s", res)
	}
	runs = w.waitRuns(t, "claude", 3)
	if !strings.Contains(runs[2], "ANTHROPIC_API_KEY=|") {
		t.Errorf("a restart kept the key: %q", runs[2])
	}

	d.JSON(t, nil, "pane", "kill", "--pane", p.ID)
	r = restarted{}
	d.JSON(t, &r, "resume", p.ID, "--env", "ANTHROPIC_API_KEY="+again)
	if slices.Contains(r.EnvLost, "ANTHROPIC_API_KEY") || !slices.Contains(r.EnvLost, "FAKE_SESSION") {
		t.Errorf("env_lost %q, want FAKE_SESSION and not the key given again", r.EnvLost)
	}
	runs = w.waitRuns(t, "claude", 4)
	if !strings.Contains(runs[3], "ANTHROPIC_API_KEY="+again+"|") {
		t.Errorf("resume --env ran %q", runs[3])
	}
	raw := d.CLI(t, "--json", "pane", "get", "--pane", p.ID)
	if strings.Contains(raw.Stdout, again) {
		t.Errorf("pane get shows a value given with --env: %s", raw.Stdout)
	}
	d.Fail(t, "invalid_params.env", 2, "pane", "relaunch", "--pane", d.Spawn(t, []string{"--workspace", "proj"}, "true").ID, "--env", "1BAD=x")
	d.Stop(t)
	grepTree(t, stateDir(d), again)
	grepTree(t, stateDir(d), key)
}

// A shell pane in which the agent ran stays a shell: its resume starts the
// shell and types the agent's resume command into it; when the agent
// exits (a failed resume) the shell is still there and the pane's command
// is still the shell.
func TestShellPaneResumeKeepsTheShell(t *testing.T) {
	t.Parallel()
	w := newAgentWorld(t)
	d := w.d
	d.CreateWorkspace(t, "proj")
	const sid = "0b7e4c2a-0000-4000-8000-0000000000e2"
	sh := d.Spawn(t, []string{"--workspace", "proj", "--env", "PS1=$ ", "--env", "FAKE_SESSION=" + sid}, "bash", "--norc", "--noprofile", "-i")
	d.JSON(t, nil, "pane", "send", "--pane", sh.ID, "--text", "claude\r")
	waitAgent(t, d, sh.ID, "the agent's session", func(p agentPane) bool { return p.session() == sid })
	w.restart(t)
	d = w.d
	if p := getAgentPane(t, d, sh.ID); p.RestoreState != "RESUMABLE" {
		t.Fatalf("restored as %+v", p)
	}
	var r restarted
	d.JSON(t, &r, "resume", sh.ID)
	runs := w.waitRuns(t, "claude", 2)
	if !strings.Contains(runs[1], "argv=--resume "+sid+"|") {
		t.Errorf("the shell did not run the resume command: %q", runs[1])
	}
	d.JSON(t, nil, "pane", "send", "--pane", sh.ID, "--text", "exit\r")
	d.JSON(t, nil, "pane", "send", "--pane", sh.ID, "--text", "echo shell-still-$((6*7))\r")
	d.WaitLine(t, sh.ID, "shell-still-42")
	var g struct {
		Pane struct {
			Argv  []string `json:"argv"`
			State string   `json:"state"`
		} `json:"pane"`
	}
	out := d.CLI(t, "--json", "pane", "get", "--pane", sh.ID)
	if err := json.Unmarshal([]byte(out.Stdout), &g); err != nil || len(g.Pane.Argv) == 0 || g.Pane.Argv[0] != "bash" || g.Pane.State != "live" {
		t.Errorf("the pane's command is no longer the shell: %s", out.Stdout)
	}
}

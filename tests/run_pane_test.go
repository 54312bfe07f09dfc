package tests

// A run's pane is an ordinary pane: it is listed, captured, sent input,
// killed and removed like a spawned one, and an interactive command in it
// is answered through pane send (docs/run-wait.md).

import (
	"strconv"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// A run in a split pane prompts; the answer comes through pane send; the
// run completes from its leader's exit and its output is what the pane
// shows.
func TestRunInteractiveInSplitPane(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "interactive").ID
	var recs []harness.RunRecord
	for _, tr := range harness.Both(d) {
		live := d.Spawn(t, []string{"--workspace", ws}, "sleep", "100") // one each: a split halves it
		t.Cleanup(func() { d.CLI(t, "pane", "kill", "--pane", live.ID, "--grace-ms", "200") })
		st := tr.MustStart(t, harness.RunSpec{Key: "ask-" + tr.Short(), Pane: live.ID, Axis: "cols",
			Shell: harness.Ptr(`printf 'name? '; read x; echo "hello $x"; exit 0`)})
		if st.Tab != live.Tab {
			t.Errorf("a split run's pane is in tab %s, want the split pane's %s", st.Tab, live.Tab)
		}
		_, tabs, _ := d.GetWorkspace(t, ws)
		if !contains(tabOf(t, tabs, live.Tab).Layout.Leaves(), st.Pane) {
			t.Errorf("the run's pane is not in the layout: %s", layoutString(tabOf(t, tabs, live.Tab).Layout))
		}
		d.WaitLine(t, st.Pane, "name?")
		d.WantRunning(t, st.Run, "while prompting")
		r := tr.Call(t, "dev.signaltty.Mux.SendInput", map[string]any{"pane": st.Pane, "text": "world\n"},
			"pane", "send", "--pane", st.Pane, "--text", `world\n`)
		if r.Err != nil {
			t.Fatalf("send via %s: %s", tr.Name, r)
		}
		rec := d.WaitBoth(t, st.Run)
		harness.WantOutcome(t, rec, "succeeded", harness.Ptr(0), "", "", 0)
		out := rec.MustOutput(t)
		if got := strings.Join(harness.TrimLines(out.Lines), "|"); got != "name? world|hello world" {
			t.Errorf("output %q, want the prompt, the echoed answer and the greeting", got)
		}
		c := d.Capture(t, st.Pane, "--start", strconv.Itoa(out.Start), "--end", strconv.Itoa(out.End))
		harness.SameJSON(t, "the output and the pane's rows", out.Lines, c.Lines)
		recs = append(recs, rec)
	}
	harness.SameRecords(t, "records via the CLI and via varlinkctl", recs...)
	t.Run("attach shows the same bytes", func(t *testing.T) {
		// A human attaches to the run's pane (in a real terminal emulator,
		// tmux), sees the prompt as the pane has it, types the answer; the
		// run completes from its leader's exit and the attach ends.
		harness.NeedTmux(t)
		tr := harness.CLIOf(d)
		live := d.Spawn(t, []string{"--workspace", ws}, "sleep", "100")
		t.Cleanup(func() { d.CLI(t, "pane", "kill", "--pane", live.ID, "--grace-ms", "200") })
		st := tr.MustStart(t, harness.RunSpec{Key: "ask-attached", Pane: live.ID, Axis: "cols",
			Shell: harness.Ptr(`read -p 'name? ' x; echo "hello $x"; exit 0`)})
		d.WaitLine(t, st.Pane, "name?")
		p := d.GetPane(t, st.Pane)
		m := d.Tmux(t, p.Cols, p.Rows, "signaltty", "attach", st.Pane)
		harness.Eventually(t, harness.PollTimeout, "the attached screen is the pane's", func() (bool, string) {
			c := d.Capture(t, st.Pane)
			diff := harness.SameRows(m.Screen(t), c)
			return diff == "", diff
		})
		m.SendText(t, "human")
		m.SendKeys(t, "Enter")
		rec := d.WaitBoth(t, st.Run)
		harness.WantOutcome(t, rec, "succeeded", harness.Ptr(0), "", "", 0)
		out := rec.MustOutput(t)
		if got := strings.Join(harness.TrimLines(out.Lines), "|"); got != "name? human|hello human" {
			t.Errorf("output %q, want the prompt, the typed answer and the greeting", got)
		}
		if code := m.WaitEnded(t); code != 0 {
			t.Errorf("attach exited %d after the run's leader exited", code)
		}
		if got := strings.Join(m.Screen(t), "\n"); !strings.Contains(got, "["+st.Pane+" exited with status 0]") {
			t.Errorf("the attach did not end with the pane's exit:\n%s", got)
		}
	})
}

// A run's pane is listed like a spawned one, with the same environment
// plus SIGNALTTY_RUN, its wait status as the pane's, plain removal refused
// while live, captured, killed (cause pane_kill) and removed as any pane;
// the record outlives its pane.
func TestRunPaneIsOrdinaryPane(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "ordinary-pane").ID
	spawned := d.Spawn(t, []string{"--workspace", ws}, "sleep", "100")
	t.Cleanup(func() { d.CLI(t, "pane", "kill", "--pane", spawned.ID, "--grace-ms", "200") })
	for _, tr := range harness.Both(d) {
		st := tr.MustStart(t, harness.RunSpec{Key: "plain-" + tr.Short(), Workspace: ws, Argv: []string{"sleep", "100"}, Name: harness.Ptr("named-" + tr.Short())})
		p := d.GetPane(t, st.Pane)
		if p.State != "live" || p.PID() != st.Pid || p.Argv0 != "sleep" || p.Cwd != spawned.Cwd || p.Cols != 80 || p.Rows != 24 || p.Tab != st.Tab || p.Workspace != ws {
			t.Errorf("the run's pane %+v, want a live 80x24 sleep pane like %+v", p, spawned)
		}
		if !contains(paneIDs(d.ListPanes(t, "--workspace", ws)), st.Pane) {
			t.Errorf("pane list does not list the run's pane")
		}
		_, tabs, _ := d.GetWorkspace(t, ws)
		if tb := tabOf(t, tabs, st.Tab); tb.Title != "named-"+tr.Short() {
			t.Errorf("tab title %q, want the run's name", tb.Title)
		}
		// Environment: the spawned pane's plus SIGNALTTY_RUN.
		env, base := harness.Environ(t, st.Pid), harness.Environ(t, spawned.PID())
		if env["SIGNALTTY_RUN"] != st.Run || env["SIGNALTTY_PANE"] != st.Pane {
			t.Errorf("SIGNALTTY_RUN %q SIGNALTTY_PANE %q, want %s and %s", env["SIGNALTTY_RUN"], env["SIGNALTTY_PANE"], st.Run, st.Pane)
		}
		delete(env, "SIGNALTTY_RUN")
		delete(env, "SIGNALTTY_PANE")
		delete(base, "SIGNALTTY_PANE")
		harness.SameJSON(t, "the environment of a run and of a spawned pane", env, base)
		if _, ok := base["SIGNALTTY_RUN"]; ok {
			t.Errorf("a spawned pane has SIGNALTTY_RUN")
		}
		// A live pane is not removed without kill.
		r := tr.Call(t, "dev.signaltty.Mux.RemovePane", map[string]any{"pane": st.Pane}, "pane", "remove", "--pane", st.Pane)
		harness.WantError(t, r, "conflict.pane_live", nil)
		d.WantRunning(t, st.Run, "after a refused removal")
		// Kill with a signal: the pane's status and the run's agree.
		k := tr.Call(t, "dev.signaltty.Mux.KillPane", map[string]any{"pane": st.Pane, "signal": "TERM"}, "pane", "kill", "--pane", st.Pane, "--signal", "TERM")
		if k.Err != nil {
			t.Fatalf("kill: %s", k)
		}
		rec := d.WaitBoth(t, st.Run)
		harness.WantOutcome(t, rec, "terminated", nil, "SIGTERM", "pane_kill", 125)
		if got := d.GetPane(t, st.Pane); got.State != "exited" || got.Signal() != "SIGTERM" {
			t.Errorf("pane after kill: %+v", got)
		}
		d.Capture(t, st.Pane)
		rm := tr.Call(t, "dev.signaltty.Mux.RemovePane", map[string]any{"pane": st.Pane}, "pane", "remove", "--pane", st.Pane)
		if rm.Err != nil {
			t.Fatalf("remove: %s", rm)
		}
		harness.SameJSON(t, "the record after its pane's removal", rec, d.GetBoth(t, st.Run, nil))
	}
	t.Run("existing pane suites", func(t *testing.T) {
		t.Log("the pane, terminal and event tests of this package (e2e_*_test.go) run unchanged with `go test ./tests/`")
	})
}

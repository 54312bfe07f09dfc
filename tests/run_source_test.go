package tests

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// Run keys and records end with every daemon: a client naming the source it
// got them from must not reach another daemon's run.
func TestRunSourceGuardOnEveryVerb(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	d.CreateWorkspace(t, "src")
	var st struct {
		Run    string `json:"run"`
		Source string `json:"source"`
	}
	d.JSON(t, &st, "run", "--key", "s1", "--workspace", "src", "--", "true")
	d.JSON(t, &struct{}{}, "run", "wait", "--run", st.Run, "--source", st.Source)
	d.JSON(t, &struct{}{}, "run", "get", "--run", st.Run, "--source", st.Source)
	old := "signaltty/00000000-0000-4000-8000-000000000000"
	for _, verb := range [][]string{{"run", "wait"}, {"run", "get"}, {"run", "cancel"}} {
		e := d.Fail(t, "conflict.source", 5, append(verb, "--run", st.Run, "--source", old)...)
		if e.Data["source"] != st.Source {
			t.Errorf("%v: data.source %v, want the current %s", verb, e.Data["source"], st.Source)
		}
	}
}

// Run ids never repeat for one state directory: after kill -9 and a
// restart, an id of the earlier daemon is not found (unknown) instead of
// naming another run, and new runs get ids above every earlier one
// (docs/run-wait.md, "Run ids and source").
func TestRunIDsNeverRepeatAfterKill9(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	d.CreateWorkspace(t, "ids")
	earlier := map[string]bool{}
	highest := -1
	for _, key := range []string{"a", "b", "c"} {
		var st struct{ Run string }
		d.JSON(t, &st, "run", "--key", key, "--workspace", "ids", "--", "true")
		d.JSON(t, &struct{}{}, "run", "wait", "--run", st.Run)
		earlier[st.Run] = true
		n, err := strconv.Atoi(strings.TrimPrefix(st.Run, "r"))
		if err != nil {
			t.Fatalf("run id %q", st.Run)
		}
		highest = max(highest, n)
	}
	syscall.Kill(d.Pid(), syscall.SIGKILL)
	d.WaitExit(t, 10*time.Second)
	os.Remove(d.Socket)

	d2 := harness.Start(t, harness.Options{Dir: d.Dir})
	stale := func(when string) {
		t.Helper()
		for id := range earlier {
			e := d2.Fail(t, "not_found.run", 3, "run", "wait", "--run", id, "--timeout-ms", "0")
			if e.Data["reason"] != "unknown" {
				t.Errorf("run wait --run %s %s: reason %v, want unknown", id, when, e.Data["reason"])
			}
		}
	}
	stale("after the restart")
	d2.CreateWorkspace(t, "ids2")
	for _, key := range []string{"a", "d"} {
		var st struct{ Run string }
		d2.JSON(t, &st, "run", "--key", key, "--workspace", "ids2", "--", "true")
		n, err := strconv.Atoi(strings.TrimPrefix(st.Run, "r"))
		if err != nil || earlier[st.Run] || n <= highest {
			t.Errorf("a run after the restart got id %s; the earlier daemon gave %v", st.Run, earlier)
		}
		var rec struct {
			Record struct {
				Run   string `json:"run"`
				State string `json:"state"`
			} `json:"record"`
		}
		d2.JSON(t, &rec, "run", "wait", "--run", st.Run)
		if rec.Record.Run != st.Run || rec.Record.State != "completed" {
			t.Errorf("run wait --run %s: %+v", st.Run, rec.Record)
		}
	}
	stale("after new runs")
}

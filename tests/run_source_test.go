package tests

import (
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// Run ids restart at r0 with every daemon: a client naming the source it
// got them from must not reach another daemon's run.
func TestRunSourceGuardOnEveryVerb(t *testing.T) {
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

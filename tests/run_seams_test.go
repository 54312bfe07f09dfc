package tests

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// The production daemon has no test seams (harness.StartHooks builds the
// variant that has them): with SIGNALTTY_TEST_HOOKS set and barrier and
// hold files present, a start neither waits nor leaves a reached- file,
// and a cancel is not held.
func TestRunProductionDaemonHasNoTestSeams(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	hooks := harness.TempDir(t)
	d := harness.Start(t, harness.Options{Env: []string{"SIGNALTTY_TEST_HOOKS=" + hooks}})
	ws := d.CreateWorkspace(t, "seams").ID
	for _, tr := range harness.Both(d) {
		key := "seam-" + tr.Short()
		for _, phase := range []string{"before", "after"} {
			harness.Touch(t, filepath.Join(hooks, "barrier-"+phase+"-"+key))
		}
		// A daemon that honoured the barriers would hold this start until
		// they are gone (never): the reached- files say which it stopped at.
		st := tr.MustStart(t, harness.ShellSpec(key, ws, "exec sleep 100"))
		for _, phase := range []string{"before", "after"} {
			if harness.Exists(filepath.Join(hooks, "reached-"+phase+"-"+key)) {
				t.Errorf("the production daemon reached a test barrier (%s)", phase)
			}
		}
		harness.Touch(t, filepath.Join(hooks, "hold-"+strconv.Itoa(st.Pid)))
		r := tr.Cancel(t, st.Run, "", harness.Ptr(0))
		if r.Err != nil {
			t.Errorf("cancel with a hold file present: %s", r)
		} else {
			harness.WantOutcome(t, r.Record(t), "terminated", nil, "SIGHUP", "cancel", 125)
		}
	}
	if strings.Contains(d.Stderr(), "testhook") {
		t.Errorf("the daemon mentions test hooks:\n%s", d.Stderr())
	}
}

package tests

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// A start that fails uses up a run id but makes no run: that id reads as
// unknown, never expired, and status and doctor count only the runs that
// started. An id whose run started and was evicted reads as expired.
func TestFailedRunStartsLeaveUnknownIDsAndAreNotCounted(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "runs")
	cli := harness.CLIOf(d)
	bad := []harness.RunSpec{
		harness.ArgvSpec("bad-cwd-1", ws.ID, "true"),
		harness.ArgvSpec("bad-cwd-2", ws.ID, "true"),
		harness.ArgvSpec("bad-program", ws.ID, "/nonexistent/signaltty-test-program"),
	}
	bad[0].Cwd = "/nonexistent/signaltty-test-dir"
	bad[1].Cwd = "/nonexistent/signaltty-test-dir"
	for _, s := range bad {
		if r := cli.Start(t, s); r.Err == nil {
			t.Fatalf("start %s succeeded: %s", s.Key, r)
		}
	}
	good := cli.MustStart(t, harness.ArgvSpec("good", ws.ID, "true"))
	rec := cli.Wait(t, good.Run, nil, nil).Record(t)
	if rec.State != "completed" {
		t.Fatalf("run %s: %+v", good.Run, rec)
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(good.Run, "r"))
	for i := 0; i < n; i++ { // every id before it was taken by a failed start, if by anything
		id := "r" + strconv.Itoa(i)
		r := cli.Get(t, id, nil)
		if r.Err == nil || r.Err.Code != "not_found.run" || fmt.Sprint(r.Err.Data["reason"]) != "unknown" {
			t.Errorf("run get --run %s (never a run): %s, want not_found.run with reason unknown", id, r)
		}
	}

	if st := d.Status(t); st.Runs.Started != 1 {
		t.Errorf("status: runs.started %d after one run that started and %d that failed, want 1", st.Runs.Started, len(bad))
	}
	doc := d.CLI(t, "doctor")
	if m := regexp.MustCompile(`(\d+) started since start`).FindStringSubmatch(doc.Stdout); m == nil || m[1] != "1" {
		t.Errorf("doctor must count the one run that started:\n%s", doc.Stdout)
	}

	// Evicted, the run that started reads as expired.
	d.JSON(t, &struct{}{}, "config", "set", "--run-retain-count", "0")
	if r := cli.Get(t, good.Run, nil); r.Err == nil || r.Err.Code != "not_found.run" || fmt.Sprint(r.Err.Data["reason"]) != "expired" {
		t.Errorf("run get --run %s (evicted): %s, want not_found.run with reason expired", good.Run, r)
	}
}

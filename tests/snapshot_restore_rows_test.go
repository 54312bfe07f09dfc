package tests

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// restoreReply is the reply of `snapshot restore --json`.
type restoreReply struct {
	Kept     *string `json:"kept"`
	RowsKept *bool   `json:"rows_kept"`
}

// restoredCapture is a capture with the count of rows a restore brought back.
type restoredCapture struct {
	harness.Capture
	RestoredRows int64 `json:"restored_rows"`
}

func captureRestored(t *testing.T, d *harness.Daemon, pane string) restoredCapture {
	t.Helper()
	var c restoredCapture
	d.JSON(t, &c, "pane", "capture", "--pane", pane) // for the end of the rows
	end := strconv.FormatInt(c.End, 10)
	d.JSON(t, &c, "pane", "capture", "--pane", pane, "--start", strconv.FormatInt(c.Oldest, 10), "--end", end)
	return c
}

func (c restoredCapture) count(line string) int {
	n := 0
	for _, l := range c.Trimmed() {
		if l == line {
			n++
		}
	}
	return n
}

// onlyCopy returns the name of the one copy in snapshots/ (the first save of
// a state directory is kept).
func onlyCopy(t *testing.T, d *harness.Daemon) string {
	t.Helper()
	var list struct {
		Snapshots []struct {
			Name     string `json:"name"`
			RowsKept *bool  `json:"rows_kept"`
		} `json:"snapshots"`
	}
	d.JSON(t, &list, "snapshot", "list")
	if len(list.Snapshots) != 1 {
		t.Fatalf("snapshot list: %+v", list)
	}
	if rk := list.Snapshots[0].RowsKept; rk == nil || !*rk {
		t.Errorf("snapshot list: the newest copy must say it kept its rows: %+v", list.Snapshots[0])
	}
	return list.Snapshots[0].Name
}

func restoreSnapshot(t *testing.T, d *harness.Daemon, name string) restoreReply {
	t.Helper()
	var r restoreReply
	d.JSON(t, &r, "snapshot", "restore", name)
	if r.Kept == nil || *r.Kept == name || r.RowsKept == nil || !*r.RowsKept {
		t.Fatalf("restore of %s: kept %q rows_kept %v, want the name of a new copy and rows kept", name, harness.Deref(r.Kept), r.RowsKept)
	}
	return r
}

// A restore keeps the state it replaces with its rows: restoring that copy
// (made just before a restore, or an older one) gives the panes back with
// the rows they had, in their capture, their history tail and above the
// output of a relaunch.
func TestSnapshotRestoreKeepsRowsBothWays(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	d.CreateWorkspace(t, "first")
	p1 := d.Spawn(t, []string{"--workspace", "first"}, "sh", "-c", "echo first-row-one; echo first-row-two")
	d.WaitExited(t, p1.ID)
	d.JSON(t, &struct{}{}, "save")
	oldest := onlyCopy(t, d)
	withP1 := *restoreSnapshot(t, d, oldest).Kept

	d.CreateWorkspace(t, "second")
	p2 := d.Spawn(t, []string{"--workspace", "second"}, "sh", "-c", "echo second-row")
	d.WaitExited(t, p2.ID)
	withP2 := *restoreSnapshot(t, d, withP1).Kept
	if c := captureRestored(t, d, p1.ID); c.RestoredRows == 0 || c.count("first-row-one") != 1 || c.count("first-row-two") != 1 {
		t.Errorf("pane %s restored from %s without its rows (restored_rows %d):\n%s", p1.ID, withP1, c.RestoredRows, c.Dump())
	}
	if _, ok := restoredPanes(t, d)[p2.ID]; ok {
		t.Fatalf("pane %s is not in %s but came back", p2.ID, withP1)
	}

	// The copy of the state just replaced brings it back, rows included.
	restoreSnapshot(t, d, withP2)
	if c := captureRestored(t, d, p2.ID); c.RestoredRows == 0 || c.count("second-row") != 1 {
		t.Errorf("pane %s restored from %s without its rows (restored_rows %d):\n%s", p2.ID, withP2, c.RestoredRows, c.Dump())
	}
	tail, err := os.ReadFile(filepath.Join(stateDir(d), "history", p2.ID+".tail"))
	if err != nil || !strings.Contains(string(tail), "second-row") {
		t.Errorf("history/%s.tail after the restore: %q %v", p2.ID, tail, err)
	}
	// A relaunch keeps the restored rows above its new output.
	d.JSON(t, &struct{}{}, "pane", "relaunch", "--pane", p2.ID)
	d.WaitExited(t, p2.ID)
	if c := captureRestored(t, d, p2.ID); c.count("second-row") != 2 {
		t.Errorf("relaunched pane %s: want its restored row above the new one:\n%s", p2.ID, c.Dump())
	}
}

// Restoring a copy that kept no rows (one older than the newest copies that
// keep them) rebuilds its panes without rows and says so.
func TestSnapshotRestoreOfACopyWithoutRowsSaysSo(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	d.CreateWorkspace(t, "w")
	p := d.Spawn(t, []string{"--workspace", "w"}, "sh", "-c", "echo only-row")
	d.WaitExited(t, p.ID)
	d.JSON(t, &struct{}{}, "save")
	name := *restoreSnapshot(t, d, onlyCopy(t, d)).Kept
	tails := filepath.Join(stateDir(d), "snapshots", strings.TrimSuffix(name, ".json")+".tails")
	if _, err := os.Stat(filepath.Join(tails, p.ID+".tail")); err != nil {
		t.Fatalf("the copy kept no tail of pane %s: %v", p.ID, err)
	}
	if err := os.RemoveAll(tails); err != nil { // as for a copy past the newest that keep rows
		t.Fatal(err)
	}
	r := d.CLI(t, "snapshot", "restore", name)
	if r.Code != 0 || !strings.Contains(r.Stdout, "kept no rows") || !strings.Contains(r.Stdout, "is kept as snapshot-") {
		t.Fatalf("restore of a copy without rows must say so and name the copy it kept:\n%s", r)
	}
	if c := captureRestored(t, d, p.ID); c.RestoredRows != 0 {
		t.Errorf("restored_rows %d from a copy without rows", c.RestoredRows)
	}
}

// doctor tells a restore at start from one made while running: when, from
// which copy, and where the state it replaced is kept.
func TestDoctorTellsARuntimeRestoreFromTheStartOne(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	d.CreateWorkspace(t, "w")
	d.JSON(t, &struct{}{}, "save")
	doc := d.CLI(t, "doctor")
	if !strings.Contains(doc.Stdout, "restored at start from: empty") || strings.Contains(doc.Stdout, "at runtime") {
		t.Fatalf("doctor before any restore:\n%s", doc.Stdout)
	}
	name := onlyCopy(t, d)
	kept := *restoreSnapshot(t, d, name).Kept
	doc = d.CLI(t, "doctor")
	for _, want := range []string{
		"restored at start from: empty",
		"restored at runtime ",
		"from: snapshots/" + name,
		"kept as snapshots/" + kept,
	} {
		if !strings.Contains(doc.Stdout, want) {
			t.Errorf("doctor after a restore while running lacks %q:\n%s", want, doc.Stdout)
		}
	}
	if strings.Contains(doc.Stdout, "restored at start from: snapshots/") {
		t.Errorf("doctor reports a runtime restore as the start-up one:\n%s", doc.Stdout)
	}
}

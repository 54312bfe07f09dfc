package tests

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// stateTmpfs makes a daemon directory whose state/ is a tmpfs of size
// (root only: permission bits do not stop root, a full file system does).
func stateTmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs for the state directory needs root")
	}
	dir := harness.TempDir(t)
	mnt := filepath.Join(dir, "state")
	if err := os.MkdirAll(mnt, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "mode=0700,size="+size); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(mnt, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", mnt, err)
		}
	})
	return dir
}

// fill writes path until the file system is full.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling %s: %v", path, err)
			}
			return
		}
	}
}

// snapshotPaneIDs reads the pane ids of the snapshot in a state directory.
func snapshotPaneIDs(t *testing.T, dir string) map[string]bool {
	t.Helper()
	var snap struct {
		Panes []struct {
			ID string `json:"id"`
		} `json:"panes"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "snapshot.json"))
	if err != nil || json.Unmarshal(b, &snap) != nil {
		t.Fatalf("snapshot.json: %v\n%.500s", err, b)
	}
	ids := map[string]bool{}
	for _, p := range snap.Panes {
		ids[p.ID] = true
	}
	return ids
}

// The state directory's file system fills up: Server.Save fails with its
// code, status and doctor show why, the daemon keeps serving, the previous
// snapshot stays loadable (a daemon started on a copy restores its panes as
// tombstones), and once space returns the next save succeeds.
func TestStateDirectoryFullDuringSave(t *testing.T) {
	t.Parallel()
	dir := stateTmpfs(t, "4m")
	d := harness.Start(t, harness.Options{Dir: dir})
	d.CreateWorkspace(t, "w")
	first := d.Spawn(t, []string{"--workspace", "w"}, "sh", "-c", "echo first-pane; exec sleep 1000")
	d.WaitLine(t, first.ID, "first-pane")
	c := d.Dial(t)
	var saved struct {
		Path  string `json:"path"`
		Bytes int    `json:"bytes"`
	}
	harness.MustCall(t, c, "dev.signaltty.Server.Save", nil, &saved)

	filler := filepath.Join(dir, "state", "filler")
	fill(t, filler)
	second := d.Spawn(t, []string{"--workspace", "w"}, "sh", "-c", "echo second-pane; exec sleep 1000")
	d.WaitLine(t, second.ID, "second-pane")
	var out map[string]any
	err := harness.Call(t, c, "dev.signaltty.Server.Save", nil, &out)
	if err == nil {
		t.Fatalf("a save into a full file system succeeded: %v", out)
	}
	harness.CheckCallError(t, err, "dev.signaltty.Server.Internal", "internal")
	if !strings.Contains(err.Message, "no space left") {
		t.Errorf("the save's error does not say why: %v", err)
	}
	if p := statusPersistence(t, d); p.LastError == nil || !strings.Contains(*p.LastError, "no space left") {
		t.Errorf("status after the failed save: %+v", p)
	}
	if r := d.CLI(t, "doctor"); !strings.Contains(r.Stdout+r.Stderr, "the last save failed") {
		t.Errorf("doctor does not report the failed save:\n%s", r)
	}
	var js struct {
		Status struct {
			Journal struct {
				Error *string `json:"error"`
			} `json:"journal"`
		} `json:"status"`
	}
	d.JSON(t, &js, "status")
	if js.Status.Journal.Error != nil {
		t.Logf("the event journal while the file system is full: %s", *js.Status.Journal.Error)
	}
	// The daemon keeps serving and the panes keep running.
	for _, p := range []harness.Pane{first, second} {
		if g := d.GetPane(t, p.ID); g.State != "live" {
			t.Errorf("pane %s after the failed save: %s", p.ID, g.State)
		}
	}
	// The snapshot on disk is the previous one, and it loads.
	state := filepath.Join(dir, "state", "signaltty")
	if ids := snapshotPaneIDs(t, state); !ids[first.ID] || ids[second.ID] {
		t.Errorf("snapshot after the failed save has panes %v, want the first save's (%s only)", ids, first.ID)
	}
	copyDir := harness.TempDir(t)
	os.MkdirAll(filepath.Join(copyDir, "state"), 0o700)
	if out, err := exec.Command("cp", "-a", state, filepath.Join(copyDir, "state", "signaltty")).CombinedOutput(); err != nil {
		t.Fatalf("copying the state directory: %v\n%s", err, out)
	}
	d2 := harness.Start(t, harness.Options{Dir: copyDir})
	if p := statusPersistence(t, d2); p.RestoredFrom != "snapshot.json" {
		t.Errorf("a daemon on the copy restored from %q", p.RestoredFrom)
	}
	restored := restoredPanes(t, d2)
	if p, ok := restored[first.ID]; !ok || p.State != "exited" || p.RestoreState != "RESTORED" {
		t.Errorf("the first pane on the copy: %+v (present %v)", p, ok)
	}
	if _, ok := restored[second.ID]; ok {
		t.Errorf("the pane spawned after the last good save was restored from the copy")
	}
	d2.Stop(t)

	// Space returns: the next save succeeds and clears the error.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	harness.MustCall(t, c, "dev.signaltty.Server.Save", nil, &saved)
	if p := statusPersistence(t, d); p.LastError != nil {
		t.Errorf("last_error after the save that succeeded: %s", *p.LastError)
	}
	if ids := snapshotPaneIDs(t, state); !ids[first.ID] || !ids[second.ID] {
		t.Errorf("snapshot after space returned has panes %v, want both", ids)
	}
}

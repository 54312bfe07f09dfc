package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

// tmpfs mounts a tmpfs on a new directory (root with CAP_SYS_ADMIN only:
// permission bits do not stop root, a read-only or full file system does).
func tmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "mode=0700,size="+size); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(mnt, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", mnt, err)
		}
	})
	return mnt
}

func remount(t *testing.T, mnt string, flags uintptr, data string) {
	t.Helper()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", syscall.MS_REMOUNT|flags, data); err != nil {
		t.Fatalf("remount %s: %v", mnt, err)
	}
}

func TestSaveReadOnlyFileSystem(t *testing.T) {
	mnt := tmpfs(t, "4m")
	dir := filepath.Join(mnt, "state")
	s := Open(dir)
	tails := map[string][]string{"pane_1": rows80(0, 10)}
	mustSave(t, s, fullSnapshot(), tails)
	before := tree(t, dir)

	remount(t, mnt, syscall.MS_RDONLY, "")
	changed := fullSnapshot()
	changed.Workspaces[0].Name = "changed"
	tails["pane_1"] = rows80(1, 10)
	res, err := s.Save(changed, tails)
	if !errors.Is(err, syscall.EROFS) || !strings.Contains(err.Error(), filepath.Join(dir, FileName)) {
		t.Fatalf("Save on a read-only file system: %v", err)
	}
	if !strings.Contains(err.Error(), filepath.Join(dir, historyDir, "pane_1.tail")) {
		t.Errorf("the error does not name the tail: %v", err)
	}
	if res.Bytes != 0 || res.Rotated != "" {
		t.Errorf("SaveResult %+v", res)
	}
	if after := tree(t, dir); !reflect.DeepEqual(before, after) {
		t.Error("a failed save changed the state directory")
	}
	// A fresh state directory cannot be created either.
	if _, err := Open(filepath.Join(mnt, "new")).Save(fullSnapshot(), nil); !errors.Is(err, syscall.EROFS) {
		t.Errorf("Save into a new directory on a read-only file system: %v", err)
	}

	remount(t, mnt, 0, "")
	res = mustSave(t, s, changed, tails)
	if res.TailsWritten != 1 {
		t.Errorf("retry wrote %d tails", res.TailsWritten)
	}
	got, gotTails, _ := mustLoad(t, Open(dir))
	if got.Workspaces[0].Name != "changed" || !reflect.DeepEqual(gotTails["pane_1"], tails["pane_1"]) {
		t.Error("the retried save did not land")
	}
	noTemps(t, dir)
}

func TestSaveDiskFull(t *testing.T) {
	mnt := tmpfs(t, "1m")
	dir := filepath.Join(mnt, "state")
	s := Open(dir, WithRotation(0, 0))
	mustSave(t, s, fullSnapshot(), map[string][]string{"pane_1": {"small"}})
	before := tree(t, dir)

	// Fill the file system, then save a larger snapshot.
	filler := filepath.Join(mnt, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("f"), 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			break
		}
	}
	f.Close()
	big := fullSnapshot()
	for i := 0; i < 200; i++ {
		big.Notifications = append(big.Notifications, Notification{ID: fmt.Sprint("n", i), Title: strings.Repeat("t", 500)})
	}
	tails := map[string][]string{"pane_1": rows80(0, 1000), "pane_2": rows80(0, 1000)}
	res, err := s.Save(big, tails)
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), filepath.Join(dir, FileName)) {
		t.Fatalf("Save on a full file system: %v", err)
	}
	if res.Bytes != 0 {
		t.Errorf("SaveResult %+v", res)
	}
	if after := tree(t, dir); !reflect.DeepEqual(before, after) {
		t.Error("a failed save changed the state directory")
	}
	noTemps(t, dir)

	// Space again: the same save goes through.
	os.Remove(filler)
	res = mustSave(t, s, big, tails)
	if res.TailsWritten != 2 {
		t.Errorf("retry wrote %d tails", res.TailsWritten)
	}
	got, gotTails, _ := mustLoad(t, Open(dir))
	if len(got.Notifications) != MaxNotifications || len(gotTails["pane_2"]) != MaxTailBytes/81 {
		t.Errorf("after the retry: %d notifications, %d rows", len(got.Notifications), len(gotTails["pane_2"]))
	}
}

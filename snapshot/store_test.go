package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestFixtureIsFull(t *testing.T) {
	if z := zeroFields(reflect.ValueOf(fullSnapshot()), "Snapshot"); len(z) > 0 {
		t.Fatalf("the round-trip fixture leaves fields unset: %v", z)
	}
}

func TestRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	clock := newClock()
	s := Open(dir, WithClock(clock.Now))
	tails := map[string][]string{
		"pane_1": rows80(0, 10),
		"pane_2": {"$ make", "", "ok  \tgithub.com/x\t0.1s", ""},
	}
	res := mustSave(t, s, fullSnapshot(), tails)
	if res.Path != filepath.Join(dir, FileName) || res.Bytes <= 0 || res.Duration <= 0 || res.TailsWritten != 2 {
		t.Errorf("SaveResult = %+v", res)
	}
	if fi, err := os.Stat(res.Path); err != nil || fi.Size() != res.Bytes {
		t.Errorf("snapshot.json: %v, size %d, want %d", err, fi.Size(), res.Bytes)
	}

	got, gotTails, info := mustLoad(t, Open(dir))
	want := fullSnapshot()
	want.Server.SavedAt = clock.Now()
	if !reflect.DeepEqual(got, want) {
		a, _ := json.MarshalIndent(got, "", " ")
		b, _ := json.MarshalIndent(want, "", " ")
		t.Errorf("loaded snapshot differs:\n got %s\nwant %s", a, b)
	}
	if !reflect.DeepEqual(gotTails, tails) {
		t.Errorf("tails = %q, want %q", gotTails, tails)
	}
	if info.Missing || info.CorruptBackup != "" || info.FromVersion != Version || len(info.Warnings) > 0 || len(info.RemovedTails) > 0 {
		t.Errorf("LoadInfo = %+v", info)
	}

	for path, mode := range map[string]os.FileMode{
		dir: 0o700 | os.ModeDir, filepath.Join(dir, historyDir): 0o700 | os.ModeDir,
		filepath.Join(dir, rotateDir): 0o700 | os.ModeDir, res.Path: 0o600,
		filepath.Join(dir, historyDir, "pane_1.tail"): 0o600,
		res.Rotated: 0o600,
	} {
		if fi, err := os.Stat(path); err != nil || fi.Mode() != mode {
			t.Errorf("%s: %v, mode %v, want %v", path, err, fi.Mode(), mode)
		}
	}
	data, _ := os.ReadFile(res.Path)
	if !bytes.HasPrefix(data, []byte("{\n  \"snapshot_version\": 2,\n  \"server\": {\n")) || !bytes.HasSuffix(data, []byte("}\n")) {
		t.Errorf("snapshot.json is not indented JSON:\n%.200s", data)
	}
}

func TestSaveStamps(t *testing.T) {
	clock := newClock()
	s := Open(t.TempDir(), WithClock(clock.Now))
	snap := fullSnapshot()
	snap.SnapshotVersion, snap.Server.Protocol = 0, "old"
	mustSave(t, s, snap, nil)
	if snap.SnapshotVersion != Version || snap.Server.Protocol != Protocol || !snap.Server.SavedAt.Equal(clock.Now()) {
		t.Errorf("Save stamped %d %q %v", snap.SnapshotVersion, snap.Server.Protocol, snap.Server.SavedAt)
	}
}

func TestSaveLeavesNoTemps(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	for i := 0; i < 5; i++ {
		mustSave(t, s, fullSnapshot(), map[string][]string{"pane_1": rows80(i, 100+i)})
	}
	noTemps(t, dir)

	// Temporary files a crash left are removed by the next Load.
	for _, p := range []string{
		filepath.Join(dir, "."+FileName+tmpInfix+"123"),
		filepath.Join(dir, historyDir, ".pane_1.tail"+tmpInfix+"9"),
	} {
		if err := os.WriteFile(p, []byte("half"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	mustLoad(t, Open(dir))
	noTemps(t, dir)
}

// countingSyncer records fsyncs and can fail them.
type countingSyncer struct {
	mu    sync.Mutex
	files []string // temporary files synced
	dirs  []string
	fail  func(kind, path string) error
}

func (c *countingSyncer) syncer() syncer {
	return syncer{
		file: func(f *os.File) error {
			c.mu.Lock()
			c.files = append(c.files, f.Name())
			fail := c.fail
			c.mu.Unlock()
			if fail != nil {
				if err := fail("file", f.Name()); err != nil {
					return err
				}
			}
			return f.Sync()
		},
		dir: func(p string) error {
			c.mu.Lock()
			c.dirs = append(c.dirs, p)
			fail := c.fail
			c.mu.Unlock()
			if fail != nil {
				if err := fail("dir", p); err != nil {
					return err
				}
			}
			return syncDir(p)
		},
	}
}

func TestSaveFsyncs(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "state")
	c := &countingSyncer{}
	s := Open(dir)
	s.sync = c.syncer()
	tails := map[string][]string{"pane_1": rows80(0, 5), "pane_2": rows80(5, 5)}
	mustSave(t, s, fullSnapshot(), tails)

	// Every file written was fsynced under a temporary name in its own
	// directory, and each directory was fsynced.
	wantFiles := []string{
		filepath.Join(dir, historyDir, ".pane_1.tail"),
		filepath.Join(dir, historyDir, ".pane_2.tail"),
		filepath.Join(dir, "."+FileName),
		filepath.Join(dir, rotateDir, ".snapshot-"),
	}
	if len(c.files) != len(wantFiles) {
		t.Fatalf("file fsyncs %q, want %d", c.files, len(wantFiles))
	}
	slices.Sort(c.files[:2]) // tails are written concurrently
	for i, w := range wantFiles {
		if !strings.HasPrefix(c.files[i], w) || !strings.Contains(c.files[i], tmpInfix) {
			t.Errorf("file fsync #%d on %s, want a temporary %s…", i, c.files[i], w)
		}
	}
	// The rotated copy's tails directory is built under a temporary name
	// (fsynced before it is renamed into place), then snapshots/ itself.
	tailsTmp := filepath.Join(dir, rotateDir, ".snapshot-")
	wantDirs := []string{root, dir, filepath.Join(dir, historyDir), dir, dir, tailsTmp, filepath.Join(dir, rotateDir)}
	if len(c.dirs) != len(wantDirs) || !strings.HasPrefix(c.dirs[5], tailsTmp) || !strings.Contains(c.dirs[5], ".tails.tmp-") ||
		!reflect.DeepEqual(slices.Delete(slices.Clone(c.dirs), 5, 6), slices.Delete(slices.Clone(wantDirs), 5, 6)) {
		t.Errorf("directory fsyncs %q, want %q (the sixth a temporary …tails.tmp-…)", c.dirs, wantDirs)
	}

	// An unchanged re-save before rotation is due fsyncs snapshot.json and
	// the state directory only.
	c.files, c.dirs = nil, nil
	mustSave(t, s, fullSnapshot(), tails)
	if len(c.files) != 1 || !reflect.DeepEqual(c.dirs, []string{dir}) {
		t.Errorf("re-save fsyncs files %q, directories %q", c.files, c.dirs)
	}

	// A failing fsync of snapshot.json's temporary file: an error naming the
	// file, the old snapshot intact, nothing left over.
	before := tree(t, dir)
	c.fail = func(kind, p string) error {
		if kind == "file" && strings.HasPrefix(filepath.Base(p), "."+FileName) {
			return errors.New("injected EIO")
		}
		return nil
	}
	changed := fullSnapshot()
	changed.Workspaces[0].Name = "renamed"
	_, err := s.Save(changed, tails)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, FileName)) || !strings.Contains(err.Error(), "injected EIO") {
		t.Fatalf("Save with a failing fsync: %v", err)
	}
	if after := tree(t, dir); !reflect.DeepEqual(before, after) {
		t.Errorf("a failed save changed the state directory")
	}
	noTemps(t, dir)

	// A failing fsync of a tail: reported, snapshot.json still written.
	c.fail = func(kind, p string) error {
		if kind == "file" && strings.Contains(p, ".pane_2.tail") {
			return errors.New("injected tail EIO")
		}
		return nil
	}
	tails["pane_2"] = rows80(100, 3)
	res, err := s.Save(changed, tails)
	if err != nil || res.TailErr == nil || !strings.Contains(res.TailErr.Error(), "pane_2.tail") {
		t.Fatalf("Save with a failing tail fsync: %v, tail error %v", err, res.TailErr)
	}
	noTemps(t, dir)

	// Once fsync works again, the next save writes the tail it missed.
	c.fail = nil
	res = mustSave(t, s, changed, tails)
	if res.TailsWritten != 1 {
		t.Errorf("retry wrote %d tails, want 1", res.TailsWritten)
	}
	_, got, _ := mustLoad(t, Open(dir))
	if !reflect.DeepEqual(got["pane_2"], tails["pane_2"]) {
		t.Errorf("tail after retry = %q", got["pane_2"])
	}
}

func TestTailTrim(t *testing.T) {
	// 1000 rows of 80 bytes: 81 bytes each with the newline, 809 fit.
	rows := rows80(0, 1000)
	got := TrimTail(rows)
	fit := MaxTailBytes / 81
	want := strings.Join(rows[len(rows)-fit:], "\n")
	if string(got) != want {
		t.Fatalf("TrimTail kept %d bytes, want the last %d rows (%d bytes)", len(got), fit, len(want))
	}
	if len(got)+1 > MaxTailBytes || len(got)+1+81 <= MaxTailBytes {
		t.Errorf("TrimTail size %d does not fill %d with whole rows", len(got), MaxTailBytes)
	}

	// Exact fit, mixed lengths, and a row too long to fit at all.
	exact := []string{strings.Repeat("x", MaxTailBytes-6), "ab", "c"} // (n+1)+(2+1)+(1+1) = Max
	if got := TrimTail(exact); len(got) != MaxTailBytes-1 {
		t.Errorf("exact fit: %d bytes, want %d", len(got), MaxTailBytes-1)
	}
	over := []string{strings.Repeat("x", MaxTailBytes-5), "ab", "c"}
	if got := string(TrimTail(over)); got != "ab\nc" {
		t.Errorf("one byte over: %q, want %q", got, "ab\nc")
	}
	if got := TrimTail([]string{strings.Repeat("y", MaxTailBytes)}); len(got) != 0 {
		t.Errorf("a single oversized row kept %d bytes", len(got))
	}

	// Through Save and Load.
	dir := t.TempDir()
	mustSave(t, Open(dir), fullSnapshot(), map[string][]string{"pane_1": rows})
	data, err := os.ReadFile(filepath.Join(dir, historyDir, "pane_1.tail"))
	if err != nil || string(data) != want {
		t.Fatalf("tail file: %v, %d bytes, want %d", err, len(data), len(want))
	}
	_, tails, _ := mustLoad(t, Open(dir))
	if !reflect.DeepEqual(tails["pane_1"], rows[len(rows)-fit:]) {
		t.Errorf("loaded %d rows, want the newest %d", len(tails["pane_1"]), fit)
	}

	// A tail file grown beyond the bound on disk is read from its end.
	big := strings.Join(rows80(0, 2000), "\n")
	if err := os.WriteFile(filepath.Join(dir, historyDir, "pane_1.tail"), []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	_, tails, _ = mustLoad(t, Open(dir))
	if got := tails["pane_1"]; len(got) != fit || got[len(got)-1] != rows80(1999, 1)[0] {
		t.Errorf("oversized file: %d rows, want the newest %d", len(got), fit)
	}
}

func inode(t *testing.T, path string) (uint64, time.Time) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino, fi.ModTime()
}

func TestTailUnchangedNotRewritten(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	tails := map[string][]string{"pane_1": rows80(0, 900), "pane_2": rows80(1, 5)}
	mustSave(t, s, fullSnapshot(), tails)
	p1 := filepath.Join(dir, historyDir, "pane_1.tail")
	p2 := filepath.Join(dir, historyDir, "pane_2.tail")
	ino1, m1 := inode(t, p1)
	ino2, _ := inode(t, p2)

	// Older rows beyond the bound change nothing on disk.
	tails["pane_1"] = append(rows80(-50, 50), tails["pane_1"]...)
	res := mustSave(t, s, fullSnapshot(), tails)
	if res.TailsWritten != 0 {
		t.Errorf("unchanged re-save wrote %d tails", res.TailsWritten)
	}
	if i, m := inode(t, p1); i != ino1 || !m.Equal(m1) {
		t.Errorf("unchanged tail rewritten: inode %d→%d, mtime %v→%v", ino1, i, m1, m)
	}

	// A changed tail is replaced (new inode), the other one is not.
	tails["pane_2"] = append(tails["pane_2"], "new row")
	if res := mustSave(t, s, fullSnapshot(), tails); res.TailsWritten != 1 {
		t.Errorf("wrote %d tails, want 1", res.TailsWritten)
	}
	if i, _ := inode(t, p2); i == ino2 {
		t.Errorf("changed tail kept its inode")
	}
	if i, _ := inode(t, p1); i != ino1 {
		t.Errorf("unchanged tail rewritten")
	}

	// A tail deleted behind the Store's back is written again.
	os.Remove(p1)
	if res := mustSave(t, s, fullSnapshot(), tails); res.TailsWritten != 1 {
		t.Errorf("wrote %d tails after a deletion, want 1", res.TailsWritten)
	}

	// A new Store that loaded the tails does not rewrite them either.
	s2 := Open(dir)
	snap, loaded, _ := mustLoad(t, s2)
	ino1, _ = inode(t, p1)
	if res := mustSave(t, s2, snap, loaded); res.TailsWritten != 0 {
		t.Errorf("re-save of loaded tails wrote %d", res.TailsWritten)
	}
	if i, _ := inode(t, p1); i != ino1 {
		t.Errorf("loaded tail rewritten")
	}

	// A pane absent from tails keeps its file.
	if res := mustSave(t, s2, snap, map[string][]string{"pane_2": loaded["pane_2"]}); res.TailsWritten != 0 {
		t.Errorf("wrote %d", res.TailsWritten)
	}
	if _, err := os.Stat(p1); err != nil {
		t.Errorf("tail of a pane without an entry: %v", err)
	}
}

func TestStaleTailsRemovedOnSave(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	snap := fullSnapshot()
	mustSave(t, s, snap, map[string][]string{"pane_1": {"a"}, "pane_2": {"b"}})
	other := filepath.Join(dir, historyDir, "notes.txt")
	os.WriteFile(other, []byte("x"), 0o600)

	// pane_2 goes: its tail goes with the save, other files stay.
	snap.Panes = snap.Panes[:1]
	snap.Tabs[0].Layout = &Layout{Kind: "pane", Pane: "pane_1"}
	snap.Tabs[0].ActivePane = "pane_1"
	mustSave(t, s, snap, map[string][]string{"pane_1": {"a"}, "pane_2": {"b"}})
	if _, err := os.Stat(filepath.Join(dir, historyDir, "pane_2.tail")); !os.IsNotExist(err) {
		t.Errorf("stale tail kept: %v", err)
	}
	for _, p := range []string{filepath.Join(dir, historyDir, "pane_1.tail"), other} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
}

func TestOrphanTailsRemovedOnLoad(t *testing.T) {
	dir := t.TempDir()
	mustSave(t, Open(dir), fullSnapshot(), map[string][]string{"pane_1": {"a"}})
	orphan := filepath.Join(dir, historyDir, "pane_gone.tail")
	os.WriteFile(orphan, []byte("old"), 0o600)
	_, tails, info := mustLoad(t, Open(dir))
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Errorf("orphan kept: %v", err)
	}
	if !reflect.DeepEqual(info.RemovedTails, []string{"pane_gone.tail"}) || len(tails) != 1 {
		t.Errorf("RemovedTails %q, tails %q", info.RemovedTails, tails)
	}
}

func TestTailFileNames(t *testing.T) {
	for _, id := range []string{"pane_0a1b2c", "A-z_09"} {
		if got := TailFile(id); got != id+".tail" {
			t.Errorf("TailFile(%q) = %q", id, got)
		}
	}
	if TailFile("") != "" {
		t.Error("an empty id has a tail file")
	}
	seen := map[string]string{}
	for _, id := range []string{"../../etc/passwd", "..etcpasswd", "a/b", "a.b", "ab", "a b", strings.Repeat("p", 500), "é"} {
		name := TailFile(id)
		if strings.ContainsAny(strings.TrimSuffix(name, ".tail"), "./ \\") || len(name) > 100 || name == ".tail" {
			t.Errorf("TailFile(%q) = %q", id, name)
		}
		if prev, ok := seen[name]; ok {
			t.Errorf("%q and %q share %q", prev, id, name)
		}
		seen[name] = id
	}

	// A pane id with a slash gets its tail back.
	dir := t.TempDir()
	snap := fullSnapshot()
	snap.Panes[1].ID = "../pane/2"
	snap.Tabs[0].Layout.Second.Pane = "../pane/2"
	snap.Tabs[0].ActivePane = "../pane/2"
	mustSave(t, Open(dir), snap, map[string][]string{"../pane/2": {"hello"}})
	_, tails, info := mustLoad(t, Open(dir))
	if !reflect.DeepEqual(tails["../pane/2"], []string{"hello"}) || len(info.Warnings) > 0 {
		t.Errorf("tails %q, warnings %q", tails, info.Warnings)
	}
	for name := range tree(t, dir) {
		if !strings.HasPrefix(name, historyDir+"/") && name != FileName && !strings.HasPrefix(name, rotateDir+"/") {
			t.Errorf("unexpected file %s", name)
		}
	}
}

func TestLoadMissing(t *testing.T) {
	snap, tails, info, err := Open(filepath.Join(t.TempDir(), "none")).Load()
	if snap != nil || tails != nil || err != nil || !info.Missing {
		t.Errorf("Load of a missing snapshot: %v %v %+v %v", snap, tails, info, err)
	}
}

func TestLoadCorrupt(t *testing.T) {
	valid, _ := json.MarshalIndent(fullSnapshot(), "", "  ")
	cases := map[string][]byte{
		"garbage":     []byte("not json at all\x00\xff"),
		"truncated":   valid[:len(valid)/2],
		"zero-length": {},
		"whitespace":  []byte(" \n"),
		"array":       []byte("[1,2]"),
		"null":        []byte("null"),
		"wrong type":  []byte(`{"snapshot_version":1,"panes":[{"id":"p","cols":"wide"}]}`),
		"bad version": []byte(`{"snapshot_version":"one"}`),
		"negative":    []byte(`{"snapshot_version":-1}`),
		"trailing":    append(append([]byte{}, valid...), []byte("}garbage")...),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			clock := newClock()
			path := filepath.Join(dir, FileName)
			os.WriteFile(path, data, 0o600)
			os.MkdirAll(filepath.Join(dir, historyDir), 0o700)
			tail := filepath.Join(dir, historyDir, "pane_1.tail")
			os.WriteFile(tail, []byte("kept"), 0o600)

			s := Open(dir, WithClock(clock.Now))
			snap, tails, info, err := s.Load()
			if err != nil || snap != nil || tails != nil {
				t.Fatalf("Load: %v, %v, %v", snap, tails, err)
			}
			want := filepath.Join(dir, "snapshot.corrupt-20260314T150926Z.json")
			if info.CorruptBackup != want || info.Err == nil || !strings.Contains(info.Err.Error(), path) {
				t.Fatalf("LoadInfo = %+v", info)
			}
			if b, err := os.ReadFile(want); err != nil || !bytes.Equal(b, data) {
				t.Errorf("backup %v: %q", err, b)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("snapshot.json still there: %v", err)
			}
			if _, err := os.Stat(tail); err != nil {
				t.Errorf("tails of an unreadable snapshot must be left alone: %v", err)
			}
			// The daemon starts empty and may save.
			if _, err := s.Save(&Snapshot{}, nil); err != nil {
				t.Errorf("empty save after a corrupt load: %v", err)
			}
		})
	}
}

func TestCorruptBackupNeverOverwritten(t *testing.T) {
	dir := t.TempDir()
	clock := newClock()
	path := filepath.Join(dir, FileName)
	for i := 0; i < 3; i++ {
		os.WriteFile(path, []byte(fmt.Sprintf("{broken %d", i)), 0o600)
		_, _, info, err := Open(dir, WithClock(clock.Now)).Load()
		if err != nil || info.CorruptBackup == "" {
			t.Fatalf("Load %d: %+v %v", i, info, err)
		}
	}
	got := tree(t, dir)
	want := map[string][]byte{
		"snapshot.corrupt-20260314T150926Z.json":   []byte("{broken 0"),
		"snapshot.corrupt-20260314T150926Z-1.json": []byte("{broken 1"),
		"snapshot.corrupt-20260314T150926Z-2.json": []byte("{broken 2"),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("state directory %q, want %q", got, want)
	}
}

func TestLoadFutureVersion(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	data := []byte(`{"snapshot_version": 7, "workspaces": "a new shape", "panes": 3}`)
	os.WriteFile(path, data, 0o600)
	os.MkdirAll(filepath.Join(dir, historyDir), 0o700)
	os.WriteFile(filepath.Join(dir, historyDir, "p.tail"), []byte("x"), 0o600)
	before := tree(t, dir)

	s := Open(dir)
	snap, tails, _, err := s.Load()
	var fv *FutureVersionError
	if !errors.As(err, &fv) || snap != nil || tails != nil {
		t.Fatalf("Load: %v %v %v", snap, tails, err)
	}
	if fv.Found != 7 || fv.Supported != Version || fv.Path != path || !strings.Contains(err.Error(), path) {
		t.Errorf("FutureVersionError = %+v: %v", fv, err)
	}
	// This Store will not replace it, with an empty state or any other.
	if _, err := s.Save(&Snapshot{}, nil); !errors.Is(err, ErrWouldEraseSnapshot) {
		t.Errorf("empty save: %v", err)
	}
	if _, err := s.Save(fullSnapshot(), nil); !errors.As(err, &fv) {
		t.Errorf("save: %v", err)
	}
	if after := tree(t, dir); !reflect.DeepEqual(before, after) {
		t.Errorf("the state directory changed")
	}
}

func TestMigrationsTable(t *testing.T) {
	for v, m := range migrations {
		if m == nil {
			t.Errorf("no migration from version %d", v)
		}
	}
}

func TestMigrateV0(t *testing.T) {
	// A snapshot from before versioning: no snapshot_version, no
	// restore_state, no agent config_env.
	v0 := `{
  "server": {"version": "0.1.0", "saved_at": "2025-12-01T10:00:00Z", "protocol": "dev.signaltty/1"},
  "workspaces": [{"id": "ws_1", "name": "w", "handle": "w", "cwd": "/", "tabs": ["tab_1"], "active_tab": "tab_1", "created_at": "2025-12-01T09:00:00Z"}],
  "tabs": [{"id": "tab_1", "workspace": "ws_1", "title": "t", "created_at": "2025-12-01T09:00:00Z",
            "layout": {"kind": "split", "axis": "rows", "ratio": 0.5,
                       "first": {"kind": "pane", "pane": "pane_1"}, "second": {"kind": "pane", "pane": "pane_2"}}}],
  "panes": [
    {"id": "pane_1", "workspace": "ws_1", "tab": "tab_1", "argv": ["bash"], "cols": 80, "rows": 24, "state": "live",
     "agent": {"kind": "codex", "session_id": "s1"}, "created_at": "2025-12-01T09:00:00Z"},
    {"id": "pane_2", "workspace": "ws_1", "tab": "tab_1", "argv": ["make"], "cols": 80, "rows": 24, "state": "exited",
     "status": {"code": 2}, "created_at": "2025-12-01T09:00:00Z"}
  ]
}`
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, FileName), []byte(v0), 0o600)
	s := Open(dir)
	snap, _, info := mustLoad(t, s)
	if info.FromVersion != 0 || len(info.Warnings) > 0 {
		t.Errorf("LoadInfo = %+v", info)
	}
	if snap.SnapshotVersion != Version {
		t.Errorf("snapshot_version %d", snap.SnapshotVersion)
	}
	if rs := []string{snap.Panes[0].RestoreState, snap.Panes[1].RestoreState}; !reflect.DeepEqual(rs, []string{RestoreLive, RestoreExited}) {
		t.Errorf("restore states %q", rs)
	}
	if a := snap.Panes[0].Agent; a == nil || a.SessionID != "s1" || a.ConfigEnv != nil || snap.Notifications != nil {
		t.Errorf("agent %+v, notifications %v", a, snap.Notifications)
	}
	if snap.Panes[1].Status == nil || *snap.Panes[1].Status.Code != 2 {
		t.Errorf("status %+v", snap.Panes[1].Status)
	}
	// Saved again, it is a current snapshot.
	mustSave(t, s, snap, nil)
	if _, _, info := mustLoad(t, Open(dir)); info.FromVersion != Version {
		t.Errorf("re-saved version %d", info.FromVersion)
	}
	// snapshot_version 0 written out means the same.
	os.WriteFile(filepath.Join(dir, FileName), []byte(strings.Replace(v0, "{", `{"snapshot_version": 0,`, 1)), 0o600)
	if snap, _, info := mustLoad(t, Open(dir)); info.FromVersion != 0 || snap.Panes[1].RestoreState != RestoreExited {
		t.Errorf("explicit v0: %+v", info)
	}
}

func TestLoadRepairsReferences(t *testing.T) {
	snap := fullSnapshot()
	snap.Workspaces[0].Tabs = []string{"tab_1", "tab_x", "tab_1"}
	snap.Workspaces = append(snap.Workspaces, Workspace{ID: "ws_1", Name: "duplicate"})
	snap.Tabs = append(snap.Tabs,
		Tab{ID: "tab_orphan", Workspace: "ws_gone"},
		Tab{ID: "tab_2", Workspace: "ws_1", ActivePane: "pane_1",
			Layout: &Layout{Kind: "split", Axis: "diagonal", Ratio: 7,
				First:  &Layout{Kind: "pane", Pane: "pane_3"},
				Second: &Layout{Kind: "split", Axis: "rows", Ratio: 0.5, First: &Layout{Kind: "pane", Pane: "pane_4"}, Second: &Layout{Kind: "pane", Pane: "pane_1"}}}})
	snap.Tabs[0].Layout.Second = &Layout{Kind: "split", Axis: "rows", Ratio: 0.5,
		First:  &Layout{Kind: "pane", Pane: "pane_2"},
		Second: &Layout{Kind: "pane", Pane: "pane_nowhere"}}
	snap.Panes = append(snap.Panes,
		Pane{ID: "pane_3", Workspace: "ws_wrong", Tab: "tab_2", State: "live", RestoreState: "??"},
		Pane{ID: "pane_4", Workspace: "ws_1", Tab: "tab_2", State: "exited", RestoreState: RestoreExited},
		Pane{ID: "pane_lost", Workspace: "ws_1", Tab: "tab_gone", RestoreState: RestoreLive},
		Pane{ID: "pane_1", Workspace: "ws_1", Tab: "tab_1", Title: "duplicate"})

	dir := t.TempDir()
	mustSave(t, Open(dir), snap, map[string][]string{"pane_lost": {"x"}})
	got, _, info := mustLoad(t, Open(dir))

	if len(got.Workspaces) != 1 || !reflect.DeepEqual(got.Workspaces[0].Tabs, []string{"tab_1", "tab_2"}) {
		t.Errorf("workspaces %+v", got.Workspaces)
	}
	var tabIDs, paneIDs []string
	for _, tb := range got.Tabs {
		tabIDs = append(tabIDs, tb.ID)
	}
	for _, p := range got.Panes {
		paneIDs = append(paneIDs, p.ID)
	}
	if !reflect.DeepEqual(tabIDs, []string{"tab_1", "tab_2"}) || !reflect.DeepEqual(paneIDs, []string{"pane_1", "pane_2", "pane_3", "pane_4"}) {
		t.Errorf("tabs %q, panes %q", tabIDs, paneIDs)
	}
	wantL1 := &Layout{Kind: "split", Axis: "cols", Ratio: 0.25, First: &Layout{Kind: "pane", Pane: "pane_1"}, Second: &Layout{Kind: "pane", Pane: "pane_2"}}
	if !reflect.DeepEqual(got.Tabs[0].Layout, wantL1) {
		t.Errorf("tab_1 layout %+v", got.Tabs[0].Layout)
	}
	wantL2 := &Layout{Kind: "split", Axis: "cols", Ratio: 0.5, First: &Layout{Kind: "pane", Pane: "pane_3"}, Second: &Layout{Kind: "pane", Pane: "pane_4"}}
	if !reflect.DeepEqual(got.Tabs[1].Layout, wantL2) || got.Tabs[1].ActivePane != "pane_3" {
		t.Errorf("tab_2 layout %+v, active %q", got.Tabs[1].Layout, got.Tabs[1].ActivePane)
	}
	if got.Panes[2].Workspace != "ws_1" || got.Panes[2].RestoreState != RestoreLive {
		t.Errorf("pane_3 %+v", got.Panes[2])
	}
	if got.Panes[0].Title != "claude" {
		t.Errorf("the first of two panes with one id must win")
	}
	for _, w := range []string{
		`workspace "ws_1" appears twice`, `tab "tab_orphan" belongs to missing workspace "ws_gone"`,
		`pane "pane_lost" belongs to missing tab "tab_gone"`, `pane "pane_1" appears twice`,
		`lists tab "tab_x"`, `layout leaf "pane_nowhere" is not a pane of this tab`, `layout leaf "pane_1" is not a pane of this tab`,
		`axis "diagonal"`, `ratio 7`, `active pane "pane_1"`, `names workspace "ws_wrong"`, `restore_state "??"`,
	} {
		found := false
		for _, have := range info.Warnings {
			found = found || strings.Contains(have, w)
		}
		if !found {
			t.Errorf("no warning about %s in %q", w, info.Warnings)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, historyDir, "pane_lost.tail")); !os.IsNotExist(err) {
		t.Errorf("tail of a dropped pane kept: %v", err)
	}
}

func TestEmptyStateProtection(t *testing.T) {
	good := func(t *testing.T) (string, map[string][]byte) {
		dir := t.TempDir()
		mustSave(t, Open(dir), fullSnapshot(), map[string][]string{"pane_1": {"a"}})
		return dir, tree(t, dir)
	}
	refused := func(t *testing.T, s *Store, dir string, before map[string][]byte) {
		t.Helper()
		if _, err := s.Save(&Snapshot{}, nil); !errors.Is(err, ErrWouldEraseSnapshot) {
			t.Fatalf("empty save: %v, want ErrWouldEraseSnapshot", err)
		}
		if _, err := s.Save(nil, nil); !errors.Is(err, ErrWouldEraseSnapshot) {
			t.Fatalf("nil save: %v, want ErrWouldEraseSnapshot", err)
		}
		if after := tree(t, dir); !reflect.DeepEqual(before, after) {
			t.Errorf("a refused save changed the state directory")
		}
	}
	allowed := func(t *testing.T, s *Store, dir string) {
		t.Helper()
		mustSave(t, s, &Snapshot{}, nil)
		snap, tails, _ := mustLoad(t, Open(dir))
		if !snap.Empty() || len(tails) != 0 {
			t.Errorf("after an empty save: %+v %q", snap, tails)
		}
	}

	t.Run("no load", func(t *testing.T) {
		dir, before := good(t)
		refused(t, Open(dir), dir, before)
	})
	t.Run("failed load", func(t *testing.T) {
		dir, before := good(t)
		path := filepath.Join(dir, FileName)
		os.Rename(path, path+".away")
		os.Mkdir(path, 0o700) // reading a directory fails, even as root
		s := Open(dir)
		if _, _, _, err := s.Load(); err == nil {
			t.Fatal("Load of a directory succeeded")
		}
		os.Remove(path)
		os.Rename(path+".away", path)
		refused(t, s, dir, before)
		// Loading for real lifts the protection.
		mustLoad(t, s)
		allowed(t, s, dir)
	})
	t.Run("loaded", func(t *testing.T) {
		dir, _ := good(t)
		s := Open(dir)
		mustLoad(t, s)
		allowed(t, s, dir)
	})
	t.Run("no file", func(t *testing.T) {
		dir := t.TempDir()
		allowed(t, Open(dir), dir)
		s := Open(filepath.Join(dir, "other"))
		mustLoad(t, s)
		allowed(t, s, filepath.Join(dir, "other"))
	})
	t.Run("own save", func(t *testing.T) {
		dir := t.TempDir()
		s := Open(dir)
		mustSave(t, s, fullSnapshot(), nil)
		allowed(t, s, dir)
	})
	t.Run("file holds an empty state", func(t *testing.T) {
		dir := t.TempDir()
		mustSave(t, Open(dir), &Snapshot{}, nil)
		allowed(t, Open(dir), dir)
	})
	t.Run("empty state is not rotated", func(t *testing.T) {
		dir := t.TempDir()
		res := mustSave(t, Open(dir), &Snapshot{}, nil)
		if res.Rotated != "" {
			t.Errorf("rotated %s", res.Rotated)
		}
	})
}

// TestSaveObstacles makes saves fail in ways that hold for root too.
func TestSaveObstacles(t *testing.T) {
	t.Run("state directory under a file", func(t *testing.T) {
		root := t.TempDir()
		block := filepath.Join(root, "block")
		os.WriteFile(block, nil, 0o600)
		dir := filepath.Join(block, "state")
		s := Open(dir)
		_, err := s.Save(fullSnapshot(), nil)
		if err == nil || !strings.Contains(err.Error(), block) {
			t.Fatalf("Save: %v", err)
		}
		os.Remove(block)
		mustSave(t, s, fullSnapshot(), nil)
	})
	t.Run("snapshot.json is a directory", func(t *testing.T) {
		dir := t.TempDir()
		s := Open(dir)
		mustSave(t, s, fullSnapshot(), nil)
		path := filepath.Join(dir, FileName)
		os.Remove(path)
		os.MkdirAll(filepath.Join(path, "x"), 0o700)
		_, err := s.Save(fullSnapshot(), nil)
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Fatalf("Save: %v", err)
		}
		noTemps(t, dir)
		os.RemoveAll(path)
		mustSave(t, s, fullSnapshot(), nil)
		mustLoad(t, Open(dir))
	})
	t.Run("history is a file", func(t *testing.T) {
		dir := t.TempDir()
		s := Open(dir)
		hist := filepath.Join(dir, historyDir)
		os.WriteFile(hist, []byte("x"), 0o600)
		res, err := s.Save(fullSnapshot(), map[string][]string{"pane_1": {"a"}})
		if err != nil || res.TailErr == nil || !strings.Contains(res.TailErr.Error(), hist) {
			t.Fatalf("Save: %v, tails %v", err, res.TailErr)
		}
		os.Remove(hist)
		if res := mustSave(t, s, fullSnapshot(), map[string][]string{"pane_1": {"a"}}); res.TailsWritten != 1 {
			t.Errorf("retry wrote %d tails", res.TailsWritten)
		}
	})
}

func TestCanarySecretsNeverOnDisk(t *testing.T) {
	const canary = "canary-3f9a1c"
	dir := t.TempDir()
	snap := fullSnapshot()
	snap.Panes[0].Env = FilterEnv(map[string]string{
		"GITHUB_TOKEN": canary, "SIGNALTTY_TOKEN": canary, "SIGNALTTY_API_KEY": canary,
		"AWS_SECRET_ACCESS_KEY": canary, "TERM": "xterm-256color", "LC_ALL": "C.UTF-8", "SIGNALTTY_THEME": "dark",
	})
	// Unfiltered on purpose: Save filters as well.
	snap.Panes[1].Env = map[string]string{"GITHUB_TOKEN": canary, "DB_PASSWORD": canary, "HOME": canary, "LANG": "C"}
	snap.Panes[0].Agent.ConfigEnv["ANTHROPIC_API_KEY"] = canary
	res := mustSave(t, Open(dir), snap, map[string][]string{"pane_1": {"no secrets here"}})
	if snap.Panes[1].Env["GITHUB_TOKEN"] != canary {
		t.Error("Save modified the caller's environment map")
	}
	files := tree(t, dir)
	if len(files) < 3 || res.Rotated == "" {
		t.Fatalf("files %d, rotated %q", len(files), res.Rotated)
	}
	for name, b := range files {
		if bytes.Contains(b, []byte(canary)) {
			t.Errorf("%s contains the canary", name)
		}
	}
	got, _, _ := mustLoad(t, Open(dir))
	if want := map[string]string{"TERM": "xterm-256color", "LC_ALL": "C.UTF-8", "SIGNALTTY_THEME": "dark"}; !reflect.DeepEqual(got.Panes[0].Env, want) {
		t.Errorf("pane_1 env %q, want %q", got.Panes[0].Env, want)
	}
	if want := map[string]string{"LANG": "C"}; !reflect.DeepEqual(got.Panes[1].Env, want) {
		t.Errorf("pane_2 env %q", got.Panes[1].Env)
	}
	if want := map[string]string{"CLAUDE_CONFIG_DIR": "/home/u/.claude"}; !reflect.DeepEqual(got.Panes[0].Agent.ConfigEnv, want) {
		t.Errorf("config_env %q", got.Panes[0].Agent.ConfigEnv)
	}
}

func TestNotificationsCapped(t *testing.T) {
	snap := fullSnapshot()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	snap.Notifications = nil
	for i := 0; i < 250; i++ {
		snap.Notifications = append(snap.Notifications, Notification{ID: fmt.Sprint(i), CreatedAt: t0.Add(time.Duration(i) * time.Second)})
	}
	// Newest first in the slice: the cap must go by time, not position.
	for i, j := 0, len(snap.Notifications)-1; i < j; i, j = i+1, j-1 {
		snap.Notifications[i], snap.Notifications[j] = snap.Notifications[j], snap.Notifications[i]
	}
	dir := t.TempDir()
	mustSave(t, Open(dir), snap, nil)
	got, _, _ := mustLoad(t, Open(dir))
	if len(got.Notifications) != MaxNotifications || got.Notifications[0].ID != "249" || got.Notifications[199].ID != "50" {
		t.Errorf("%d notifications, first %s, last %s", len(got.Notifications), got.Notifications[0].ID, got.Notifications[len(got.Notifications)-1].ID)
	}
	if len(snap.Notifications) != 250 {
		t.Error("Save trimmed the caller's slice")
	}
}

func TestConcurrentSaves(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				snap := fullSnapshot()
				snap.Workspaces[0].Name = fmt.Sprintf("g%d-%d", g, i)
				if _, err := s.Save(snap, map[string][]string{"pane_1": rows80(g*100+i, 50), "pane_2": {fmt.Sprint(g, i)}}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 10; i++ {
			if _, err := s.List(); err != nil {
				t.Error(err)
			}
		}
	}()
	wg.Wait()
	noTemps(t, dir)
	snap, tails, info := mustLoad(t, Open(dir))
	if !strings.HasPrefix(snap.Workspaces[0].Name, "g") || len(tails) != 2 || len(info.Warnings) > 0 {
		t.Errorf("after concurrent saves: %q %d %q", snap.Workspaces[0].Name, len(tails), info.Warnings)
	}
}

func TestSaveReadableJSON(t *testing.T) {
	dir := t.TempDir()
	snap := fullSnapshot()
	snap.Panes[1].Argv = []string{"sh", "-c", "make && ./run <in >out"}
	snap.Tabs[0].Layout.Ratio = math.NaN() // must not make every save fail
	mustSave(t, Open(dir), snap, nil)
	data, _ := os.ReadFile(filepath.Join(dir, FileName))
	if !bytes.Contains(data, []byte(`"make && ./run <in >out"`)) {
		t.Errorf("argv escaped in snapshot.json")
	}
	got, _, info := mustLoad(t, Open(dir))
	if got.Tabs[0].Layout.Ratio != 0.5 || len(info.Warnings) > 0 || !math.IsNaN(snap.Tabs[0].Layout.Ratio) {
		t.Errorf("ratio %v, warnings %q", got.Tabs[0].Layout.Ratio, info.Warnings)
	}
}

func TestCounterRoundTripAndDamage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	s := Open(dir)
	if n, err := s.ReadCounter("c"); n != 0 || err != nil {
		t.Fatalf("missing counter: %d, %v; want 0 and no error", n, err)
	}
	if err := s.WriteCounter("c", 4096); err != nil {
		t.Fatal(err)
	}
	if n, err := s.ReadCounter("c"); n != 4096 || err != nil {
		t.Fatalf("counter read back %d, %v; want 4096", n, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "c"), []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReadCounter("c"); err == nil {
		t.Fatal("a counter file holding x was read without an error")
	}
}

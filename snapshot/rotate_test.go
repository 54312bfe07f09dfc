package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// noSync skips fsyncs where a test only cares about names and counts.
var noSync = syncer{file: func(*os.File) error { return nil }, dir: func(string) error { return nil }}

func TestRotation(t *testing.T) {
	dir := t.TempDir()
	clock := newClock()
	start := clock.Now()
	s := Open(dir, WithClock(clock.Now))
	s.sync = noSync

	// A save every 5 minutes for 20 hours: a copy every 15 minutes, the
	// newest 48 kept.
	made := 0
	for i := 0; i < 240; i++ {
		snap := fullSnapshot()
		res := mustSave(t, s, snap, nil)
		if res.Rotated != "" {
			made++
			if want := filepath.Join(dir, rotateDir, "snapshot-"+clock.Now().UTC().Format(TimeLayout)+".json"); res.Rotated != want {
				t.Fatalf("rotated to %s, want %s", res.Rotated, want)
			}
		}
		if i%3 == 1 {
			// An empty state in between is saved but never kept.
			if res := mustSave(t, s, &Snapshot{}, nil); res.Rotated != "" {
				t.Fatalf("empty state rotated at save %d", i)
			}
		}
		clock.Advance(5 * time.Minute)
	}
	if made != 80 {
		t.Errorf("%d copies made, want 80", made)
	}
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != DefaultRotateKeep {
		t.Fatalf("%d kept, want %d", len(list), DefaultRotateKeep)
	}
	for i, e := range list {
		if e.Err != nil || e.Workspaces != 1 || e.Panes != 2 || e.Bytes <= 0 {
			t.Errorf("entry %d: %+v", i, e)
		}
		if i > 0 && list[i-1].SavedAt.Sub(e.SavedAt) < DefaultRotateEvery {
			t.Errorf("entries %d and %d only %v apart", i-1, i, list[i-1].SavedAt.Sub(e.SavedAt))
		}
	}
	newest := start.Add(79 * 15 * time.Minute)
	oldest := start.Add(32 * 15 * time.Minute)
	if !list[0].SavedAt.Equal(newest) || !list[47].SavedAt.Equal(oldest) {
		t.Errorf("kept %v … %v, want %v … %v", list[0].SavedAt, list[47].SavedAt, newest, oldest)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, rotateDir))
	files, tailDirs := 0, 0
	for _, e := range ents {
		if e.IsDir() && strings.HasSuffix(e.Name(), tailsDirExt) {
			tailDirs++
		} else {
			files++
		}
	}
	if files != DefaultRotateKeep || tailDirs != KeepTailCopies {
		t.Errorf("%d files and %d tails directories in snapshots/, want %d and %d", files, tailDirs, DefaultRotateKeep, KeepTailCopies)
	}
}

func TestRotationSpacingAndClockBack(t *testing.T) {
	dir := t.TempDir()
	clock := newClock()
	s := Open(dir, WithClock(clock.Now), WithRotation(3, time.Hour))
	s.sync = noSync
	rot := func() string { return mustSave(t, s, fullSnapshot(), nil).Rotated }

	if rot() == "" {
		t.Fatal("first save not kept")
	}
	clock.Advance(59*time.Minute + 59*time.Second)
	if rot() != "" {
		t.Error("kept a copy within the spacing")
	}
	clock.Advance(time.Second)
	if rot() == "" {
		t.Error("no copy once the spacing passed")
	}
	// The clock set back by more than the spacing still keeps copies.
	clock.Advance(-5 * time.Hour)
	if rot() == "" {
		t.Error("no copy after the clock went back")
	}
	clock.Advance(-2 * time.Hour)
	if got := rot(); got != "" {
		// Four kept, so the oldest (this one) goes at once.
		t.Errorf("copy older than all kept ones survived: %s", got)
	}
	if list, _ := s.List(); len(list) != 3 {
		t.Errorf("%d kept, want 3", len(list))
	}

	// Rotation off.
	s2 := Open(t.TempDir(), WithRotation(0, 0))
	if res := mustSave(t, s2, fullSnapshot(), nil); res.Rotated != "" {
		t.Errorf("rotated with rotation off")
	}
}

func TestListAndReadEntry(t *testing.T) {
	dir := t.TempDir()
	clock := newClock()
	s := Open(dir, WithClock(clock.Now))
	s.sync = noSync
	if list, err := s.List(); err != nil || len(list) != 0 {
		t.Fatalf("List before any save: %v %v", list, err)
	}
	var names []string
	for i := 0; i < 3; i++ {
		snap := fullSnapshot()
		snap.Workspaces[0].Name = strings.Repeat("w", i+1)
		res := mustSave(t, s, snap, nil)
		names = append(names, filepath.Base(res.Rotated))
		clock.Advance(DefaultRotateEvery)
	}
	// Unrelated and unreadable files.
	os.WriteFile(filepath.Join(dir, rotateDir, "notes.json"), []byte("{}"), 0o600)
	os.WriteFile(filepath.Join(dir, rotateDir, "snapshot-20200101T000000Z.json"), []byte("{oops"), 0o600)

	list, err := s.List()
	if err != nil || len(list) != 4 {
		t.Fatalf("List: %v %+v", err, list)
	}
	for i, n := range []string{names[2], names[1], names[0], "snapshot-20200101T000000Z.json"} {
		if list[i].Name != n {
			t.Errorf("entry %d is %s, want %s", i, list[i].Name, n)
		}
	}
	if list[3].Err == nil || !list[3].SavedAt.Equal(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("unreadable entry %+v", list[3])
	}

	snap, err := s.ReadEntry(names[1])
	if err != nil || snap.Workspaces[0].Name != "ww" || len(snap.Panes) != 2 {
		t.Fatalf("ReadEntry: %v %+v", err, snap)
	}
	for _, bad := range []string{"", "../snapshot.json", "snapshots/" + names[0], "snapshot.json", "/etc/passwd",
		"snapshot-20200101T000000Z.json/..", "..", names[0] + "\x00"} {
		if _, err := s.ReadEntry(bad); err == nil {
			t.Errorf("ReadEntry(%q) succeeded", bad)
		}
	}
	if _, err := s.ReadEntry("snapshot-20200101T000000Z.json"); err == nil {
		t.Error("ReadEntry of an unreadable file succeeded")
	}
	os.WriteFile(filepath.Join(dir, rotateDir, "snapshot-20300101T000000Z.json"), []byte(`{"snapshot_version":9}`), 0o600)
	var fv *FutureVersionError
	if _, err := s.ReadEntry("snapshot-20300101T000000Z.json"); !errors.As(err, &fv) || fv.Found != 9 {
		t.Errorf("ReadEntry of a newer version: %v", err)
	}
}

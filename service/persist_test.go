package service

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/signaltty/signaltty/snapshot"
)

func TestDebouncedAndPeriodicSaves(t *testing.T) {
	s := newTestService(t)
	dir := t.TempDir()
	store := snapshot.Open(dir)
	if _, _, _, err := store.Load(); err != nil {
		t.Fatal(err)
	}
	s.StartPersistence(store, 0)
	t.Cleanup(s.StopPersistence)
	if _, err := s.CreateWorkspace("w", ""); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a debounced save after a change", func() bool { return !s.PersistStatus().LastSave.IsZero() })
	first := s.PersistStatus().LastSave
	if err := s.SetSaveInterval(10 * time.Millisecond); code(err) != "invalid_params.save_interval_ms" {
		t.Fatalf("a 10 ms interval was accepted: %v", err)
	}
	if err := s.SetSaveInterval(time.Second); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a periodic save without changes", func() bool { return s.PersistStatus().LastSave.After(first) })
	b, err := os.ReadFile(filepath.Join(dir, snapshot.FileName))
	if err != nil || len(b) == 0 {
		t.Fatalf("snapshot: %v", err)
	}
}

func TestShutdownSaveFreezes(t *testing.T) {
	s := newTestService(t)
	store := snapshot.Open(t.TempDir())
	store.Load()
	s.StartPersistence(store, 0)
	t.Cleanup(s.StopPersistence)
	w, _ := s.CreateWorkspace("w", "")
	p, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sleep", "100"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.SaveForShutdown("logind")
	if err != nil {
		t.Fatal(err)
	}
	// The hang-up that follows must not reach the saved picture.
	if _, err := s.KillPane(t.Context(), p.ID, "", -1); err != nil {
		t.Fatal(err)
	}
	again, err := s.Save("debounce")
	if err != nil || again.Bytes != res.Bytes || !s.PersistStatus().Frozen {
		t.Fatalf("a save after the shutdown save wrote: %+v %v", again, err)
	}
	snap, _, _, err := snapshot.Open(store.Dir()).Load()
	if err != nil || len(snap.Panes) != 1 || snap.Panes[0].State != StateLive || !snap.Panes[0].ShutdownSave {
		t.Fatalf("saved pane: %+v %v", snap.Panes, err)
	}
	s.ThawPersistence()
	if _, err := s.Save("debounce"); err != nil {
		t.Fatal(err)
	}
	snap, _, _, _ = snapshot.Open(store.Dir()).Load()
	if snap.Panes[0].State != StateExited {
		t.Fatalf("after thawing the exit is saved: %+v", snap.Panes[0])
	}
}

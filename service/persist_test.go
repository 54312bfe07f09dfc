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
	s.Persistence().Start(store, 0)
	t.Cleanup(s.Persistence().Stop)
	if _, err := s.CreateWorkspace("w", ""); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a debounced save after a change", func() bool { return !s.Persistence().Status().LastSave.IsZero() })
	first := s.Persistence().Status().LastSave
	if err := s.Persistence().SetSaveInterval(10 * time.Millisecond); code(err) != "invalid_params.save_interval_ms" {
		t.Fatalf("a 10 ms interval was accepted: %v", err)
	}
	if err := s.Persistence().SetSaveInterval(time.Second); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a periodic save without changes", func() bool { return s.Persistence().Status().LastSave.After(first) })
	b, err := os.ReadFile(filepath.Join(dir, snapshot.FileName))
	if err != nil || len(b) == 0 {
		t.Fatalf("snapshot: %v", err)
	}
}

func TestShutdownSaveFreezes(t *testing.T) {
	s := newTestService(t)
	store := snapshot.Open(t.TempDir())
	store.Load()
	s.Persistence().Start(store, 0)
	t.Cleanup(s.Persistence().Stop)
	w, _ := s.CreateWorkspace("w", "")
	p, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sleep", "100"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Persistence().SaveForShutdown("logind")
	if err != nil {
		t.Fatal(err)
	}
	// The hang-up that follows must not reach the saved picture.
	if _, err := s.KillPane(t.Context(), p.ID, "", -1); err != nil {
		t.Fatal(err)
	}
	again, err := s.Persistence().Save("debounce")
	if err != nil || again.Bytes != res.Bytes || !s.Persistence().Status().Frozen {
		t.Fatalf("a save after the shutdown save wrote: %+v %v", again, err)
	}
	snap, _, _, err := snapshot.Open(store.Dir()).Load()
	if err != nil || len(snap.Panes) != 1 || snap.Panes[0].State != StateLive || !snap.Panes[0].ShutdownSave {
		t.Fatalf("saved pane: %+v %v", snap.Panes, err)
	}
	s.Persistence().Thaw()
	if _, err := s.Persistence().Save("debounce"); err != nil {
		t.Fatal(err)
	}
	snap, _, _, _ = snapshot.Open(store.Dir()).Load()
	if snap.Panes[0].State != StateExited {
		t.Fatalf("after thawing the exit is saved: %+v", snap.Panes[0])
	}
}

// A debounced save that failed is tried again by itself once the cause is
// gone, without another change or an explicit save.
func TestFailedDebouncedSaveIsRetried(t *testing.T) {
	s := newTestService(t)
	dir := t.TempDir()
	store := snapshot.Open(dir)
	if _, _, _, err := store.Load(); err != nil {
		t.Fatal(err)
	}
	s.Persistence().Start(store, 0)
	t.Cleanup(s.Persistence().Stop)
	obstacle := filepath.Join(dir, snapshot.FileName) // as root, permissions stop nothing: a directory does
	if err := os.MkdirAll(filepath.Join(obstacle, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateWorkspace("w", ""); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the debounced save to fail", func() bool { return s.Persistence().Status().LastError != "" })
	failedAt := time.Now()
	if err := os.RemoveAll(obstacle); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the retried save", func() bool { st := s.Persistence().Status(); return st.LastError == "" && !st.LastSave.IsZero() })
	if since := time.Since(failedAt); since < SaveDebounce/2 { // retried after the debounce, not in a loop
		t.Fatalf("the retry came %v after the failure, before the debounce interval %v", since, SaveDebounce)
	}
	if b, err := os.ReadFile(obstacle); err != nil || len(b) == 0 {
		t.Fatalf("snapshot after the retry: %v", err)
	}
}

package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/signaltty/signaltty/snapshot"
)

// Ids start at the bound the state directory holds and each start's
// reservation is on disk before its id is handed out; a state directory
// that cannot be written gives no id (unavailable.run_ids) and starts no
// program.
func TestRunIDsStartAtTheSavedBound(t *testing.T) {
	dir := t.TempDir()
	store := snapshot.Open(dir)
	if err := store.WriteCounter(RunIDFile, 5000); err != nil {
		t.Fatal(err)
	}
	s := newTestService(t)
	if err := s.Runs().StartIDs(store); err != nil {
		t.Fatal(err)
	}
	w, _ := s.CreateWorkspace("ids", "")
	st, err := s.Runs().Start(context.Background(), RunRequest{Key: "a", Workspace: w.ID, Argv: []string{"true"}})
	if err != nil || st.Run != "r5000" {
		t.Fatalf("first start: %+v %v, want r5000", st, err)
	}
	if n, err := store.ReadCounter(RunIDFile); err != nil || n <= 5000 {
		t.Fatalf("bound on disk %d (%v) after r5000 was handed out", n, err)
	}
	if _, err := s.Runs().Get("r4999", false); code(err) != "not_found.run" || err.(*Error).Data["reason"] != "unknown" {
		t.Fatalf("an id of an earlier daemon: %v, want not_found.run (unknown)", err)
	}

	file := filepath.Join(t.TempDir(), "not-a-directory")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	broken := newTestService(t)
	if err := broken.Runs().StartIDs(snapshot.Open(file)); err == nil {
		t.Fatal("Runs.StartIDs on a state directory that is a file reported no error")
	}
	bw, _ := broken.CreateWorkspace("ids", "")
	if _, err := broken.Runs().Start(context.Background(), RunRequest{Key: "a", Workspace: bw.ID, Argv: []string{"true"}}); code(err) != "unavailable.run_ids" {
		t.Fatalf("a start without reserved ids: %v, want unavailable.run_ids", err)
	}
	if st := broken.Status(); st.Panes != 0 || st.Tabs != 0 {
		t.Fatalf("a start refused for want of an id left %+v", st)
	}
}

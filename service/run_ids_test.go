package service

import (
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/signaltty/signaltty/snapshot"
)

// The interval set answers as a plain set does, through any mix of adds and
// removes, and keeps its intervals sorted, disjoint and apart.
func TestRunIDsActsAsASet(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var s runIDs
	want := map[int64]bool{}
	for step := 0; step < 20000; step++ {
		n := int64(r.Intn(64))
		if r.Intn(2) == 0 {
			s.add(n)
			want[n] = true
		} else {
			s.remove(n)
			delete(want, n)
		}
		for m := int64(-1); m <= 65; m++ {
			if s.has(m) != want[m] {
				t.Fatalf("step %d: has(%d) = %v, want %v (%v)", step, m, s.has(m), want[m], s.iv)
			}
		}
		for i, iv := range s.iv {
			if iv[0] >= iv[1] || i > 0 && s.iv[i-1][1] >= iv[0] {
				t.Fatalf("step %d: intervals %v", step, s.iv)
			}
		}
	}
}

// A row of failed starts is one interval, and committed ids leave none.
func TestRunIDsStayCompact(t *testing.T) {
	var s runIDs
	for n := int64(0); n < 1000; n++ {
		s.add(n)
		if n >= 500 {
			s.remove(n) // committed
		}
	}
	if len(s.iv) != 1 || s.iv[0] != [2]int64{0, 500} {
		t.Fatalf("intervals %v, want [[0 500]]", s.iv)
	}
}

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
	if err := s.StartRunIDs(store); err != nil {
		t.Fatal(err)
	}
	w, _ := s.CreateWorkspace("ids", "")
	st, err := s.StartRun(context.Background(), RunRequest{Key: "a", Workspace: w.ID, Argv: []string{"true"}})
	if err != nil || st.Run != "r5000" {
		t.Fatalf("first start: %+v %v, want r5000", st, err)
	}
	if n, err := store.ReadCounter(RunIDFile); err != nil || n <= 5000 {
		t.Fatalf("bound on disk %d (%v) after r5000 was handed out", n, err)
	}
	if _, err := s.GetRun("r4999", false); code(err) != "not_found.run" || err.(*Error).Data["reason"] != "unknown" {
		t.Fatalf("an id of an earlier daemon: %v, want not_found.run (unknown)", err)
	}

	file := filepath.Join(t.TempDir(), "not-a-directory")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	broken := newTestService(t)
	if err := broken.StartRunIDs(snapshot.Open(file)); err == nil {
		t.Fatal("StartRunIDs on a state directory that is a file reported no error")
	}
	bw, _ := broken.CreateWorkspace("ids", "")
	if _, err := broken.StartRun(context.Background(), RunRequest{Key: "a", Workspace: bw.ID, Argv: []string{"true"}}); code(err) != "unavailable.run_ids" {
		t.Fatalf("a start without reserved ids: %v, want unavailable.run_ids", err)
	}
	if st := broken.Status(); st.Panes != 0 || st.Tabs != 0 {
		t.Fatalf("a start refused for want of an id left %+v", st)
	}
}

package service

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// Waits on a pane that floods its output: each sees its match, concurrent
// waits do not disturb one another, and a wait that never matches ends
// with the process and its status.
func TestWaitOutputOnAFloodingPane(t *testing.T) {
	s := newTestService(t)
	ctx := context.Background()
	w, _ := s.CreateWorkspace("w", t.TempDir())
	p, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sh", "-c", "read x; seq 1 20000; echo last-row; read y; exit 4"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.WaitOutput(ctx, p.ID, OutputWait{Match: "a(", Input: []byte("\n")}); code(err) != "invalid_params.match" {
		t.Fatalf("a bad expression: %v", err)
	}
	var wg sync.WaitGroup
	results := make([]OutputWaitResult, 4)
	for i := range results {
		wg.Go(func() {
			r, err := s.WaitOutput(ctx, p.ID, OutputWait{Match: "^last-row$", After: &OutputBaseline{}, Timeout: -1})
			if err != nil {
				t.Error(err)
			}
			results[i] = r
		})
	}
	r, err := s.WaitOutput(ctx, p.ID, OutputWait{Match: "^19999$", Input: []byte("\n"), Timeout: -1})
	if err != nil || r.Outcome != OutputMatched || r.Written != 1 {
		t.Fatalf("send and wait: %+v %v", r, err)
	}
	wg.Wait()
	for _, r := range results {
		if r.Outcome != OutputMatched || len(r.Lines) == 0 || r.Lines[len(r.Lines)-1] != "last-row" || len(r.Lines) > MaxOutputWaitRows || r.Omitted == 0 {
			t.Fatalf("a concurrent wait: %+v", r)
		}
	}
	r, err = s.WaitOutput(ctx, p.ID, OutputWait{Match: "never", Input: []byte("\n"), Timeout: -1})
	if err != nil || r.Outcome != OutputExited || r.Status == nil || r.Status.Code == nil || *r.Status.Code != 4 {
		t.Fatalf("the exit ends the wait: %+v %v", r, err)
	}
	if strings.Contains(strings.Join(r.Lines, "\n"), "last-row") {
		t.Fatalf("rows before the baseline came back: %q", r.Lines)
	}
}

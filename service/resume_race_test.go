package service

import (
	"context"
	"slices"
	"testing"
	"time"
)

// Resume joins the lifecycle race matrix (lifecycle_race_test.go): two
// resumes of one pane, and a resume against a removal.

// resumablePane spawns `sleep 60` as a generic agent with a self-reported
// session and kills it: a pane to resume (its command: sleep 60).
func resumablePane(t *testing.T, s *Service, ws string) string {
	t.Helper()
	id := exitedPane(t, s, ws)
	s.mu.Lock()
	p := s.panes[id]
	s.agentChangedLocked(p, p.agent.SetSession(p.id, "generic", "s1", []string{"sleep", "60"}, p.launch()))
	p.agent.ConfigEnv = map[string]string{"CODEX_HOME": "/srv/codex"}
	p.env["ANTHROPIC_API_KEY"] = "canary"
	s.mu.Unlock()
	return id
}

func TestRaceResumeResume(t *testing.T) {
	s := newTestService(t)
	rec := recordStarts(s)
	w, _ := s.CreateWorkspace("race", t.TempDir())
	ctx := context.Background()
	for i := 0; i < raceRounds(t)/5; i++ {
		id := resumablePane(t, s, w.ID)
		var a, b Pane
		var aerr, berr error
		race(2*time.Millisecond,
			func() { a, aerr = s.ResumePane(id) },
			func() { b, berr = s.ResumePane(id) })
		if (aerr == nil) == (berr == nil) {
			t.Fatalf("round %d: resumes %v and %v: exactly one must win", i, aerr, berr)
		}
		won, lost := a, berr
		if aerr != nil {
			won, lost = b, aerr
		}
		if !oneOf(lost, "conflict.resuming", "conflict.pane_live") || !alive(won.Pid) {
			t.Fatalf("round %d: the loser got %v; winner %+v", i, lost, won)
		}
		if !slices.Equal(won.Argv, []string{"sleep", "60"}) || !slices.Equal(won.Env, []string{"ANTHROPIC_API_KEY", "CODEX_HOME"}) {
			t.Fatalf("round %d: resumed with argv %q env %v, want the resume command, the launch environment and config_env", i, won.Argv, won.Env)
		}
		if err := s.RemovePane(ctx, id, true); err != nil {
			t.Fatal(err)
		}
		checkNoOrphans(t, s, rec)
	}
}

func TestRaceResumeRemove(t *testing.T) {
	s := newTestService(t)
	rec := recordStarts(s)
	w, _ := s.CreateWorkspace("race", t.TempDir())
	ctx := context.Background()
	for i := 0; i < raceRounds(t)/5; i++ {
		id := resumablePane(t, s, w.ID)
		var rerr, merr error
		race(2*time.Millisecond,
			func() { _, rerr = s.ResumePane(id) },
			func() { merr = s.RemovePane(ctx, id, true) })
		if merr != nil {
			t.Fatalf("round %d: remove --kill failed: %v", i, merr)
		}
		if rerr != nil && !oneOf(rerr, "not_found.pane", "conflict.removing") {
			t.Fatalf("round %d: resume failed with %v", i, rerr)
		}
		if _, err := s.GetPane(id); code(err) != "not_found.pane" {
			t.Fatalf("round %d: pane still there: %v", i, err)
		}
		checkNoOrphans(t, s, rec)
	}
}

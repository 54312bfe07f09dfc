package service

import (
	"context"
	"testing"
	"time"

	"github.com/signaltty/signaltty/journal"
)

func TestWaitPaneOnAgentState(t *testing.T) {
	s := journaled(t, t.TempDir(), journal.Options{})
	defer shutdown(s)
	ctx := context.Background()
	w, _ := s.CreateWorkspace("w", t.TempDir())
	p, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sleep", "60"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.WaitPane(ctx, p.ID, []string{"busy"}, nil, -1); code(err) != "invalid_params.until" {
		t.Fatalf("unknown state: %v", err)
	}
	if _, err := s.WaitPane(ctx, p.ID, []string{"error"}, nil, 20*time.Millisecond); code(err) != "timeout.wait" {
		t.Fatalf("a state never reached: %v", err)
	}
	if r, err := s.WaitPane(ctx, p.ID, []string{"seen"}, nil, -1); err != nil || r.Outcome != "seen" || r.TransitionSeq != 0 {
		t.Fatalf("a state that holds now: %+v %v", r, err)
	}

	// Live: a warning arrives while the wait waits.
	done := make(chan WaitResult, 1)
	go func() {
		r, err := s.WaitPane(ctx, p.ID, []string{"warning", "error"}, nil, -1)
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	waitFor(t, "the wait to subscribe", func() bool { s.mu.Lock(); defer s.mu.Unlock(); return s.subs.Len() > 0 })
	if _, err := s.Notifications().Add(NotifyRequest{Pane: p.ID, Title: "x", Severity: "warning"}); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r.Outcome != "warning" || r.TransitionSeq == 0 || r.Attention != "warning" {
		t.Fatalf("live wait: %+v", r)
	}

	// A baseline: a state reached after it counts even when it moved on.
	g, _ := s.MarkSeen(p.ID)
	_ = g
	base, _ := s.GetPane(p.ID)
	s.Notifications().Add(NotifyRequest{Pane: p.ID, Title: "y", Severity: "error"})
	s.MarkSeen(p.ID)
	r, err := s.WaitPane(ctx, p.ID, []string{"error"}, base.WaitBaseline, -1)
	if err != nil || r.Outcome != "error" || r.TransitionSeq <= base.WaitBaseline.Seq || r.Attention != "none" {
		t.Fatalf("after a baseline: %+v %v", r, err)
	}

	// A relaunch replaces the process the baseline named.
	base, _ = s.GetPane(p.ID)
	if _, err := s.KillPane(ctx, p.ID, "KILL", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RelaunchPane(p.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WaitPane(ctx, p.ID, []string{"error"}, base.WaitBaseline, time.Second); code(err) != "conflict.identity_changed" {
		t.Fatalf("a baseline of the previous process: %v", err)
	}
	other := *base.WaitBaseline
	other.Source = "signaltty/old"
	if _, err := s.WaitPane(ctx, p.ID, []string{"error"}, &other, time.Second); code(err) != "conflict.identity_changed" {
		t.Fatalf("a baseline of another daemon: %v", err)
	}
}

// A resume is a new process instance: baselines of the one before fail, and
// a new agent session does too.
func TestWaitBaselineInvalidatedByResumeAndNewSession(t *testing.T) {
	s := journaled(t, t.TempDir(), journal.Options{})
	defer shutdown(s)
	ctx := context.Background()
	w, _ := s.CreateWorkspace("w", t.TempDir())
	p, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sleep", "60"}})
	if err != nil {
		t.Fatal(err)
	}
	// A self-reported session whose resume command is another sleep.
	if _, err := s.ReportSession(ReportRequest{Pane: p.ID, Session: "s-1", Agent: "generic", ResumeArgv: []string{"sleep", "61"}}); err != nil {
		t.Fatal(err)
	}
	base, _ := s.GetPane(p.ID)
	if _, err := s.ReportSession(ReportRequest{Pane: p.ID, Session: "s-2", Agent: "generic", ResumeArgv: []string{"sleep", "61"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WaitPane(ctx, p.ID, []string{"error"}, base.WaitBaseline, time.Second); code(err) != "conflict.identity_changed" {
		t.Fatalf("a baseline of the previous agent session: %v", err)
	}
	base, _ = s.GetPane(p.ID)
	if _, err := s.KillPane(ctx, p.ID, "KILL", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ResumePane(p.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WaitPane(ctx, p.ID, []string{"error"}, base.WaitBaseline, time.Second); code(err) != "conflict.identity_changed" {
		t.Fatalf("a baseline of the process before the resume: %v", err)
	}
}

package service

import "testing"

// A hook event the adapter does not know is not applied: it changes
// nothing, its session id included; a known one records the session.
func TestUnrecognizedHookChangesNothing(t *testing.T) {
	s := newTestService(t)
	w, _ := s.CreateWorkspace("w", t.TempDir())
	p, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sleep", "60"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.HookEvent(HookRequest{Agent: "claude", Event: "BogusEvent", Pane: p.ID, Payload: map[string]any{"session_id": "bogus-2"}})
	if err != nil || res.Accepted || res.Reason != "unrecognized_hook" {
		t.Fatalf("unknown hook: %+v %v", res, err)
	}
	if g, _ := s.GetPane(p.ID); g.Agent != nil && g.Agent.SessionID != "" {
		t.Fatalf("an unrecognized hook recorded session %q", g.Agent.SessionID)
	}
	res, err = s.HookEvent(HookRequest{Agent: "claude", Event: "SessionStart", Pane: p.ID, Payload: map[string]any{"session_id": "real-1"}})
	if err != nil || !res.Accepted {
		t.Fatalf("SessionStart: %+v %v", res, err)
	}
	if g, _ := s.GetPane(p.ID); g.Agent == nil || g.Agent.SessionID != "real-1" {
		t.Fatalf("SessionStart did not record its session: %+v", g.Agent)
	}
}

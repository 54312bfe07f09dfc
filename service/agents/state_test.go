package agents

import (
	"slices"
	"testing"
	"time"

	"github.com/signaltty/signaltty/service/events"
)

func types(c Change) []events.EventType {
	var out []events.EventType
	for _, e := range c.Events {
		out = append(out, e.EventType())
	}
	return out
}

func TestSessionOfTheSameAgentKeepsItsCommandANewOneTakesTheAdapters(t *testing.T) {
	a := NewState("", []string{"/opt/bin/claude", "--model", "x"}, "/w", nil)
	if a.Kind != "claude" {
		t.Fatalf("kind %q, want claude", a.Kind)
	}
	c := a.SetSession("p", "", "s1", nil, "/opt/bin/claude")
	if got := types(c); !slices.Equal(got, []events.EventType{events.TypeAgentSession}) {
		t.Fatalf("events %v", got)
	}
	if !slices.Equal(a.ResumeArgv, []string{"/opt/bin/claude", "--resume", "s1"}) || !a.OfficialResume("/opt/bin/claude") {
		t.Fatalf("resume %q: want the adapter's, official", a.ResumeArgv)
	}
	if c := a.SetSession("p", "claude", "s1", nil, "/opt/bin/claude"); len(c.Events) != 0 || c.Touched {
		t.Fatalf("the same session again changed %+v", c)
	}
	c = a.SetSession("p", "claude", "s1", []string{"claude", "--resume", "s1", "--x"}, "")
	if !a.ResumeReported || a.OfficialResume("") || len(c.Events) != 1 {
		t.Fatalf("a reported command is not official: %+v %+v", a, c)
	}
	c = a.SetSession("p", "claude", "s2", nil, "")
	if e := c.Events[0].(events.AgentSession); e.Previous != "s1" || a.ResumeReported {
		t.Fatalf("a new session: %+v %+v", e, a)
	}
}

func TestAttentionRisesDropsWithItsQuestionAndClears(t *testing.T) {
	var a State
	if got := types(a.RaiseAttention("p", AttentionInputRequired)); !slices.Equal(got, []events.EventType{events.TypeAttentionCreated}) {
		t.Fatalf("raise from none: %v", got)
	}
	if c := a.RaiseAttention("p", AttentionUnread); len(c.Events) != 0 || a.Attention != AttentionInputRequired {
		t.Fatalf("a raise never lowers: %+v", a)
	}
	if got := types(a.DropQuestion("p", AttentionUnread)); !slices.Equal(got, []events.EventType{events.TypeAttentionUpdated}) || a.Attention != AttentionUnread {
		t.Fatalf("drop to unread: %v %q", got, a.Attention)
	}
	if c := a.DropQuestion("p", ""); len(c.Events) != 0 {
		t.Fatalf("no question to drop: %v", types(c))
	}
	if got := types(a.ClearAttention("p", "mark_seen")); !slices.Equal(got, []events.EventType{events.TypeAttentionCleared}) || a.AttentionName() != AttentionNone {
		t.Fatalf("clear: %v", got)
	}
}

func TestAnExitedAgentIsExitedAndItsQuestionUnread(t *testing.T) {
	a := State{Kind: "codex", Attention: AttentionPermissionRequired}
	c := a.Exited("p")
	if a.Lifecycle != LifecycleExited || a.Attention != AttentionUnread || len(c.Events) != 2 {
		t.Fatalf("after exit %+v, events %v", a, types(c))
	}
	var plain State
	if c := plain.Exited("p"); len(c.Events) != 0 {
		t.Fatalf("a plain pane's exit: %v", types(c))
	}
}

func TestHooksLeaveAFinishedTurnAndABlockedPaneAsTheyAre(t *testing.T) {
	a := State{Kind: "claude", Lifecycle: LifecycleDone}
	c, notify := a.ApplyHook("p", Hook{Kind: "claude", Live: true, Session: "s",
		Decision: Decision{Lifecycle: LifecycleWorking, KeepFinished: true, NotifyTitle: "n"}})
	if a.Lifecycle != LifecycleDone || notify || a.SessionID != "s" || len(c.Events) != 1 {
		t.Fatalf("a finished pane: %+v notify %v events %v", a, notify, types(c))
	}
	a.Lifecycle = LifecycleBlocked
	a.ApplyHook("p", Hook{Kind: "claude", Live: true, Decision: Decision{Lifecycle: LifecycleWorking, Tool: true}})
	if a.Lifecycle != LifecycleBlocked {
		t.Fatalf("a tool hook took the pane out of blocked: %q", a.Lifecycle)
	}
	if _, notify := a.ApplyHook("p", Hook{Kind: "claude", Decision: Decision{Lifecycle: LifecycleIdle, NotifyTitle: "n"}}); notify || a.Lifecycle != LifecycleBlocked {
		t.Fatalf("a hook of a gone process changed more than identity: %+v", a)
	}
	var g State
	if c, _ := g.ApplyHook("p", Hook{Kind: "gemini"}); g.Kind != "gemini" || !c.Save {
		t.Fatalf("a hook names its agent: %+v %+v", g, c)
	}
}

func TestHighestAttentionIsTheMostUrgent(t *testing.T) {
	var h Highest
	if h.Attention() != AttentionNone || h.Pane() != "" {
		t.Fatalf("empty: %q %q", h.Attention(), h.Pane())
	}
	h.Add("a", AttentionWarning)
	h.Add("b", AttentionError)
	h.Add("c", AttentionUnread)
	if h.Attention() != AttentionError || h.Pane() != "b" {
		t.Fatalf("got %q %q", h.Attention(), h.Pane())
	}
}

func TestNotificationsKeepTheNewestAndMarkReadOnlyKnownOnes(t *testing.T) {
	var l NoteList
	for i := 0; i < MaxNotifications+5; i++ {
		l.Add(NewNotification(string(rune('a'+i%26))+time.Duration(i).String(), "", "b", "", "cli", time.Now()))
	}
	if len(l) != MaxNotifications || l[0].Title != "signaltty" || l[0].Severity != "info" {
		t.Fatalf("kept %d, first %+v", len(l), l[0])
	}
	if _, err := l.MarkRead([]string{"nope"}, "", time.Now()); err == nil || err.Code != "not_found.notification" {
		t.Fatalf("unknown id: %v", err)
	}
	evs, err := l.MarkRead(nil, "", time.Now())
	if err != nil || len(evs) != MaxNotifications || len(l.List("", true)) != 0 {
		t.Fatalf("mark all: %d events, %v", len(evs), err)
	}
}

func TestConfigEnvIsKeptAbsoluteAndOnlyForAgentsDirectories(t *testing.T) {
	a := NewState("", []string{"codex"}, "/w", map[string]string{"CODEX_HOME": "h/../codex", "HOME": "/root"})
	if a.Kind != "codex" || len(a.ConfigEnv) != 1 || a.ConfigEnv["CODEX_HOME"] != "/w/codex" {
		t.Fatalf("kind %q config_env %v", a.Kind, a.ConfigEnv)
	}
	if !IsConfigEnv("CLAUDE_CONFIG_DIR") || IsConfigEnv("HOME") {
		t.Fatal("config_env names")
	}
}

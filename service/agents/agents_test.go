package agents

import (
	"slices"
	"strings"
	"testing"
)

func TestEveryKindHasItsOfficialResumeCommand(t *testing.T) {
	want := map[string][]string{
		"claude":   {"claude", "--resume", "S"},
		"codex":    {"codex", "resume", "S"},
		"opencode": {"opencode", "--session", "S"},
		"cursor":   {"cursor-agent", "--resume", "S"},
		"gemini":   {"gemini", "--resume", "S"},
		"pi":       {"pi", "--session", "S"},
		"generic":  nil,
	}
	for kind, argv := range want {
		a, ok := Lookup(kind)
		if !ok {
			t.Fatalf("no adapter for %s", kind)
		}
		if got := a.Resume("", "S"); !slices.Equal(got, argv) {
			t.Errorf("%s: resume %q, want %q", kind, got, argv)
		}
	}
}

func TestResumeKeepsAnAbsoluteLaunchPathButNoFlags(t *testing.T) {
	a, _ := Lookup("codex")
	cases := map[string][]string{
		"/opt/tools/codex": {"/opt/tools/codex", "resume", "S"},
		"./codex":          {"codex", "resume", "S"},
		"/opt/codex-wrap":  {"codex", "resume", "S"},
		"/bin/bash":        {"codex", "resume", "S"},
	}
	for launch, want := range cases {
		if got := a.Resume(launch, "S"); !slices.Equal(got, want) {
			t.Errorf("launched as %s: %q, want %q", launch, got, want)
		}
	}
}

func TestNormalizeTakesProgramNames(t *testing.T) {
	for in, want := range map[string]string{"cursor-agent": "cursor", "cursor": "cursor", "claude": "claude", "none": "none", "vim": "vim"} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDetectByBasename(t *testing.T) {
	for argv0, kind := range map[string]string{"claude": "claude", "/usr/local/bin/cursor-agent": "cursor",
		"codex": "codex", "bash": KindNone, "agent": KindNone, "claude-wrapper": KindNone} {
		if got := Detect(argv0); got != kind {
			t.Errorf("Detect(%q) = %s, want %s", argv0, got, kind)
		}
	}
}

func TestSelfReportedResumeArgvLimits(t *testing.T) {
	many := make([]string, 65)
	for i := range many {
		many[i] = "a"
	}
	cases := []struct {
		argv []string
		why  string
	}{
		{[]string{"mytool", "--continue", "S"}, ""},
		{[]string{"my_tool.v2-x"}, ""},
		{nil, "empty"},
		{many, "too_many"},
		{[]string{"tool", strings.Repeat("x", 8200)}, "too_large"},
		{[]string{"tool", "a\nb"}, "control_character"},
		{[]string{"tool", "a\u009bb"}, "control_character"},
		{[]string{"/usr/bin/tool"}, "not_a_command_name"},
		{[]string{"-tool"}, "not_a_command_name"},
		{[]string{""}, "not_a_command_name"},
		{[]string{"to ol"}, "not_a_command_name"},
	}
	for _, c := range cases {
		if got := CheckResumeArgv(c.argv); got != c.why {
			t.Errorf("CheckResumeArgv(%q) = %q, want %q", c.argv, got, c.why)
		}
	}
}

func TestClaudeNotificationsAskingPermissionAreHigherThanQuestions(t *testing.T) {
	a, _ := Lookup("claude")
	d, _ := a.Classify("Notification", map[string]any{"notification_type": "permission_prompt"})
	q, _ := a.Classify("Notification", map[string]any{"notification_type": "elicitation_dialog"})
	idle, _ := a.Classify("Notification", map[string]any{"notification_type": "idle_prompt"})
	if d.Attention != AttentionPermissionRequired || q.Attention != AttentionInputRequired || idle != (Decision{}) {
		t.Errorf("permission %+v, question %+v, idle prompt %+v", d, q, idle)
	}
	if AttentionRank(AttentionPermissionRequired) <= AttentionRank(AttentionInputRequired) || AttentionRank("bogus") != -1 {
		t.Error("attention order")
	}
	if _, ok := a.Classify("NoSuchEvent", nil); ok {
		t.Error("an unknown event is recognised")
	}
}

// A hook names the model at the top level ("model"), except Gemini CLI's
// BeforeModel, which carries it in its request (llm_request.model); a
// BeforeModel never takes a pane out of blocked.
func TestTheModelIsReadWhereTheAgentsHookPutsIt(t *testing.T) {
	g, _ := Lookup("gemini")
	c, _ := Lookup("claude")
	req := map[string]any{"session_id": "s", "llm_request": map[string]any{"model": "gemini-x", "messages": []any{}}}
	if got := g.Model(req); got != "gemini-x" {
		t.Errorf("gemini BeforeModel model %q, want gemini-x", got)
	}
	if got := g.Model(map[string]any{"llm_request": "not an object"}); got != "" {
		t.Errorf("gemini model from a malformed payload %q, want none", got)
	}
	if got := c.Model(map[string]any{"model": "claude-y"}); got != "claude-y" {
		t.Errorf("claude model %q, want claude-y", got)
	}
	if d, ok := g.Classify("BeforeModel", req); !ok || d.Lifecycle != LifecycleWorking || !d.Tool {
		t.Errorf("gemini BeforeModel: %+v %v, want working, not out of blocked", d, ok)
	}
}

// opencode reports an interrupted turn as session.error
// MessageAbortedError: the turn ends idle, without an error.
func TestOpencodeInterruptIsNoError(t *testing.T) {
	a, _ := Lookup("opencode")
	d, _ := a.Classify("session.error", map[string]any{"error": map[string]any{"name": "MessageAbortedError", "data": map[string]any{"message": "aborted"}}})
	if d.Lifecycle != LifecycleIdle || d.Attention != "" || d.NotifyTitle != "" || !d.EndsTurn {
		t.Errorf("interrupt: %+v, want idle, ending the turn, no attention or notification", d)
	}
	f, _ := a.Classify("session.error", map[string]any{"error": map[string]any{"name": "APIError"}})
	if f.Lifecycle != LifecycleFailed || f.Attention != AttentionError {
		t.Errorf("API error: %+v, want failed with error", f)
	}
}

func TestPiTurnEndedByAFailedModelCallIsFailed(t *testing.T) {
	a, _ := Lookup("pi")
	failed, _ := a.Classify("agent_end", map[string]any{"stop_reason": "error", "error_message": "400 scripted failure"})
	if failed.Lifecycle != LifecycleFailed || failed.Attention != AttentionError || !failed.EndsTurn {
		t.Errorf("agent_end with stop_reason error: %+v, want failed with error attention", failed)
	}
	done, _ := a.Classify("agent_end", map[string]any{"stop_reason": "stop"})
	if done.Lifecycle != LifecycleDone || done.Attention != AttentionUnread {
		t.Errorf("agent_end with stop_reason stop: %+v, want done", done)
	}
}

// The opencode plugin passes an assistant message's model on as
// message.updated {sessionID, model}: it names the model and changes
// nothing else.
func TestOpencodeMessageUpdatedNamesTheModelOnly(t *testing.T) {
	a, _ := Lookup("opencode")
	payload := map[string]any{"sessionID": "ses_1", "model": "scripted-model"}
	d, known := a.Classify("message.updated", payload)
	if !known || d != (Decision{}) {
		t.Errorf("message.updated: %+v known %v, want a known event that changes nothing", d, known)
	}
	if m := a.Model(payload); m != "scripted-model" {
		t.Errorf("model %q, want scripted-model", m)
	}
}

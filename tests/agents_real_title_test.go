package tests

import (
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// Claude Code and Gemini CLI set titles whose characters' UTF-8 encodings
// hold the byte 0x9C (U+2733, U+2726): the title stays what they set, none
// of it lands on the screen, and its closing BEL is no bell. Every agent's
// title and screen are without U+FFFD after a turn.
func TestRealAgentTitleLeavesTheScreenClean(t *testing.T) {
	titleText := map[string]string{"claude": "Claude Code", "gemini": "Gemini"}
	forEachAgent(t, realAgentOrder, func(t *testing.T, kind string) {
		w := newRealWorld(t, kind, nil, harness.Say("title-0e5b", "title answered"))
		ws := w.workspace(t, "proj")
		p := w.start(t, ws)
		if got := getAgentPane(t, w.d, p.ID); got.Attention != "none" {
			t.Errorf("attention %q before any turn (a title's BEL rang?): %+v", got.Attention, got)
		}
		w.prompt(t, p.ID, "title-0e5b")
		c := w.waitScreen(t, p.ID, "title answered")
		got := getAgentPane(t, w.d, p.ID)
		if titleText[kind] != "" {
			// The agent sets its title once its UI is up.
			got = w.waitPane(t, p.ID, "a title set by the agent", func(q agentPane) bool { return q.Title != "" && q.Title != p.Title })
		}
		if strings.ContainsRune(got.Title, '\uFFFD') {
			t.Errorf("title %q: want the agent's own title, without U+FFFD", got.Title)
		}
		for i, l := range c.Lines {
			if strings.ContainsRune(l, '\uFFFD') {
				t.Errorf("screen line %d holds U+FFFD: %q", i, l)
			}
			// The banner names the program with its version; a title printed
			// onto the screen does not.
			if s := titleText[kind]; s != "" && strings.Contains(l, s) && !strings.Contains(l, s+" v") && !strings.Contains(l, s+" CLI v") {
				t.Errorf("screen line %d holds title text %q: %q", i, s, l)
			}
		}
	})
}

// Right after start-up, before any turn, nothing has rung: attention none.
func TestRealAgentStartsWithoutABell(t *testing.T) {
	forEachAgent(t, realAgentOrder, func(t *testing.T, kind string) {
		w := newRealWorld(t, kind, nil)
		ws := w.workspace(t, "proj")
		p := w.start(t, ws)
		if got := getAgentPane(t, w.d, p.ID); got.Attention != "none" {
			t.Errorf("attention %q after start-up, want none: %+v", got.Attention, got)
		}
	})
}

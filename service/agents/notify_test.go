package agents

import (
	"strings"
	"testing"
)

func TestNotificationTextLosesEscapeSequencesAndControls(t *testing.T) {
	cases := map[string]string{
		"build\x1b[31m done\x1b[0m":                 "build done",
		"a\x1b]0;evil title\x07b":                   "ab",
		"a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\": "alink",
		"tab\tnew\nline\rbell\x07":                  "tab\tnew\nlinebell",
		"c1\u009b2Jcsi\u009d0;t\u009cend":           "c1csiend",
		"\x1bPq#0\x1b\\sixel":                       "sixel",
		"  spaced  ":                                "spaced",
		"\xff":                                      "\uFFFD",
	}
	for in, want := range cases {
		if got := CleanText(in, 100); got != want {
			t.Errorf("CleanText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := CleanText(strings.Repeat("é", 300), MaxNotifyTitle); len([]rune(got)) != MaxNotifyTitle {
		t.Errorf("title cut to %d characters, want %d", len([]rune(got)), MaxNotifyTitle)
	}
}

package main

import (
	"io"
	"slices"
	"testing"
)

// Each entry of topCommands names the command it builds, aliases included,
// so that an invocation builds the command it names.
func TestTopCommandsNameWhatTheyBuild(t *testing.T) {
	a := &app{out: io.Discard, errw: io.Discard}
	for _, tc := range topCommands {
		c := tc.build(a)
		if want := append([]string{c.Name()}, c.Aliases...); !slices.Equal(tc.names, want) {
			t.Errorf("topCommands entry %v builds %v", tc.names, want)
		}
	}
}

func TestCommandWordSkipsRootFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "wait", "--run", "r0"}, "run"},
		{[]string{"--json", "--address", "unix:/x", "ws", "list"}, "ws"},
		{[]string{"--address=unix:/x", "--json=true", "pane"}, "pane"},
		{[]string{"-h", "run"}, ""},
		{[]string{"--", "run"}, ""},
		{[]string{"help", "run"}, "help"},
		{nil, ""},
	} {
		if got := commandWord(c.args); got != c.want {
			t.Errorf("commandWord(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}

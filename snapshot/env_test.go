package snapshot

import (
	"reflect"
	"testing"
)

func TestEnvAllowed(t *testing.T) {
	for name, want := range map[string]bool{
		"TERM": true, "LANG": true, "LC_ALL": true, "LC_CTYPE": true, "SIGNALTTY_THEME": true, "SIGNALTTY_LOG_LEVEL": true,

		"SIGNALTTY_TOKEN": false, "SIGNALTTY_PANE": false, "SIGNALTTY_ADDRESS": false, "SIGNALTTY_RUN": false,
		"SIGNALTTY_API_KEY": false, "SIGNALTTY_SECRET": false, "SIGNALTTY_PASSWORD": false, "SIGNALTTY_AUTH": false,
		"SIGNALTTY_token_x": false, "LC_KEYMAP": false, "SIGNALTTY_": false, "LC_": false,
		"GITHUB_TOKEN": false, "AWS_SECRET_ACCESS_KEY": false, "HOME": false, "PATH": false, "COLORTERM": false,
		"term": false, "lang": false, "": false, "LC_ALL=x": false, "SIGNALTTY_A B": false,
	} {
		if got := EnvAllowed(name); got != want {
			t.Errorf("EnvAllowed(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestFilterEnv(t *testing.T) {
	in := map[string]string{"TERM": "xterm", "GITHUB_TOKEN": "x", "LC_ALL": "C", "PATH": "/bin"}
	got := FilterEnv(in)
	if want := map[string]string{"TERM": "xterm", "LC_ALL": "C"}; !reflect.DeepEqual(got, want) {
		t.Errorf("FilterEnv = %v, want %v", got, want)
	}
	if len(in) != 4 {
		t.Error("FilterEnv modified its argument")
	}
	if FilterEnv(map[string]string{"PATH": "/bin"}) != nil || FilterEnv(nil) != nil {
		t.Error("FilterEnv of nothing allowed is not nil")
	}
}

package service

import (
	"reflect"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/service/request"
)

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"CI":                                "ci",
		"  My Project!! 2 ":                 "my-project-2",
		"日本語":                               "ws",
		"":                                  "ws",
		strings.Repeat("ab", 40):            strings.Repeat("ab", 16),
		"a" + strings.Repeat("-", 40) + "b": "a-b",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLayoutSplitAndRemove(t *testing.T) {
	root := &node{pane: "a"}
	if !root.split("a", "b", AxisCols) || !root.split("b", "c", AxisRows) {
		t.Fatal("split did not find its target")
	}
	if root.split("zz", "d", AxisCols) {
		t.Fatal("split of an unknown pane reported success")
	}
	if got := root.leaves(); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Fatalf("leaves = %v", got)
	}
	if root.axis != AxisCols || root.second.axis != AxisRows || root.ratio != 0.5 {
		t.Fatalf("unexpected tree %+v", root.snapshot())
	}
	root = root.without("b")
	if got := root.leaves(); !reflect.DeepEqual(got, []string{"a", "c"}) || root.axis != AxisCols {
		t.Fatalf("after removing b: %v axis %q", got, root.axis)
	}
	root = root.without("a")
	if root.pane != "c" {
		t.Fatalf("after removing a: %+v", root.snapshot())
	}
	if root.without("c") != nil {
		t.Fatal("removing the last leaf must leave no layout")
	}
}

func TestSplitSize(t *testing.T) {
	for _, c := range []struct {
		size, first, second int
		ok                  bool
	}{{80, 39, 40, true}, {3, 1, 1, true}, {2, 0, 0, false}, {24, 11, 12, true}} {
		f, s, ok := splitSize(c.size, 0.5)
		if f != c.first || s != c.second || ok != c.ok {
			t.Errorf("splitSize(%d) = %d,%d,%v want %d,%d,%v", c.size, f, s, ok, c.first, c.second, c.ok)
		}
		if ok && f+s+1 != c.size {
			t.Errorf("splitSize(%d) loses cells", c.size)
		}
	}
}

func TestChildEnv(t *testing.T) {
	daemon := []string{"HOME=/h", "LISTEN_PID=1", "LISTEN_FDS=1", "NOTIFY_SOCKET=/n", "INVOCATION_ID=x",
		"JOURNAL_STREAM=1:2", "WATCHDOG_USEC=5", "TERM=dumb", "SIGNALTTY_PANE=old", "PATH=/bin"}
	env := childEnv(daemon, map[string]string{"FOO": "bar"}, []string{"HOME", "NOT_SET"}, "pane_1", "unix:/s")
	got := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
	}
	want := map[string]string{"PATH": "/bin", "TERM": "xterm-256color", "FOO": "bar",
		"SIGNALTTY_PANE": "pane_1", "SIGNALTTY_ADDRESS": "unix:/s"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("childEnv = %v, want %v", got, want)
	}
}

func TestCheckRequestEnv(t *testing.T) {
	for _, c := range []struct {
		env    map[string]string
		unset  []string
		code   string
		reason string
	}{
		{map[string]string{"OK_1": "v", "TERM": "dumb"}, []string{"HOME", "HOME", "NOTIFY_SOCKET"}, "", ""},
		{map[string]string{"1BAD": "v"}, nil, "env", "name"},
		{map[string]string{"A=B": "v"}, nil, "env", "name"},
		{map[string]string{"": "v"}, nil, "env", "name"},
		{map[string]string{"SIGNALTTY_PANE": "v"}, nil, "env", "reserved"},
		{map[string]string{"SIGNALTTY_RUN": "r9"}, nil, "env", "reserved"},
		{map[string]string{"A": "x\x00y"}, nil, "env", "nul"},
		{nil, []string{""}, "env_unset", "name"},
		{nil, []string{"A=B"}, "env_unset", "name"},
		{nil, []string{"A\x00"}, "env_unset", "name"},
		{nil, []string{"SIGNALTTY_ADDRESS"}, "env_unset", "reserved"},
		{nil, []string{"TERM"}, "env_unset", "reserved"},
		{map[string]string{"X": "1"}, []string{"X"}, "env_unset", "exclusive"},
	} {
		err := checkRequestEnv(c.env, c.unset)
		switch {
		case c.reason == "" && err != nil:
			t.Errorf("%v %q: unexpected %v", c.env, c.unset, err)
		case c.reason != "" && (err == nil || err.Data["reason"] != c.reason || string(err.Code) != "invalid_params."+c.code):
			t.Errorf("%v %q: got %v, want %s reason %s", c.env, c.unset, err, c.code, c.reason)
		}
	}
}

func TestParseSignal(t *testing.T) {
	for _, name := range []string{"term", "SIGTERM", "Term"} {
		if sig, err := request.ParseSignal(name, 0); err != nil || sig.String() != "terminated" {
			t.Errorf("request.ParseSignal(%q) = %v, %v", name, sig, err)
		}
	}
	if _, err := request.ParseSignal("SIGSEGV", 0); err == nil || err.Code != "invalid_params.signal" {
		t.Errorf("SIGSEGV accepted: %v", err)
	}
}

func TestLayoutAreaAndFit(t *testing.T) {
	root := &node{pane: "a"}
	root.split("a", "b", AxisCols)
	root.split("b", "c", AxisRows)
	sizes := map[string][2]int{"a": {39, 24}, "b": {40, 11}, "c": {40, 12}}
	get := func(id string) (int, int) { return sizes[id][0], sizes[id][1] }
	if c, r := root.area(get); c != 80 || r != 24 {
		t.Fatalf("area = %dx%d, want 80x24", c, r)
	}
	root = root.without("a")
	got := map[string][2]int{}
	root.fit(80, 24, func(id string, c, r int) { got[id] = [2]int{c, r} })
	if got["b"] != [2]int{80, 11} || got["c"] != [2]int{80, 12} || len(got) != 2 {
		t.Fatalf("fit after removing a: %v", got)
	}
}

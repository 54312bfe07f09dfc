package tests

// One pane's principal against another's (docs/security.md, "Checks"):
// with its default grants a pane drives itself and what it creates, never
// another pane; a missing pane is denied exactly as another's is.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

func TestPaneCannotDriveAnotherPane(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "agents").ID
	a := d.NewInPane(t, "--workspace", ws)
	b := d.Spawn(t, []string{"--workspace", ws}, "sh", "-c", "echo b-is-here; exec sleep 100")
	d.WaitLine(t, b.ID, "b-is-here")
	const missing = "pane_000000000000"
	verbs := []struct {
		name, code string
		args       func(p string) []string
	}{
		{"send", "denied.write", func(p string) []string { return []string{"pane", "send", "--pane", p, "--text", "rm -rf ~\\n"} }},
		{"capture", "denied.read", func(p string) []string { return []string{"pane", "capture", "--pane", p} }},
		{"get", "denied.read", func(p string) []string { return []string{"pane", "get", "--pane", p} }},
		{"kill", "denied.write", func(p string) []string { return []string{"pane", "kill", "--pane", p} }},
		{"signal", "denied.write", func(p string) []string { return []string{"pane", "signal", "--pane", p, "--signal", "TERM"} }},
		{"resize", "denied.write", func(p string) []string {
			return []string{"pane", "resize", "--pane", p, "--cols", "40", "--rows", "10"}
		}},
		{"relaunch", "denied.write", func(p string) []string { return []string{"pane", "relaunch", "--pane", p} }},
		{"remove", "denied.write", func(p string) []string { return []string{"pane", "remove", "--pane", p, "--kill"} }},
		{"split", "denied.spawn", func(p string) []string {
			return []string{"pane", "spawn", "--split", p, "--axis", "cols", "--", "true"}
		}},
		{"run in it", "denied.spawn", func(p string) []string {
			return []string{"run", "--key", "k", "--pane", p, "--axis", "rows", "--", "true"}
		}},
	}
	for _, v := range verbs {
		t.Run(v.name, func(t *testing.T) {
			other := a.Fail(t, v.code, 4, v.args(b.ID)...)
			gone := a.Fail(t, v.code, 4, v.args(missing)...)
			if strings.ReplaceAll(other.Message, b.ID, "X") != strings.ReplaceAll(gone.Message, missing, "X") {
				t.Errorf("a missing pane is denied differently from another's: %q vs %q", other.Message, gone.Message)
			}
		})
	}
	// B was untouched: live, same size, no input.
	p := d.GetPane(t, b.ID)
	if p.State != "live" || p.Cols != 80 {
		t.Errorf("B changed: %+v", p)
	}
	if c := d.Capture(t, b.ID); c.Contains("rm -rf") {
		t.Errorf("input reached B:\n%s", c.Dump())
	}
	// A drives itself and what it creates.
	a.JSON(t, nil, "pane", "get", "--pane", a.Pane.ID)
	var sp struct{ Pane harness.Pane }
	a.JSON(t, &sp, "pane", "spawn", "--split", a.Pane.ID, "--axis", "cols", "--", "sleep", "100")
	a.JSON(t, nil, "pane", "kill", "--pane", sp.Pane.ID)
	// A's listing shows only what it may read.
	var l struct{ Panes []harness.Pane }
	a.JSON(t, &l, "pane", "list")
	for _, p := range l.Panes {
		if p.ID == b.ID {
			t.Errorf("A lists B")
		}
	}
	if len(l.Panes) != 2 {
		t.Errorf("A lists %d panes, want itself and its split", len(l.Panes))
	}
	// Every denial was audited with principal, verb and resource.
	st := d.Stderr()
	if n := strings.Count(st, "msg=denied"); n < 2*len(verbs) {
		t.Errorf("%d audit lines, want %d:\n%s", n, 2*len(verbs), st)
	}
	if !strings.Contains(st, "principal=pane:"+a.Pane.ID) || !strings.Contains(st, "verb=dev.signaltty.Mux.SendInput") || !strings.Contains(st, "resource=pane:"+b.ID) {
		t.Errorf("audit line lacks principal, verb or resource:\n%s", st)
	}
	if strings.Contains(st, "rm -rf") {
		t.Errorf("an argument reached the log")
	}
}

// A pane principal's event stream carries only events of what it may read:
// its own pane and what it created, never another pane's.
func TestPaneEventStreamIsFilteredByRead(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "stream").ID
	a := d.NewInPane(t, "--workspace", ws)
	out := filepath.Join(harness.TempDir(t), "events")
	if r := a.Sh(t, fmt.Sprintf(`'%s' --json events --follow --after 0 > '%s' 2>&1 &`, harness.Bin(t, "signaltty"), out)); r.Code != 0 {
		t.Fatalf("events in the pane:\n%s", r)
	}
	b := d.Spawn(t, []string{"--workspace", ws}, "sh", "-c", "echo b; exec sleep 100")
	d.WaitLine(t, b.ID, "b")
	var sp struct{ Pane harness.Pane }
	a.JSON(t, &sp, "pane", "spawn", "--split", a.Pane.ID, "--axis", "cols", "--", "sleep", "100")
	var got string
	harness.Eventually(t, harness.PollTimeout, "A sees its own split's pane.created", func() (bool, string) {
		bs, _ := os.ReadFile(out)
		got = string(bs)
		return strings.Contains(got, `"type":"pane.created","resource":"`+sp.Pane.ID+`"`), got
	})
	if strings.Contains(got, b.ID) {
		t.Errorf("A's stream shows B's events:\n%s", got)
	}
	if strings.Contains(got, `"resource":"`+ws+`"`) {
		t.Errorf("A's stream shows the owner's workspace events:\n%s", got)
	}
}

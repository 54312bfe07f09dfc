package tests

// signaltty attach --keys: every key, as docs/attach.md's Keys table has
// them (cmd/internal/keytable compares the two).

import (
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

func TestAttachKeysListsEveryKeyOffATerminal(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	r := d.CLI(t, "attach", "--keys")
	if r.Code != 0 {
		t.Fatalf("attach --keys: %s", r)
	}
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if f := strings.Fields(lines[0]); len(f) != 4 || f[0] != "TABLE" || f[3] != "DOES" {
		t.Fatalf("no header: %q", lines[0])
	}
	tables := map[string]bool{}
	for _, l := range lines[1:] {
		tables[strings.Fields(l)[0]] = true
	}
	for _, want := range []string{"root", "prefix", "history", "mouse", "navigator"} {
		if !tables[want] {
			t.Errorf("no %s table:\n%s", want, r.Stdout)
		}
	}
	for _, want := range []string{"C-v, r", "toggle the selection between a rectangle and characters", "drag a border"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("the list lacks %q:\n%s", want, r.Stdout)
		}
	}
}

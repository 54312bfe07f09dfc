package keytable

import (
	"os"
	"strings"
	"testing"
)

// The table in docs/attach.md, "Keys", is Markdown(): a key added here
// and not there (or there and not here) fails.
func TestTheDocsListEveryKeyOfTheTable(t *testing.T) {
	b, err := os.ReadFile("../../../docs/attach.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	const begin, end = "<!-- keys: begin (cmd/internal/keytable) -->\n", "<!-- keys: end -->"
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("docs/attach.md has no %q … %q section", begin, end)
	}
	if got, want := doc[i+len(begin):j], Markdown(); got != want {
		t.Fatalf("docs/attach.md's key table differs from the key table; it should read:\n%s", want)
	}
}

func TestPrintListsEveryKeyOneALine(t *testing.T) {
	var b strings.Builder
	if err := Print(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != len(Keys)+1 || !strings.HasPrefix(lines[0], "TABLE") {
		t.Fatalf("%d lines for %d keys:\n%s", len(lines), len(Keys), b.String())
	}
	for i, k := range Keys {
		if f := strings.Fields(lines[i+1]); f[0] != k.Table || !strings.Contains(lines[i+1], k.Does) {
			t.Errorf("line %d %q does not list %+v", i+1, lines[i+1], k)
		}
	}
}

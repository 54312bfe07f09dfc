package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// anchors returns the anchors GitHub gives the headings of a Markdown
// file: lower case, punctuation dropped, spaces as hyphens, a repeated
// one suffixed -1, -2, ….
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, h := range headingTexts(text) {
		a := strings.Map(func(r rune) rune {
			switch {
			case r == ' ':
				return '-'
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				return unicode.ToLower(r)
			}
			return -1
		}, h)
		if n, ok := seen[a]; ok {
			seen[a] = n + 1
			a += "-" + strconv.Itoa(n+1)
		} else {
			seen[a] = 0
		}
		out[a] = true
	}
	return out
}

var linkRe = regexp.MustCompile(`\]\(([A-Za-z0-9_-]+\.md)?(?:#([^)\s]+))?\)`)

// TestLinksResolve fails for every link between the files of docs/ whose
// file or heading anchor does not exist.
func TestLinksResolve(t *testing.T) {
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = string(b)
	}
	n := 0
	for _, f := range files {
		for i, l := range strings.Split(texts[f], "\n") {
			for _, m := range linkRe.FindAllStringSubmatch(l, -1) {
				if m[1] == "" && m[2] == "" {
					continue
				}
				n++
				target := m[1]
				if target == "" {
					target = f
				}
				text, ok := texts[target]
				switch {
				case !ok:
					t.Errorf("%s:%d: links to %s, which is not in docs/", f, i+1, target)
				case m[2] != "" && !anchors(text)[m[2]]:
					t.Errorf("%s:%d: %s has no heading with the anchor #%s", f, i+1, target, m[2])
				}
			}
		}
	}
	if n < 50 {
		t.Fatalf("found only %d links: the pattern no longer matches how docs link", n)
	}
}

func TestAnchors(t *testing.T) {
	a := anchors("# Order of checks\n## Selected fields and pages: Mux.ListPaneFields\n## When\n### When\n```\n# Not\n```\n")
	for _, want := range []string{"order-of-checks", "selected-fields-and-pages-muxlistpanefields", "when", "when-1"} {
		if !a[want] {
			t.Errorf("no anchor %q in %v", want, a)
		}
	}
	if a["not"] {
		t.Error("a line in a code block has an anchor")
	}
}

package docs

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A citation is `docs/<file>.md, "Heading"`, optionally followed by more
// headings of the same file (`, "Other"` or ` and "Other"`). In Go strings
// the quotes are escaped (`\"`); a citation may be wrapped over comment
// lines (`//`, `#`) or over lines of a string (`\n` in Go and JSON
// strings), which are joined before matching.
var (
	citationRe = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])docs/([A-Za-z0-9_-]+\.md), "([^"]+)"((?:(?:,| and) "[^"]+")*)`)
	// looseRe is what a citation written another way looks like: the
	// heading after a space or an opening parenthesis instead of ", ".
	looseRe = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])(docs/[A-Za-z0-9_-]+\.md(?: \(| )"[^"]+")`)
	moreRe  = regexp.MustCompile(`"([^"]+)"`)
	// fileRe is a file of docs/ named with or without a heading.
	fileRe = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])docs/([A-Za-z0-9_-]+\.md)`)
	// joinRe joins a line to the next across a comment marker.
	joinRe    = regexp.MustCompile(`[ \t]*(?:\n|\\n)[ \t]*(?://+|#+|\*|\.\\")?[ \t]*`)
	headingRe = regexp.MustCompile(`^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$`)
)

// foreign are files of another project's docs/ that comments name (the pi
// coding agent's, in service/agents and its extension).
var foreign = map[string]bool{"extensions.md": true, "session-format.md": true, "sessions.md": true}

type citation struct {
	where   string // path:line of the citation
	file    string // "run-wait.md"; "" for a citation not in the form
	heading string // "": the file alone; for file "", the citation as written
}

// citations returns every citation in the text files of the tree rooted at
// root, leaving out dot directories, build output and files that hold a NUL byte in their
// first 8 KiB (binaries) or are larger than 4 MiB.
func citations(t *testing.T, root string) []citation {
	t.Helper()
	var out []citation
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			if path != root && strings.HasPrefix(d.Name(), ".") || rel == "bin" || rel == "build" {
				return filepath.SkipDir // hidden, or build output (.gitignore)
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > 4<<20 {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.IndexByte(b[:min(len(b), 8192)], 0) >= 0 {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		out = append(out, findCitations(rel, string(b))...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// findCitations returns the citations in text, the content of file name.
func findCitations(name, text string) []citation {
	text = strings.ReplaceAll(text, `\"`, `"`)
	// Join wrapped lines, remembering where each joined offset came from.
	var (
		joined strings.Builder
		lineAt []int // line number of each byte of joined
	)
	line, last := 1, 0
	for _, m := range joinRe.FindAllStringIndex(text, -1) {
		joined.WriteString(text[last:m[0]])
		for range m[0] - last {
			lineAt = append(lineAt, line)
		}
		joined.WriteByte(' ')
		lineAt = append(lineAt, line)
		line += strings.Count(text[m[0]:m[1]], "\n")
		last = m[1]
	}
	joined.WriteString(text[last:])
	for range len(text) - last {
		lineAt = append(lineAt, line)
	}
	s := joined.String()
	var out []citation
	for _, m := range citationRe.FindAllStringSubmatchIndex(s, -1) {
		where := name + ":" + itoa(lineAt[m[2]])
		file := s[m[2]:m[3]]
		out = append(out, citation{where, file, s[m[4]:m[5]]})
		for _, h := range moreRe.FindAllStringSubmatch(s[m[6]:m[7]], -1) {
			out = append(out, citation{where, file, h[1]})
		}
	}
	for _, m := range fileRe.FindAllStringSubmatchIndex(s, -1) {
		if !foreign[s[m[2]:m[3]]] {
			out = append(out, citation{name + ":" + itoa(lineAt[m[2]]), s[m[2]:m[3]], ""})
		}
	}
	for _, m := range looseRe.FindAllStringSubmatchIndex(s, -1) {
		out = append(out, citation{name + ":" + itoa(lineAt[m[2]]), "", s[m[2]:m[3]]})
	}
	return out
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

// headingTexts returns the text of every ATX heading of a Markdown file
// in order, outside fenced code blocks.
func headingTexts(text string) []string {
	var hs []string
	fence := ""
	for _, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(l, " ")
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			switch {
			case fence == "":
				fence = trimmed[:3]
			case strings.HasPrefix(trimmed, fence):
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		if m := headingRe.FindStringSubmatch(l); m != nil {
			hs = append(hs, m[2])
		}
	}
	return hs
}

// headings is the set of headingTexts.
func headings(text string) map[string]bool {
	hs := map[string]bool{}
	for _, h := range headingTexts(text) {
		hs[h] = true
	}
	return hs
}

// TestCitationsResolve fails for every `docs/<file>.md, "Heading"` in the
// tree whose file is not in docs/ or has no heading with exactly that text,
// for every `docs/<file>.md` named alone that is not in docs/, and for a
// citation written in another form.
func TestCitationsResolve(t *testing.T) {
	cites := citations(t, "..")
	if len(cites) < 100 {
		t.Fatalf("found only %d citations: the pattern no longer matches how the tree cites docs", len(cites))
	}
	files := map[string]map[string]bool{}
	for _, c := range cites {
		if c.file == "" {
			t.Errorf("%s: %s: write a citation as docs/<file>.md, \"Heading\"", c.where, c.heading)
			continue
		}
		hs, ok := files[c.file]
		if !ok {
			b, err := os.ReadFile(c.file)
			if err == nil {
				hs = headings(string(b))
			}
			files[c.file] = hs
		}
		switch {
		case hs == nil:
			t.Errorf("%s: docs/%s does not exist", c.where, c.file)
		case c.heading != "" && !hs[c.heading]:
			t.Errorf("%s: docs/%s has no heading %q", c.where, c.file, c.heading)
		}
	}
	n := 0
	for _, c := range cites {
		if c.heading != "" && c.file != "" {
			n++
		}
	}
	t.Logf("%d citations of a heading, %d of a file", n, len(cites)-n)
}

func TestFindCitations(t *testing.T) {
	// DOCS stands for docs, so that TestCitationsResolve does not find these.
	text := "// a (DOCS/run-wait.md,\n// \"Order of checks\") and\n\t# DOCS/rows.md, \"A\" and \"B\"\nx := \"DOCS/mcp.md, \\\"C\\\"\"\n// (DOCS/a.md \"Loose\")\n// see pkg/DOCS/other.md, \"No\"\n{\"d\": \"(DOCS/x.md,\\n\\\"Y\\\").\"}\n"
	got := findCitations("f.go", strings.ReplaceAll(text, "DOCS", "docs"))
	want := []citation{
		{"f.go:1", "run-wait.md", "Order of checks"},
		{"f.go:3", "rows.md", "A"},
		{"f.go:3", "rows.md", "B"},
		{"f.go:4", "mcp.md", "C"},
		{"f.go:7", "x.md", "Y"},
		{"f.go:1", "run-wait.md", ""},
		{"f.go:3", "rows.md", ""},
		{"f.go:4", "mcp.md", ""},
		{"f.go:5", "a.md", ""},
		{"f.go:7", "x.md", ""},
		{"f.go:5", "", "docs" + "/a.md \"Loose\""},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("citation %d: got %v, want %v", i, got[i], want[i])
		}
	}
	hs := headings("# T\n\n## Order of checks\n```\n# not\n```\n### Keys ##\n")
	for _, h := range []string{"T", "Order of checks", "Keys"} {
		if !hs[h] {
			t.Errorf("heading %q not found in %v", h, hs)
		}
	}
	if hs["not"] {
		t.Error("a line in a code block counted as a heading")
	}
}

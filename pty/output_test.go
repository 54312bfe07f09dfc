package pty

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/term"
)

// A pane's terminal is what a Process writes its output to.
var _ Output = (*term.Terminal)(nil)

// startTerm is Start with a new term.Terminal of cfg's size as the Output
// (tc giving its other settings) whose replies go to the child's input; the
// terminal is closed when Start fails.
func startTerm(cfg Config, tc term.Config) (*Process, error) {
	r := NewReplies()
	cfg.Replies = r
	tc.Cols, tc.Rows, tc.Replies = cfg.Cols, cfg.Rows, r
	t := term.NewTerminal(tc)
	p, err := Start(cfg, t)
	if err != nil {
		t.Close()
	}
	return p, err
}

// terminal is the term.Terminal startTerm gave p.
func terminal(p *Process) *term.Terminal { return p.out.(*term.Terminal) }

// The process layer does no emulation: no production file of the package
// imports the emulator or what it is built on.
func TestNoEmulationImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path == "github.com/signaltty/signaltty/term" || strings.HasPrefix(path, "github.com/signaltty/signaltty/term/") ||
				strings.Contains(path, "charmbracelet") {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no production files found")
	}
}

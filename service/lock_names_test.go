package service

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// heldDoc and notHeldDoc are how a doc comment says whether its function
// wants the service's lock held.
var (
	heldDoc    = regexp.MustCompile(`\b(s\.mu|mu|lock) (is|are) held\b`)
	notHeldDoc = regexp.MustCompile(`\b(s\.mu|mu|lock) is not held\b|\bwithout s\.mu\b`)
)

// The lock-naming rule of service/doc.go: a function that wants
// Service.mu held is named …Locked and never takes the lock itself; a
// function documented to run without the lock is not named so. The
// methods of model need the lock by their type's rule.
func TestLockedNamesFollowTheLockRule(t *testing.T) {
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
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			checked++
			locked := strings.HasSuffix(fn.Name.Name, "Locked")
			doc := ""
			if fn.Doc != nil {
				doc = strings.Join(strings.Fields(fn.Doc.Text()), " ")
			}
			where := fset.Position(fn.Pos()).String() + " " + fn.Name.Name
			if locked && takesLock(fn.Body) {
				t.Errorf("%s: named …Locked but locks s.mu itself", where)
			}
			if !locked && heldDoc.MatchString(doc) && !notHeldDoc.MatchString(doc) && !isModelMethod(fn) {
				t.Errorf("%s: its doc says the lock is held, but its name does not end in Locked", where)
			}
			if locked && notHeldDoc.MatchString(doc) && !heldDoc.MatchString(doc) {
				t.Errorf("%s: named …Locked but its doc says the lock is not held", where)
			}
		}
	}
	if checked < 200 {
		t.Fatalf("checked %d functions; the package has more: is the test reading the right directory?", checked)
	}
}

// takesLock reports whether body calls <x>.mu.Lock() before it ever
// calls <x>.mu.Unlock() (a function that lets the lock go while it waits
// takes it back).
func takesLock(body *ast.BlockStmt) bool {
	var lock, unlock token.Pos
	ast.Inspect(body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false // a closure runs later, under its own rules
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if mu, ok := sel.X.(*ast.SelectorExpr); !ok || mu.Sel.Name != "mu" {
			return true
		}
		switch {
		case sel.Sel.Name == "Lock" && lock == token.NoPos:
			lock = call.Pos()
		case sel.Sel.Name == "Unlock" && unlock == token.NoPos:
			unlock = call.Pos()
		}
		return true
	})
	return lock != token.NoPos && (unlock == token.NoPos || lock < unlock)
}

func isModelMethod(fn *ast.FuncDecl) bool {
	if fn.Recv == nil || len(fn.Recv.List) != 1 {
		return false
	}
	star, ok := fn.Recv.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	id, ok := star.X.(*ast.Ident)
	return ok && id.Name == "model"
}

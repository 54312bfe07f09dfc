package varlink

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The static scan behind the declared-errors test: which error codes each
// adapter method can reach. It type-checks this module's packages from
// source, follows every call to a function or concrete method of the
// module (an interface method: every module method of that name whose
// receiver implements it), and collects the codes that appear on the way:
// constant expressions of type errcode.Code, and errcode.Invalid,
// errcode.InvalidParams and errcode.NotFound called with a constant (with
// another argument they give the class alone, "invalid_params.*").

const modulePath = "github.com/signaltty/signaltty"
const errcodePath = modulePath + "/service/errcode"

type ctor struct {
	class string
	arg   int
}

type codeScan struct {
	fset  *token.FileSet
	std   types.ImporterFrom
	root  string // the module's directory
	pkgs  map[string]*types.Package
	infos map[*types.Package]*types.Info
	decls map[*types.Func]*ast.FuncDecl
	// methods by name, for calls through an interface
	byName map[string][]*types.Func
	// ctors are the functions that build a code from one argument: the
	// class and the argument's index
	ctors map[*types.Func]ctor
}

func newCodeScan(t *testing.T) *codeScan {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	exports, err := exportData(root)
	if err != nil {
		t.Fatal(err)
	}
	lookup := func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	}
	cs := &codeScan{fset: fset, std: importer.ForCompiler(fset, "gc", lookup).(types.ImporterFrom), root: root,
		pkgs: map[string]*types.Package{}, infos: map[*types.Package]*types.Info{},
		decls: map[*types.Func]*ast.FuncDecl{}, ctors: map[*types.Func]ctor{}, byName: map[string][]*types.Func{}}
	if _, err := cs.Import(modulePath + "/varlink"); err != nil {
		t.Fatal(err)
	}
	cs.findCtors()
	return cs
}

// exportData maps each package the adapters depend on to its compiled
// export data in the build cache (go list -export).
func exportData(root string) (map[string]string, error) {
	cmd := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}} {{.Export}}", "./varlink")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export: %w", err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, file, ok := strings.Cut(line, " "); ok && file != "" {
			m[path] = file
		}
	}
	return m, nil
}

func (cs *codeScan) Import(path string) (*types.Package, error) {
	return cs.ImportFrom(path, cs.root, 0)
}

// ImportFrom checks the module's packages itself, keeping their syntax,
// and leaves every other package to the source importer.
func (cs *codeScan) ImportFrom(path, dir string, mode types.ImportMode) (*types.Package, error) {
	if p := cs.pkgs[path]; p != nil {
		return p, nil
	}
	if path != modulePath && !strings.HasPrefix(path, modulePath+"/") {
		return cs.std.ImportFrom(path, dir, mode)
	}
	pdir := filepath.Join(cs.root, strings.TrimPrefix(strings.TrimPrefix(path, modulePath), "/"))
	bp, err := build.ImportDir(pdir, 0)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(cs.fset, filepath.Join(pdir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: cs}
	p, err := conf.Check(path, cs.fset, files, info)
	if err != nil {
		return nil, err
	}
	cs.pkgs[path], cs.infos[p] = p, info
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				fn := info.Defs[fd.Name].(*types.Func)
				cs.decls[fn] = fd
				if fd.Recv != nil {
					cs.byName[fn.Name()] = append(cs.byName[fn.Name()], fn)
				}
			}
		}
	}
	return p, nil
}

// method is the declared method name of a named type in a module package.
func (cs *codeScan) method(pkg, typ, name string) *types.Func {
	p := cs.pkgs[pkg]
	if p == nil {
		return nil
	}
	tn, _ := p.Scope().Lookup(typ).(*types.TypeName)
	if tn == nil {
		return nil
	}
	obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(tn.Type()), false, p, name)
	fn, _ := obj.(*types.Func)
	return fn
}

// codes is every code fn can reach, as "class.what" or "class.*", each
// with the first chain of calls found to reach it (fn first).
func (cs *codeScan) codes(fn *types.Func) map[string][]string {
	out := map[string][]string{}
	seen := map[*types.Func]bool{}
	var path []string
	var walk func(fn *types.Func)
	walk = func(fn *types.Func) {
		fn = fn.Origin()
		fd := cs.decls[fn]
		if _, stop := boundaries[funcName(fn)]; seen[fn] || fd == nil || stop {
			return
		}
		seen[fn] = true
		path = append(path, funcName(fn))
		defer func() { path = path[:len(path)-1] }()
		info := cs.infos[fn.Pkg()]
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			e, ok := n.(ast.Expr)
			if !ok {
				return true
			}
			if c, ok := cs.codeOf(info, e); ok {
				if _, dup := out[c]; !dup {
					out[c] = append([]string(nil), path...)
				}
				return false
			}
			var id *ast.Ident
			switch e := e.(type) {
			case *ast.Ident:
				id = e
			case *ast.SelectorExpr:
				id = e.Sel
			}
			callee, _ := info.Uses[id].(*types.Func)
			if id == nil || callee == nil {
				return true
			}
			if callee.Pkg() == nil {
				return true
			}
			if _, ok := cs.decls[callee.Origin()]; ok {
				walk(callee)
			} else if recv := callee.Signature().Recv(); recv != nil && types.IsInterface(recv.Type()) {
				iface, _ := recv.Type().Underlying().(*types.Interface)
				for _, m := range cs.byName[callee.Name()] {
					rt := m.Signature().Recv().Type()
					if iface != nil && (types.Implements(rt, iface) || types.Implements(types.NewPointer(rt), iface)) {
						walk(m)
					}
				}
			}
			return true
		})
	}
	walk(fn)
	return out
}

// boundaries are the functions the scan does not enter: the codes built
// in them reach someone other than the caller of the verb that calls them.
var boundaries = map[string]string{
	"service.Service.emitLocked":   "publishes an event: a code built there ends a subscriber's stream (Events.Subscribe)",
	"service.removedWhileStarting": "the error of the pane's own start, given to the call that is starting it",
	"authz.Table.Allowed":          "answers yes or no: a lookup's error inside it is dropped",
	// Guard passes an authorized call on to the interface's dispatcher:
	// each method is scanned from its own adapter method instead.
	"devsignalttyrun.VarlinkInterface.VarlinkDispatch":    "the Run handler Guard passes a call to",
	"devsignalttymux.VarlinkInterface.VarlinkDispatch":    "the Mux handler Guard passes a call to",
	"devsignalttyserver.VarlinkInterface.VarlinkDispatch": "the Server handler Guard passes a call to",
	"devsignalttyevents.VarlinkInterface.VarlinkDispatch": "the Events handler Guard passes a call to",
}

// funcName is pkg.Func or pkg.Type.Method, with the package's last element.
func funcName(fn *types.Func) string {
	name := fn.Name()
	if recv := fn.Signature().Recv(); recv != nil {
		t := recv.Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := t.(*types.Named); ok {
			name = n.Obj().Name() + "." + name
		}
	}
	return filepath.Base(fn.Pkg().Path()) + "." + name
}

// findCtors seeds the constructors with errcode's (Invalid, InvalidParams,
// NotFound) and adds every module function that passes one of its own
// parameters on as a constructor's argument, until none is added.
func (cs *codeScan) findCtors() {
	ec := cs.pkgs[errcodePath]
	for name, class := range map[string]string{"Invalid": "invalid_params", "InvalidParams": "invalid_params", "NotFound": "not_found"} {
		cs.ctors[ec.Scope().Lookup(name).(*types.Func)] = ctor{class, 0}
	}
	for added := true; added; {
		added = false
		for fn, fd := range cs.decls {
			if _, ok := cs.ctors[fn]; ok {
				continue
			}
			info := cs.infos[fn.Pkg()]
			params := fn.Signature().Params()
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				c, ok := cs.ctors[calleeOf(info, call)]
				if !ok || c.arg >= len(call.Args) {
					return true
				}
				id, _ := call.Args[c.arg].(*ast.Ident)
				for i := range params.Len() {
					if id != nil && info.Uses[id] == params.At(i) {
						cs.ctors[fn] = ctor{c.class, i}
						added = true
						return false
					}
				}
				return true
			})
		}
	}
}

// calleeOf is the function a call names, or nil.
func calleeOf(info *types.Info, call *ast.CallExpr) *types.Func {
	var id *ast.Ident
	switch f := call.Fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	}
	if id == nil {
		return nil
	}
	fn, _ := info.Uses[id].(*types.Func)
	if fn != nil {
		fn = fn.Origin()
	}
	return fn
}

// codeOf is the code an expression stands for: a constant of type Code, or
// a call of a constructor that builds one from its first argument.
func (cs *codeScan) codeOf(info *types.Info, e ast.Expr) (string, bool) {
	tv := info.Types[e]
	if tv.Value != nil && tv.Value.Kind() == constant.String && constant.StringVal(tv.Value) != "" {
		if named, ok := tv.Type.(*types.Named); ok && named.Obj().Pkg() != nil &&
			named.Obj().Pkg().Path() == errcodePath && named.Obj().Name() == "Code" {
			return constant.StringVal(tv.Value), true
		}
	}
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return "", false
	}
	c, ok := cs.ctors[calleeOf(info, call)]
	if !ok || c.arg >= len(call.Args) {
		return "", false
	}
	if av := info.Types[call.Args[c.arg]].Value; av != nil && av.Kind() == constant.String {
		return c.class + "." + constant.StringVal(av), true
	}
	return c.class + ".*", true
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

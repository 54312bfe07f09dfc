package varlink

import (
	"go/constant"
	"go/types"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/service/errcode"
	ev "github.com/signaltty/signaltty/varlink/devsignalttyevents"
	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
	runv "github.com/signaltty/signaltty/varlink/devsignalttyrun"
	srv "github.com/signaltty/signaltty/varlink/devsignalttyserver"
)

// The interfaces and the adapter type that implements each one's methods.
var adapters = []struct {
	adapter string
	iface   described
}{
	{"Run", new(runv.VarlinkInterface)},
	{"Mux", new(mux.VarlinkInterface)},
	{"ServerIface", new(srv.VarlinkInterface)},
	{"Events", new(ev.VarlinkInterface)},
}

// undocumented are the codes a method's "Errors:" list need not name:
// internal (any call can fail so), cancelled (the caller hung up: no one
// reads the reply) and denied.* (every call is authorized before its
// handler runs; the interface's Denied error names them).
func undocumented(code string) bool {
	return code == "internal" || code == "cancelled" || errcode.Code(code).Class() == "denied"
}

// notReturned are codes the scan reaches from a method that the method
// cannot return, each with the reason; a stale entry fails the test.
var notReturned = map[string]map[string]string{
	"dev.signaltty.Run.Start": {
		"invalid_params.workspace": "the target form is checked first: an empty workspace is invalid_params.target",
		"invalid_params.pane":      "the target form is checked first: an empty pane is invalid_params.target",
		"invalid_params.tab":       "a run's target is a workspace or a pane, never a tab (the tab branch of the spawn target)",
		"not_found.tab":            "a run's target is a workspace or a pane, never a tab",
		"conflict.tab_not_empty":   "a run's target is a workspace or a pane, never a tab",
		"timeout.terminate":        "the deadline's termination runs on its timer; its error reaches no caller",
	},
	"dev.signaltty.Mux.CreateWorkspace": {
		"invalid_params.workspace": "the pane's target is the workspace just made, by id",
		"conflict.name_ambiguous":  "the pane's target is the workspace just made, by id",
		"conflict.ref_ambiguous":   "the pane's target is the workspace just made, by id",
		"invalid_params.tab":       "the pane's target is a workspace, never a tab",
		"not_found.tab":            "the pane's target is a workspace, never a tab",
		"invalid_params.pane":      "the pane's target is a workspace, never a split",
		"not_found.pane":           "the pane's target is a workspace, never a split",
		"conflict.pane_starting":   "the pane's target is a workspace, never a split",
		"conflict.pane_live":       "the undo of a failed spawn removes with force and drops its error",
		"timeout.terminate":        "the undo of a failed spawn removes with force and drops its error",
		"conflict.not_a_worktree":  "gitError maps every git failure; adding a worktree fails with none of these",
		"conflict.worktree_dirty":  "gitError maps every git failure; adding a worktree fails with none of these",
		"conflict.worktree_locked": "gitError maps every git failure; adding a worktree fails with none of these",
	},
	"dev.signaltty.Mux.WaitOutput": {
		"conflict.pane_exited":      "only SendWait writes: WaitOutput passes no input to Service.WaitOutput",
		"conflict.pane_terminating": "only SendWait writes: WaitOutput passes no input to Service.WaitOutput",
		"invalid_params.size":       "only SendWait writes: WaitOutput passes no input to Service.WaitOutput",
		"timeout.input":             "only SendWait writes: WaitOutput passes no input to Service.WaitOutput",
		"unavailable.input_rate":    "only SendWait writes: WaitOutput passes no input to Service.WaitOutput",
	},
	"dev.signaltty.Server.RestoreSnapshot": {
		"invalid_params.env":          "a saved variable name that fails the check is dropped, not returned",
		"invalid_params.env_unset":    "a saved variable name that fails the check is dropped, not returned",
		"invalid_params.history_rows": "a saved depth that fails the check is replaced by the daemon's, not returned",
	},
}

// notFromMethods are the codes (errcode constants) the scan finds in no
// interface method, each with why; every other constant must be reached
// by some method, so a code added to errcode is either scanned or
// reviewed here.
var notFromMethods = map[string]string{
	"denied.delegation":           "built from the right (denied.<right>): the scan sees no constant",
	"denied.other_user":           "the CLI's, for a socket of another user",
	"conflict.tab_empty":          "the attach client's",
	"unavailable.daemon":          "the CLI's and the daemon's start-up, when no daemon answers",
	"unavailable.state_directory": "the daemon's start-up",
	"unavailable.transport":       "the CLI's remote transport",
	"unavailable.attach_viewer":   "the CLI's attach",
	"unavailable.mcp_server":      "the CLI's MCP bridge",
	"unsupported.method":          "the CLI's, for a daemon without the method",
	"unavailable.lagged":          "ends a subscriber's stream, from the event delivery (a boundary of the scan)",
	"unavailable.connections":     "the connection limit, answered before any method (docs/errors.md, \"On the wire\")",
	"unavailable.request_budget":  "the request budget, answered before any method (docs/errors.md, \"On the wire\")",
	"timeout.idle":                "the connection's idle limit, outside any method",
	"timeout.request":             "the connection's request limit, outside any method",
}

// sentAsInternal are the codes a method returns whose class its interface
// declares no error for, so they are sent as Internal with the code kept
// (docs/errors.md, "On the wire"); a stale entry fails the test.
var sentAsInternal = map[string]string{
	"dev.signaltty.Mux cancelled": "the client hung up; docs/errors.md names this case",
}

// listsUnchecked are the interfaces whose methods' "Errors:" lists are not
// yet held to every code the scan finds (each other interface's are).
var listsUnchecked = map[string]string{}

var (
	methodDecl = regexp.MustCompile(`(?m)^method\s+([A-Za-z0-9]+)\s*\(`)
	// a code ("conflict.run_key", "cancelled"), or ".what" continuing a
	// list in the class last named ("invalid_params.key, .argv")
	// ("invalid_params.<field>": any code of the class)
	codeWord = regexp.MustCompile(`\b(invalid_params|not_found|denied|conflict|unavailable|timeout|cancelled|unsupported|internal)\b(\.[a-z_]+|\.<[a-z_]+>)?|(?:^|[\s,(/])\.([a-z_]+)`)
)

// methodDocs maps each method of an IDL to its comments: the lines above
// it and those inside its parameters and results.
func methodDocs(idl string) map[string]string {
	docs := map[string]string{}
	var comment []string
	lines := strings.Split(idl, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if strings.HasPrefix(line, "#") {
			comment = append(comment, strings.TrimPrefix(line, "#"))
			continue
		}
		if m := methodDecl.FindStringSubmatch(line); m != nil {
			doc := comment
			for depth := strings.Count(line, "(") - strings.Count(line, ")"); depth > 0 && i+1 < len(lines); {
				i++
				l := strings.TrimSpace(lines[i])
				if strings.HasPrefix(l, "#") {
					doc = append(doc, strings.TrimPrefix(l, "#"))
				}
				depth += strings.Count(l, "(") - strings.Count(l, ")")
				if depth == 0 && strings.HasSuffix(l, "-> (") {
					depth = 1
				}
			}
			docs[m[1]] = strings.Join(doc, "\n")
		}
		comment = nil
	}
	return docs
}

// thoseOf is how a method's Errors list takes in another's: "those of
// SpawnPane".
var thoseOf = regexp.MustCompile(`\bthose\s+of\s+([A-Z][A-Za-z]+)`)

// docCodes are the codes a method's comments name, with those of the
// methods it names ("those of SpawnPane", from docs).
func docCodes(doc string, docs map[string]string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]bool{}
	var add func(doc string)
	add = func(doc string) {
		for _, m := range thoseOf.FindAllStringSubmatch(doc, -1) {
			if d, ok := docs[m[1]]; ok && !seen[m[1]] {
				seen[m[1]] = true
				add(d)
			}
		}
		for c := range codesIn(doc) {
			out[c] = true
		}
	}
	add(doc)
	return out
}

// referenceCodes are the errors of a reference, by the name of the
// parameter that holds it, which a Mux method returns without its Errors
// list naming them: the interface's comment states them once.
var referenceCodes = map[string][]string{
	"workspace": {"invalid_params.workspace", "not_found.workspace", "conflict.name_ambiguous", "conflict.ref_ambiguous"},
	"tab":       {"invalid_params.tab", "not_found.tab"},
	"pane":      {"invalid_params.pane", "not_found.pane"},
	"split":     {"invalid_params.pane", "not_found.pane"},
}

// The Mux IDL states the reference errors once, with every code that
// referenceCodes lets a method leave out of its list.
func TestReferenceErrorsAreStatedOnce(t *testing.T) {
	idl := new(mux.VarlinkInterface).VarlinkGetDescription()
	_, rest, ok := strings.Cut(idl, "\n# Reference errors:")
	if !ok {
		t.Fatal("the Mux IDL has no \"Reference errors:\" paragraph")
	}
	para, _, _ := strings.Cut(rest, "\n#\n")
	stated := codesIn(para)
	for p, codes := range referenceCodes {
		for _, c := range codes {
			if !stated[c] {
				t.Errorf("the reference errors of %s include %s, which the paragraph does not state", p, c)
			}
		}
	}
}

// methodParams maps each method of an IDL to the names of its parameters.
func methodParams(idl string) map[string][]string {
	out := map[string][]string{}
	for _, m := range methodDecl.FindAllStringSubmatchIndex(idl, -1) {
		name := idl[m[2]:m[3]]
		depth, start := 1, m[1]
		end := start
		for ; end < len(idl) && depth > 0; end++ {
			switch idl[end] {
			case '(':
				depth++
			case ')':
				depth--
			}
		}
		for _, line := range strings.Split(idl[start:end], "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "#") {
				continue
			}
			for _, part := range strings.Split(line, ",") {
				if p, _, ok := strings.Cut(strings.TrimSpace(part), ":"); ok && !strings.ContainsAny(p, " ()?[]") {
					out[name] = append(out[name], p)
				}
			}
		}
	}
	return out
}

// codesIn are the codes a comment names.
func codesIn(doc string) map[string]bool {
	out := map[string]bool{}
	class := ""
	for _, m := range codeWord.FindAllStringSubmatch(doc, -1) {
		switch {
		case m[1] != "":
			class = m[1]
			out[class+m[2]] = true
		case class != "":
			out[class+"."+m[3]] = true
		}
	}
	return out
}

// Every code a method can return is sent as its class's error, which the
// interface's IDL declares (or the client would get Internal instead), and
// a method whose IDL comment lists its errors ("Errors:") lists every code
// it can return. What a method can return comes from a static scan of the
// adapter method and everything it calls (errscan_test.go).
func TestEveryReturnedCodeIsDeclared(t *testing.T) {
	cs := newCodeScan(t)
	for name := range boundaries {
		found := false
		for fn := range cs.decls {
			found = found || funcName(fn) == name
		}
		if !found {
			t.Errorf("boundary %s is no function of the module: update the table", name)
		}
	}
	internal := map[string]bool{}
	reached := map[string]bool{}
	defer func() {
		ec := cs.pkgs[errcodePath].Scope()
		for _, name := range ec.Names() {
			k, ok := ec.Lookup(name).(*types.Const)
			if !ok {
				continue
			}
			code := constant.StringVal(k.Val())
			_, elsewhere := notFromMethods[code]
			if reached[code] == elsewhere {
				t.Errorf("errcode.%s (%s): reached by a method %v, listed in notFromMethods %v", name, code, reached[code], elsewhere)
			}
		}
	}()
	defer func() {
		for k := range sentAsInternal {
			if !internal[k] {
				t.Errorf("no method returns %s any more: drop it from sentAsInternal", k)
			}
		}
	}()
	guard := cs.codes(cs.method(modulePath+"/varlink", "guarded", "VarlinkDispatch"))
	for _, a := range adapters {
		ie := errorsOf(a.iface)
		idl := a.iface.VarlinkGetDescription()
		docs := methodDocs(idl)
		params := methodParams(idl)
		if len(docs) == 0 {
			t.Fatalf("%s: no methods in its IDL", ie.iface)
		}
		for method, doc := range docs {
			fn := cs.method(modulePath+"/varlink", a.adapter, method)
			if fn == nil {
				t.Errorf("%s.%s has no adapter method %s.%s", ie.iface, method, a.adapter, method)
				continue
			}
			codes := cs.codes(fn)
			for c, p := range guard {
				codes[c] = p
			}
			verb := ie.iface + "." + method
			for c := range notReturned[verb] {
				if _, ok := codes[c]; !ok {
					t.Errorf("%s no longer reaches %s: drop it from notReturned", verb, c)
				}
				delete(codes, c)
			}
			listed := docCodes(doc, docs)
			if strings.Contains(idl, "\n# Reference errors:") {
				for _, p := range params[method] {
					for _, c := range referenceCodes[p] {
						listed[c] = true
					}
				}
			}
			_, unchecked := listsUnchecked[ie.iface]
			lists := !unchecked && strings.Contains(doc, "Errors:")
			for c, path := range codes {
				reached[c] = true
				class, what, _ := strings.Cut(c, ".")
				anyOfClass := false
				for l := range listed {
					anyOfClass = anyOfClass || strings.HasPrefix(l, class+".<")
				}
				if got := ie.name(errcode.Code(c)); got != errorNames[class] {
					if _, ok := sentAsInternal[ie.iface+" "+c]; ok {
						internal[ie.iface+" "+c] = true
					} else {
						t.Errorf("%s.%s can return %s (%s), which its IDL declares no error for: it would be sent as %s",
							ie.iface, method, c, strings.Join(path, " > "), got)
					}
				}
				if lists && what != "*" && !undocumented(c) && !listed[c] && !anyOfClass {
					t.Errorf("%s.%s can return %s (%s), which its Errors list does not name",
						ie.iface, method, c, strings.Join(path, " > "))
				}
			}
		}
	}
}

// An interface's declared errors are its IDL's error declarations, and a
// code of a class it does not declare is sent as its Internal error.
func TestDeclaredErrorsComeFromTheIDL(t *testing.T) {
	ev := errorsOf(new(ev.VarlinkInterface))
	if ev.iface != "dev.signaltty.Events" || len(ev.declared) == 0 {
		t.Fatalf("errorsOf(Events) = %+v", ev)
	}
	if got := ev.name(errcode.NotFoundPane); got != "Internal" {
		t.Errorf("Events sends not_found.pane as %s, want Internal (it declares no NotFound)", got)
	}
	if got := ev.name(errcode.UnavailableLagged); got != "Unavailable" {
		t.Errorf("Events sends unavailable.lagged as %s, want Unavailable", got)
	}
	for _, a := range adapters {
		ie := errorsOf(a.iface)
		for name := range ie.declared {
			if !strings.Contains(a.iface.VarlinkGetDescription(), "\nerror "+name+" (") {
				t.Errorf("%s: %s is not declared in its IDL", ie.iface, name)
			}
		}
	}
}

// docs/errors.md, "On the wire", lists each interface's declared errors in
// class order; the table is what the IDLs declare.
func TestErrorsDocListsTheDeclaredErrors(t *testing.T) {
	doc, err := os.ReadFile("../docs/errors.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `(dev\\.signaltty\\.[A-Za-z]+)` \\| ([^|]+) \\|$").FindAllStringSubmatch(string(doc), -1) {
		rows[m[1]] = strings.TrimSpace(m[2])
	}
	for _, a := range adapters {
		ie := errorsOf(a.iface)
		var names []string
		for _, class := range errcode.Classes {
			if ie.declared[errorNames[class]] {
				names = append(names, errorNames[class])
			}
		}
		want := strings.Join(names, ", ")
		if len(names) == len(errcode.Classes) {
			want = "all nine"
		}
		if rows[ie.iface] != want {
			t.Errorf("docs/errors.md lists %s's errors as %q; its IDL declares %q", ie.iface, rows[ie.iface], want)
		}
	}
}

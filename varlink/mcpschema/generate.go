package mcpschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/varlink/go/varlink/idl"
)

// IDLFiles are the interface descriptions the tools are generated from,
// relative to this package's directory.
var IDLFiles = []string{
	"../devsignalttyrun/dev.signaltty.Run.varlink",
	"../devsignalttymux/dev.signaltty.Mux.varlink",
	"../devsignalttyserver/dev.signaltty.Server.varlink",
}

// Generated file names, in this package's directory.
const (
	ToolsFile = "tools.json"
	SkillFile = "SKILL.md"
)

// iface is one parsed interface with the comments of its fields, which
// the idl package does not keep: fieldDocs["Record.pid"],
// fieldDocs["Start.in.key"], fieldDocs["CaptureRows.out.restored_rows"].
type iface struct {
	idl       *idl.IDL
	fieldDocs map[string]string
}

// Generate reads the IDL files in dir (this package's directory) and
// returns the contents of tools.json and SKILL.md.
func Generate(dir string) (toolsJSON, skill []byte, err error) {
	ifaces := map[string]*iface{}
	for _, f := range IDLFiles {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return nil, nil, err
		}
		parsed, err := idl.New(string(b))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f, err)
		}
		ifaces[parsed.Name] = &iface{idl: parsed, fieldDocs: fieldComments(string(b))}
	}
	var out []Tool
	for _, t := range tools {
		name, method, ok := strings.Cut(t.method[len("dev.signaltty."):], ".")
		if !ok {
			return nil, nil, fmt.Errorf("tool %s: bad method %q", t.name, t.method)
		}
		ifc := ifaces["dev.signaltty."+name]
		if ifc == nil {
			return nil, nil, fmt.Errorf("tool %s: no interface for %s", t.name, t.method)
		}
		var m *idl.Method
		for _, cand := range ifc.idl.Methods {
			if cand.Name == method {
				m = cand
			}
		}
		if m == nil {
			return nil, nil, fmt.Errorf("tool %s: %s is not in the IDL", t.name, t.method)
		}
		g := &schemaGen{ifc: ifc, defs: map[string]any{}}
		in := g.object(m.In, method+".in", true, t.params)
		if len(g.defs) > 0 {
			in["$defs"] = g.defs
		}
		g.defs = map[string]any{}
		outSchema := g.object(m.Out, method+".out", false, nil)
		if len(g.defs) > 0 {
			outSchema["$defs"] = g.defs
		}
		if err := leaveOut(outSchema, t); err != nil {
			return nil, nil, fmt.Errorf("tool %s: %w", t.name, err)
		}
		doc := m.Doc
		for old, repl := range t.doc {
			if !strings.Contains(doc, old) {
				return nil, nil, fmt.Errorf("tool %s: the IDL comment of %s no longer has %q", t.name, t.method, old)
			}
			doc = strings.Replace(doc, old, repl, 1)
		}
		out = append(out, Tool{Name: t.name, Method: t.method, CLI: t.cli,
			Description: t.hint + "\n\n" + doc, MethodDoc: m.Doc, Annotations: annotations(t),
			InputSchema: mustRaw(in), OutputSchema: mustRaw(outSchema), Omit: t.omit, OmitDefault: t.omitDefault})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return nil, nil, err
	}
	preface, err := os.ReadFile(filepath.Join(dir, "skill-preface.md"))
	if err != nil {
		return nil, nil, err
	}
	return buf.Bytes(), skillGuide(preface, out), nil
}

// leaveOut removes the fields MCP leaves out of t's reply from the output
// schema s: an omitted one from the properties, one left out at its
// default from the required fields, its description saying when.
func leaveOut(s map[string]any, t tool) error {
	for _, p := range t.omit {
		obj, name, err := schemaParent(s, p)
		if err != nil {
			return err
		}
		delete(obj["properties"].(map[string]any), name)
		unrequire(obj, name)
	}
	for p, v := range t.omitDefault {
		obj, name, err := schemaParent(s, p)
		if err != nil {
			return err
		}
		unrequire(obj, name)
		prop := obj["properties"].(map[string]any)[name].(map[string]any)
		note := fmt.Sprintf("In MCP left out when %s.", mustRaw(v))
		if d, ok := prop["description"].(string); ok {
			note = d + " " + note
		}
		prop["description"] = note
	}
	return nil
}

// schemaParent finds the object schema that has the last field of the
// dotted path, following $ref into root's $defs.
func schemaParent(root map[string]any, path string) (map[string]any, string, error) {
	names := strings.Split(path, ".")
	obj := root
	for i, n := range names {
		if ref, ok := obj["$ref"].(string); ok {
			defs, _ := root["$defs"].(map[string]any)
			obj, _ = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		}
		props, _ := obj["properties"].(map[string]any)
		next, ok := props[n].(map[string]any)
		if !ok {
			return nil, "", fmt.Errorf("the reply has no field %s", path)
		}
		if i == len(names)-1 {
			return obj, n, nil
		}
		if _, isRef := next["$ref"]; !isRef && next["anyOf"] != nil {
			next = next["anyOf"].([]any)[0].(map[string]any) // a ?T field
		}
		obj = next
	}
	return nil, "", fmt.Errorf("empty path")
}

// unrequire removes name from obj's required fields.
func unrequire(obj map[string]any, name string) {
	req, _ := obj["required"].([]string)
	obj["required"] = slices.DeleteFunc(slices.Clone(req), func(r string) bool { return r == name })
	if len(obj["required"].([]string)) == 0 {
		delete(obj, "required")
	}
}

// annotations is the tool's MCP annotations. Tools that start or drive
// programs keep MCP's defaults (not read-only, maybe destructive), except
// that run is idempotent: a repeat with its key starts nothing.
func annotations(t tool) map[string]bool {
	a := map[string]bool{"readOnlyHint": false, "idempotentHint": t.name == "run"}
	switch t.ann {
	case reads:
		a["readOnlyHint"] = true
	case stops:
		a["destructiveHint"], a["idempotentHint"] = true, true
	case adds:
		a["destructiveHint"] = false
	case renames:
		a["destructiveHint"], a["idempotentHint"] = false, true
	}
	return a
}

func mustRaw(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return json.RawMessage(bytes.TrimSpace(b.Bytes()))
}

// schemaGen turns varlink types into JSON Schema (draft 2020-12).
type schemaGen struct {
	ifc  *iface
	defs map[string]any // named types an output refers to
}

// object is the schema of a method's input or output struct (or of a
// named struct type, owner its name). Inputs are closed (an unknown
// parameter is an error, as the daemon would answer); outputs are open, so
// a newer daemon's additional fields do not fail validation. Optional
// (?T) output fields may be null.
func (g *schemaGen) object(t *idl.Type, owner string, input bool, override map[string]string) map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, f := range t.Fields {
		ft := f.Type
		optional := ft.Kind == idl.TypeMaybe
		if optional {
			ft = ft.ElementType
		}
		s := g.schema(ft, owner+"."+f.Name, input)
		if optional && !input {
			s = nullable(s)
		} else if !optional {
			required = append(required, f.Name)
		}
		doc := g.ifc.fieldDocs[owner+"."+f.Name]
		if d, ok := override[f.Name]; ok {
			doc = d
		}
		if doc != "" {
			s["description"] = doc
		}
		props[f.Name] = s
	}
	o := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		o["required"] = required
	}
	if input {
		o["additionalProperties"] = false
	}
	return o
}

func (g *schemaGen) schema(t *idl.Type, owner string, input bool) map[string]any {
	switch t.Kind {
	case idl.TypeBool:
		return map[string]any{"type": "boolean"}
	case idl.TypeInt:
		return map[string]any{"type": "integer"}
	case idl.TypeFloat:
		return map[string]any{"type": "number"}
	case idl.TypeString:
		return map[string]any{"type": "string"}
	case idl.TypeObject:
		return map[string]any{"type": "object"}
	case idl.TypeArray:
		return map[string]any{"type": "array", "items": g.schema(t.ElementType, owner, input)}
	case idl.TypeMap:
		return map[string]any{"type": "object", "additionalProperties": g.schema(t.ElementType, owner, input)}
	case idl.TypeMaybe:
		return nullable(g.schema(t.ElementType, owner, input))
	case idl.TypeEnum:
		vals := []string{}
		for _, f := range t.Fields {
			vals = append(vals, f.Name)
		}
		return map[string]any{"type": "string", "enum": vals}
	case idl.TypeStruct:
		return g.object(t, owner, input, nil)
	case idl.TypeAlias:
		if _, ok := g.defs[t.Alias]; !ok {
			for _, a := range g.ifc.idl.Aliases {
				if a.Name == t.Alias {
					g.defs[t.Alias] = true // placeholder: recursive types (Layout)
					s := g.schema(a.Type, a.Name, input)
					if a.Doc != "" {
						s["description"] = a.Doc
					}
					g.defs[t.Alias] = s
				}
			}
		}
		return map[string]any{"$ref": "#/$defs/" + t.Alias}
	}
	panic(fmt.Sprintf("varlink type kind %d", t.Kind))
}

// nullable lets a schema also accept null.
func nullable(s map[string]any) map[string]any {
	typ, ok := s["type"].(string)
	if !ok {
		return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
	}
	s["type"] = []string{typ, "null"}
	if vals, ok := s["enum"].([]string); ok {
		e := make([]any, 0, len(vals)+1)
		for _, v := range vals {
			e = append(e, v)
		}
		s["enum"] = append(e, nil)
	}
	return s
}

// fieldComments collects the "#" lines written just above a field of a
// type or a method's parameters, keyed Type.field, Method.in.field or
// Method.out.field.
func fieldComments(text string) map[string]string {
	// Compiled here, not at package initialisation: the programs that link
	// this package for its generated data (the CLI, the MCP server) never
	// generate.
	reOwner := regexp.MustCompile(`^(type|method)\s+([A-Za-z0-9]+)\s*\(`)
	reField := regexp.MustCompile(`^([a-z_][A-Za-z0-9_]*)\s*:`)
	docs := map[string]string{}
	owner := ""
	var pending []string
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		switch {
		case l == "":
			pending = nil
		case strings.HasPrefix(l, "#"):
			if owner != "" {
				pending = append(pending, strings.TrimSpace(strings.TrimPrefix(l, "#")))
			}
		case reOwner.MatchString(l):
			m := reOwner.FindStringSubmatch(l)
			owner = m[2]
			if m[1] == "method" {
				owner += ".in"
			}
			if strings.Contains(l, ") -> (") && m[1] == "method" {
				owner = m[2] + ".out"
			}
			if strings.HasSuffix(l, ")") {
				owner = ""
			}
			pending = nil
		case strings.HasPrefix(l, ") -> ("):
			owner = strings.TrimSuffix(owner, ".in") + ".out"
			if strings.HasSuffix(l, ")") && l != ") -> (" {
				owner = ""
			}
			pending = nil
		case strings.HasPrefix(l, ")"):
			owner, pending = "", nil
		case owner != "" && reField.MatchString(l):
			if len(pending) > 0 {
				docs[owner+"."+reField.FindStringSubmatch(l)[1]] = strings.Join(pending, " ")
			}
			pending = nil
		default:
			pending = nil
		}
	}
	return docs
}

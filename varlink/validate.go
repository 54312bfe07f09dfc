package varlink

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/signaltty/signaltty/service/errcode"
	"github.com/varlink/go/varlink/idl"
)

// schema checks a call's parameters against its method's input type in the
// interface description, before the generated bindings decode them: those
// can only say "parameters" for a value of the wrong type and ignore
// fields they do not know (docs/errors.md, "Malformed requests").
type schema struct {
	iface   *idl.IDL
	methods map[string]*idl.Method
	aliases map[string]*idl.Alias
	named   string // the interface's InvalidParams error, "" when it has none
}

func newSchema(description string) (*schema, error) {
	in, err := idl.New(description)
	if err != nil {
		return nil, err
	}
	s := &schema{iface: in, methods: map[string]*idl.Method{}, aliases: map[string]*idl.Alias{}}
	for _, m := range in.Methods {
		s.methods[m.Name] = m
	}
	for _, a := range in.Aliases {
		s.aliases[a.Name] = a
	}
	for _, e := range in.Errors {
		if e.Name == "InvalidParams" {
			s.named = in.Name + ".InvalidParams"
		}
	}
	return s, nil
}

// paramError is a parameter that does not match the method's input type.
type paramError struct {
	Field  string // top-level parameter
	Path   string // where in it, e.g. argv[2] or env["X"]; the field itself when at the top
	Reason string // "type" or "unknown"
	Want   string // the varlink type wanted, for "type"
}

func (e *paramError) Error() string {
	if e.Reason == "unknown" {
		return fmt.Sprintf("unknown parameter %s", e.Path)
	}
	return fmt.Sprintf("parameter %s must be %s", e.Path, e.Want)
}

// check validates params (a JSON object, or empty/null for none) for
// method. It returns nil for methods it does not know (the library
// answers those) and for a valid value.
func (s *schema) check(method string, params []byte) *paramError {
	m := s.methods[method]
	if m == nil {
		return nil
	}
	params = bytes.TrimSpace(params)
	if len(params) == 0 || string(params) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return &paramError{Field: "parameters", Path: "parameters", Reason: "type", Want: "an object"}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return &paramError{Field: "parameters", Path: "parameters", Reason: "type", Want: "an object"}
	}
	return s.checkStruct(m.In, obj, "", "")
}

func (s *schema) checkStruct(t *idl.Type, obj map[string]any, field, path string) *paramError {
	known := map[string]*idl.Type{}
	for _, f := range t.Fields {
		known[f.Name] = f.Type
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		top, p := field, path+"."+k
		switch {
		case !fieldName(k):
			// Not a name the interface could have: the code says
			// "parameters" and the path quotes it.
			top, p = field, fmt.Sprintf("%s[%q]", path, k)
			if path == "" {
				top, p = "parameters", fmt.Sprintf("parameters[%q]", k)
			}
		case path == "":
			top, p = k, k
		}
		ft, ok := known[k]
		if !ok {
			return &paramError{Field: top, Path: p, Reason: "unknown"}
		}
		if err := s.checkValue(ft, obj[k], top, p); err != nil {
			return err
		}
	}
	return nil
}

func (s *schema) checkValue(t *idl.Type, v any, field, path string) *paramError {
	if v == nil {
		// null: absent for a maybe type; the bindings also read it as the
		// zero value of any other (Go's encoding/json), which is accepted.
		return nil
	}
	bad := func() *paramError {
		return &paramError{Field: field, Path: path, Reason: "type", Want: typeName(t)}
	}
	switch t.Kind {
	case idl.TypeMaybe:
		return s.checkValue(t.ElementType, v, field, path)
	case idl.TypeBool:
		if _, ok := v.(bool); !ok {
			return bad()
		}
	case idl.TypeInt:
		n, ok := v.(json.Number)
		if !ok {
			return bad()
		}
		if _, err := strconv.ParseInt(string(n), 10, 64); err != nil {
			return bad()
		}
	case idl.TypeFloat:
		n, ok := v.(json.Number)
		if !ok {
			return bad()
		}
		if _, err := strconv.ParseFloat(string(n), 64); err != nil {
			return bad()
		}
	case idl.TypeString, idl.TypeEnum:
		if _, ok := v.(string); !ok {
			return bad()
		}
	case idl.TypeObject:
	case idl.TypeArray:
		a, ok := v.([]any)
		if !ok {
			return bad()
		}
		for i, e := range a {
			if err := s.checkValue(t.ElementType, e, field, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case idl.TypeMap:
		m, ok := v.(map[string]any)
		if !ok {
			return bad()
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := s.checkValue(t.ElementType, m[k], field, fmt.Sprintf("%s[%q]", path, k)); err != nil {
				return err
			}
		}
	case idl.TypeStruct:
		m, ok := v.(map[string]any)
		if !ok {
			return bad()
		}
		return s.checkStruct(t, m, field, path)
	case idl.TypeAlias:
		a := s.aliases[t.Alias]
		if a == nil {
			return nil
		}
		return s.checkValue(a.Type, v, field, path)
	}
	return nil
}

// typeName is the varlink spelling of t, for error messages.
func typeName(t *idl.Type) string {
	switch t.Kind {
	case idl.TypeBool:
		return "bool"
	case idl.TypeInt:
		return "int"
	case idl.TypeFloat:
		return "float"
	case idl.TypeString:
		return "string"
	case idl.TypeObject:
		return "object"
	case idl.TypeArray:
		return "[]" + typeName(t.ElementType)
	case idl.TypeMaybe:
		return "?" + typeName(t.ElementType)
	case idl.TypeMap:
		return "[string]" + typeName(t.ElementType)
	case idl.TypeEnum:
		return "enum"
	case idl.TypeAlias:
		return t.Alias
	case idl.TypeStruct:
		names := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			names[i] = f.Name
		}
		return "(" + strings.Join(names, ", ") + ")"
	}
	return "a value"
}

// envelope is a varlink call message as far as checkRequest reads it.
type envelope struct {
	Method     string          `json:"method"`
	Parameters json.RawMessage `json:"parameters"`
	Oneway     bool            `json:"oneway"`
	More       bool            `json:"more"`
	Upgrade    bool            `json:"upgrade"`
}

// envelopeFlags are the boolean fields of a call message besides method
// and parameters; a value of another type (null aside) is refused by name.
var envelopeFlags = []string{"oneway", "more", "upgrade"}

// verdict is what checkRequest decides about one message.
type verdict struct {
	code  string      // "" when the message is dispatched
	reply []byte      // the error reply, NUL-terminated; nil: none (a refused oneway call)
	close bool        // the connection is closed after the reply
	pe    *paramError // the parameter at fault, for a parameter error
}

// judge checks one message against the envelope's shape and the
// parameters against schemas (docs/errors.md, "Malformed requests").
func judge(schemas map[string]*schema, msg []byte) verdict {
	var env envelope
	err := json.Unmarshal(msg, &env)
	if err == nil {
		return judgeParameters(schemas, env)
	}
	// Only a message that is not a call is read a second time, to name
	// the envelope field of the wrong type.
	var fields map[string]json.RawMessage
	if ferr := json.Unmarshal(msg, &fields); ferr != nil {
		err = ferr
	}
	for _, name := range envelopeFlags {
		if v, ok := fields[name]; ok && !isBoolOrNull(v) {
			return verdict{code: "invalid_params." + name, close: true, reply: serverError("InvalidParams",
				errcode.InvalidParams(name), name+" must be a boolean",
				map[string]any{"param": name, "reason": "type", "want": "bool"})}
		}
	}
	return verdict{code: "invalid_params.json", close: true, reply: serverError("InvalidParams", errcode.InvalidParams("json"),
		"the request is not a varlink call: "+err.Error(), map[string]any{"param": "request", "reason": "syntax"})}
}

// judgeParameters checks a call's parameters against its method's input type.
func judgeParameters(schemas map[string]*schema, env envelope) verdict {
	i := strings.LastIndex(env.Method, ".")
	if i <= 0 {
		return verdict{}
	}
	sch := schemas[env.Method[:i]]
	if sch == nil || sch.named == "" {
		return verdict{}
	}
	pe := sch.check(env.Method[i+1:], env.Parameters)
	if pe == nil {
		return verdict{}
	}
	v := verdict{code: "invalid_params." + pe.Field, pe: pe}
	if env.Oneway {
		return v
	}
	data := map[string]any{"param": pe.Field, "path": pe.Path, "reason": pe.Reason}
	if pe.Want != "" {
		data["want"] = pe.Want
	}
	out, _ := json.Marshal(map[string]any{"error": sch.named, "parameters": map[string]any{
		"code": v.code, "message": pe.Error(), "data": data}})
	v.reply = append(out, 0)
	return v
}

// isBoolOrNull reports whether a JSON value is true, false or null.
func isBoolOrNull(v json.RawMessage) bool {
	switch string(bytes.TrimSpace(v)) {
	case "true", "false", "null":
		return true
	}
	return false
}

// addSchema registers the input types of an interface for checkRequest.
// All interfaces are added before Serve.
func (s *Server) addSchema(d Dispatcher) {
	sch, err := newSchema(d.VarlinkGetDescription())
	if err != nil {
		s.log.Warn("interface description not understood: its parameters are not checked", "interface", d.VarlinkGetName(), "err", err)
		return
	}
	if s.schemas == nil {
		s.schemas = map[string]*schema{}
	}
	s.schemas[d.VarlinkGetName()] = sch
}

// checkRequest answers a message that is not JSON, or whose method is not
// a string or whose oneway, more or upgrade is not a boolean, with
// invalid_params.json or invalid_params.<flag> and an error (the
// connection is closed: what follows cannot be trusted to be in step),
// and a call whose parameters do not match its method's input type with
// the interface's InvalidParams, code invalid_params.<field> (refused: the
// call is not dispatched). docs/errors.md, "Malformed requests".
func (s *Server) checkRequest(cc *clientConn, msg []byte) (refused bool, err error) {
	v := judge(s.schemas, msg)
	switch {
	case v.code == "":
		return false, nil
	case v.close:
		cc.say(v.reply)
		return true, errRefused
	case v.reply == nil:
		return true, nil
	}
	_, err = cc.Write(s.ctx, v.reply)
	return true, err
}

// fieldName reports whether k is a varlink field name: a letter, then
// letters, digits and single underscores, not ending in one.
func fieldName(k string) bool {
	if k == "" || len(k) > 256 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && c >= '0' && c <= '9':
		case i > 0 && c == '_' && k[i-1] != '_' && i < len(k)-1:
		default:
			return false
		}
	}
	return true
}

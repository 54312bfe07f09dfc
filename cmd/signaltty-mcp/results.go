package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/signaltty/signaltty/varlink/mcpschema"
)

// object is a JSON object whose members keep their order, so that a result
// the server changes reads as the daemon wrote it.
type object []member

type member struct {
	key string
	val json.RawMessage
}

// parseObject reads raw as a JSON object; ok is false when it is not one.
func parseObject(raw []byte) (o object, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		key, isKey := tok.(string)
		if err != nil || !isKey {
			return nil, false
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return nil, false
		}
		o = append(o, member{key, v})
	}
	return o, true
}

func (o object) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.key == key {
			return m.val, true
		}
	}
	return nil, false
}

// set replaces key's value, or adds key at the end.
func (o *object) set(key string, v any) {
	raw, ok := v.(json.RawMessage)
	if !ok {
		raw = marshal(v)
	}
	for i := range *o {
		if (*o)[i].key == key {
			(*o)[i].val = raw
			return
		}
	}
	*o = append(*o, member{key, raw})
}

func (o *object) del(key string) {
	for i := range *o {
		if (*o)[i].key == key {
			*o = append((*o)[:i], (*o)[i+1:]...)
			return
		}
	}
}

func (o object) marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(marshal(m.key))
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// marshal is json.Marshal without HTML escaping and without the newline.
func marshal(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// leaveOut removes the field at path (a dotted path) from the JSON object
// raw when drop says so of its value, and returns the object; raw is
// returned as it is when the path is not there.
func leaveOut(raw json.RawMessage, path []string, drop func(json.RawMessage) bool) json.RawMessage {
	o, ok := parseObject(raw)
	if !ok {
		return raw
	}
	v, ok := o.get(path[0])
	if !ok {
		return raw
	}
	if len(path) == 1 {
		if !drop(v) {
			return raw
		}
		o.del(path[0])
	} else {
		o.set(path[0], leaveOut(v, path[1:], drop))
	}
	return o.marshal()
}

// smaller leaves out of a reply of t the fields its table says MCP leaves
// out (mcpschema.Tool.Omit and OmitDefault; docs/mcp.md, "Small results").
func smaller(t mcpschema.Tool, raw json.RawMessage) json.RawMessage {
	always := func(json.RawMessage) bool { return true }
	for _, p := range t.Omit {
		raw = leaveOut(raw, strings.Split(p, "."), always)
	}
	for p, def := range t.OmitDefault {
		want := marshal(def)
		raw = leaveOut(raw, strings.Split(p, "."), func(v json.RawMessage) bool { return bytes.Equal(v, want) })
	}
	return raw
}

// rowsAt names where a result holds rows of a pane: the object at path
// whose lines are rows numbered from its field numbered.
type rowsAt struct {
	path     []string
	numbered string
}

// rowsOf are the places of each tool's result that hold a pane's rows;
// a result over the budget loses its first rows there (fitRows).
var rowsOf = map[string][]rowsAt{
	"run_wait":         {{[]string{"record", "output"}, "start"}, {[]string{"output_so_far"}, "first"}},
	"run_get":          {{[]string{"record", "output"}, "start"}},
	"run_cancel":       {{[]string{"record", "output"}, "start"}},
	"pane_wait_output": {{nil, "first"}},
	"pane_send_wait":   {{nil, "first"}},
}

// fitRows keeps a result of tool within budget bytes by leaving out the
// first rows of its lines (the last ones are what a command printed last),
// so that it stays a result rather than one the client refuses
// (docs/mcp.md, "Result size"). The rows' numbering moves on with them
// (start or first; an output tail is then not complete, omitted grows by
// the rows left out), and the result gains cut true, continue_with (the
// pane_capture arguments of the rows left out: pane, start, end, epoch,
// trim) and note. A result that fits, or has no rows to leave out, is
// returned as it is.
func fitRows(tool string, raw json.RawMessage, pane string, trim bool, budget int) json.RawMessage {
	if len(raw) <= budget {
		return raw
	}
	for _, at := range rowsOf[tool] {
		top, ok := parseObject(raw)
		if !ok {
			return raw
		}
		holder, ok := objectAt(top, at.path)
		if !ok {
			continue
		}
		var lines []json.RawMessage
		linesRaw, _ := holder.get("lines")
		if json.Unmarshal(linesRaw, &lines) != nil || len(lines) == 0 {
			continue
		}
		var from, epoch int64
		if v, ok := holder.get(at.numbered); !ok || json.Unmarshal(v, &from) != nil {
			continue
		}
		if v, ok := holder.get("epoch"); ok {
			_ = json.Unmarshal(v, &epoch)
		}
		// What the rows left out must free, with room for the fields added.
		excess := len(raw) - budget + pageReserve
		n := 0
		for n < len(lines) && excess > 0 {
			excess -= len(lines[n]) + 1
			n++
		}
		holder.set("lines", lines[n:])
		holder.set(at.numbered, from+int64(n))
		if _, ok := holder.get("complete"); ok {
			holder.set("complete", false)
		}
		if v, ok := holder.get("omitted"); ok {
			var omitted int64
			_ = json.Unmarshal(v, &omitted)
			holder.set("omitted", omitted+int64(n))
		}
		top = setAt(top, at.path, holder)
		top.set("cut", true)
		top.set("continue_with", map[string]any{"pane": pane, "start": from, "end": from + int64(n), "epoch": epoch, "trim": trim})
		top.set("note", fmt.Sprintf("The first %d rows (%d to %d) were left out to keep this result under %d bytes: call pane_capture with continue_with to read them.",
			n, from, from+int64(n), budget))
		return top.marshal()
	}
	return raw
}

// objectAt is the object at path under top (top itself for no path).
func objectAt(top object, path []string) (object, bool) {
	o := top
	for _, k := range path {
		v, ok := o.get(k)
		if !ok {
			return nil, false
		}
		if o, ok = parseObject(v); !ok {
			return nil, false
		}
	}
	return o, true
}

// setAt returns top with the object at path replaced by v.
func setAt(top object, path []string, v object) object {
	if len(path) == 0 {
		return v
	}
	child, _ := objectAt(top, path[:1])
	top.set(path[0], setAt(child, path[1:], v).marshal())
	return top
}

package tests

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// Mux.ListPaneFields (docs/scale.md, "Selected fields and pages:
// Mux.ListPaneFields") through the CLI (`pane list --fields`) and
// varlinkctl: the selected members of each listed pane, and the whole
// ListPanes records left as they were.
func TestPaneListFieldsGivesOnlyTheNamedFieldsViaCLIAndVarlinkctl(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "fields")
	other := d.CreateWorkspace(t, "other")
	live := d.Spawn(t, []string{"--workspace", ws.ID}, "cat")
	done := d.Spawn(t, []string{"--workspace", ws.ID}, "sh", "-c", "exit 3")
	d.Spawn(t, []string{"--workspace", other.ID}, "cat")
	d.WaitExited(t, done.ID)

	// The whole records of the workspace, as ListPanes gives them.
	var whole struct{ Panes []map[string]json.RawMessage }
	d.VarlinkCall(t, "dev.signaltty.Mux.ListPanes", map[string]any{"workspace": ws.ID}, &whole)
	project := func(fields ...string) []map[string]json.RawMessage {
		var out []map[string]json.RawMessage
		for _, p := range whole.Panes {
			sel := map[string]json.RawMessage{}
			for _, f := range fields {
				if v, ok := p[f]; ok {
					sel[f] = v
				}
			}
			out = append(out, sel)
		}
		return out
	}
	canon := func(v any) string { b, _ := json.Marshal(v); return string(b) }

	t.Run("varlinkctl", func(t *testing.T) {
		var r struct{ Panes []map[string]json.RawMessage }
		d.VarlinkCall(t, "dev.signaltty.Mux.ListPaneFields", map[string]any{"workspace": ws.ID, "fields": []string{"status", "id", "pid", "state"}}, &r)
		if want := project("id", "state", "pid", "status"); canon(r.Panes) != canon(want) {
			t.Fatalf("ListPaneFields gives\n%s\nwant\n%s", canon(r.Panes), canon(want))
		}
		var keys []string
		for k := range r.Panes[1] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if strings.Join(keys, " ") != "id state status" { // pid is null once exited: absent
			t.Errorf("the exited pane's members: %v", keys)
		}
		in := d.Varlinkctl(t, "introspect", "dev.signaltty.Mux")
		for _, s := range []string{"method ListPaneFields(", "type PaneField(", "type PaneFields("} {
			if !strings.Contains(in.Stdout, s) {
				t.Errorf("introspection lacks %q", s)
			}
		}
		bad := d.Varlinkctl(t, "call", "--json=short", "dev.signaltty.Mux.ListPaneFields", `{"fields":["id","titel"]}`)
		out := bad.Stdout + bad.Stderr
		if bad.Code == 0 || !strings.Contains(out, "dev.signaltty.Mux.InvalidParams") || !strings.Contains(out, `"invalid_params.fields"`) || !strings.Contains(out, `"titel"`) {
			t.Errorf("an unknown field: want InvalidParams invalid_params.fields naming it:\n%s", bad)
		}
	})

	t.Run("cli table", func(t *testing.T) {
		r := d.CLI(t, "pane", "list", "--workspace", ws.ID, "--fields", "id,state,pid")
		if r.Code != 0 {
			t.Fatalf("pane list --fields: %s", r)
		}
		var rows [][]string
		for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
			rows = append(rows, strings.Fields(l))
		}
		want := [][]string{{"ID", "STATE", "PID"}, {live.ID, "live", strings.Trim(string(whole.Panes[0]["pid"]), `"`)}, {done.ID, "exited", "-"}}
		if !reflect.DeepEqual(rows, want) {
			t.Fatalf("table\n%s\nwant %v", r.Stdout, want)
		}
	})

	t.Run("cli json", func(t *testing.T) {
		var r struct{ Panes []map[string]json.RawMessage }
		d.JSON(t, &r, "pane", "list", "--workspace", ws.ID, "--fields", "title,attention", "--fields", "lifecycle")
		if want := project("title", "lifecycle", "attention"); canon(r.Panes) != canon(want) {
			t.Fatalf("--json gives\n%s\nwant\n%s", canon(r.Panes), canon(want))
		}
	})

	t.Run("cli errors", func(t *testing.T) {
		e := d.Fail(t, "invalid_params.fields", 2, "pane", "list", "--fields", "id,bogus")
		if e.Data["field"] != "bogus" {
			t.Errorf("data.field %v, want bogus", e.Data["field"])
		}
		d.Fail(t, "not_found.workspace", 3, "pane", "list", "--workspace", "nope", "--fields", "id")
		if r := d.CLI(t, "pane", "list", "--fields", "id", "--attention"); r.Code == 0 {
			t.Errorf("--fields with --attention was accepted:\n%s", r)
		}
	})

	t.Run("pages", func(t *testing.T) {
		var r struct {
			Panes []map[string]json.RawMessage
			Next  *string
		}
		d.VarlinkCall(t, "dev.signaltty.Mux.ListPaneFields", map[string]any{"workspace": ws.ID, "fields": []string{"id"}, "limit": 1}, &r)
		if len(r.Panes) != 1 || r.Next == nil || *r.Next != live.ID {
			t.Fatalf("first page of 1: %+v", r)
		}
		res := d.CLI(t, "pane", "list", "--workspace", ws.ID, "--fields", "id", "--limit", "1", "--after", *r.Next)
		if res.Code != 0 || strings.Fields(res.Stdout)[1] != done.ID || strings.Contains(res.Stderr, "more panes") {
			t.Fatalf("second and last page through the CLI:\n%s", res)
		}
		res = d.CLI(t, "pane", "list", "--workspace", ws.ID, "--fields", "id", "--limit", "1")
		if !strings.Contains(res.Stderr, "more panes follow: --after "+live.ID) {
			t.Errorf("a page with more to come says how to continue:\n%s", res)
		}
		d.Fail(t, "not_found.pane", 3, "pane", "list", "--fields", "id", "--after", "pane_gone")
		d.Fail(t, "invalid_params.limit", 2, "pane", "list", "--fields", "id", "--limit", "0")
		d.Fail(t, "invalid_params.usage", 2, "pane", "list", "--limit", "3")
	})

	// ListPanes is unchanged by the selections made from the same records.
	var again struct{ Panes []map[string]json.RawMessage }
	d.VarlinkCall(t, "dev.signaltty.Mux.ListPanes", map[string]any{"workspace": ws.ID}, &again)
	if canon(again.Panes) != canon(whole.Panes) {
		t.Errorf("ListPanes after selections\n%s\nwant\n%s", canon(again.Panes), canon(whole.Panes))
	}
}

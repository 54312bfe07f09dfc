package varlink

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/signaltty/signaltty/service"
	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
	"github.com/varlink/go/varlink/idl"
)

func TestPaneFieldEnumAndPaneFieldsTypeNameEveryListedFieldOfPane(t *testing.T) {
	in, err := idl.New(mux.VarlinkNew(nil).VarlinkGetDescription())
	if err != nil {
		t.Fatal(err)
	}
	var enum, record, pane []string
	for _, a := range in.Aliases {
		for _, f := range a.Type.Fields {
			switch a.Name {
			case "PaneField":
				enum = append(enum, f.Name)
			case "PaneFields":
				record = append(record, f.Name)
				if f.Type.Kind != idl.TypeMaybe {
					t.Errorf("PaneFields.%s is not optional", f.Name)
				}
			case "Pane":
				if f.Name != "wait_baseline" {
					pane = append(pane, f.Name)
				}
			}
		}
	}
	if !reflect.DeepEqual(enum, paneFieldNames) || !reflect.DeepEqual(record, paneFieldNames) || !reflect.DeepEqual(pane, paneFieldNames) {
		t.Fatalf("PaneField %v\nPaneFields %v\nPane %v\nselectable %v", enum, record, pane, paneFieldNames)
	}
}

func TestPaneFieldSelectionRefusesAnEmptyListAndNamesAnUnknownField(t *testing.T) {
	var e *service.Error
	if _, err := parsePaneFields(nil); !errors.As(err, &e) || e.Code != "invalid_params.fields" || e.Data["reason"] != "empty" {
		t.Fatalf("no fields: %v", err)
	}
	_, err := parsePaneFields([]mux.PaneField{"id", "titel", "bogus"})
	if !errors.As(err, &e) || e.Code != "invalid_params.fields" || e.Data["field"] != "titel" || !strings.Contains(e.Message, `"titel"`) {
		t.Fatalf("unknown field: %v %+v", err, e)
	}
	if _, err := parsePaneFields([]mux.PaneField{"wait_baseline"}); !errors.As(err, &e) || e.Data["field"] != "wait_baseline" {
		t.Fatalf("wait_baseline is not listed, so not selectable: %v", err)
	}
	set, err := parsePaneFields([]mux.PaneField{"title", "id", "title"})
	if err != nil || bitCount(set) != 2 {
		t.Fatalf("a repeated field counts once: %b %v", set, err)
	}
}

// selectWhole is the ListPaneFields reply's panes made from the whole
// ListPanes encoding: each pane's members that fields names.
func selectWhole(t *testing.T, svc *service.Service, fields []string) []map[string]json.RawMessage {
	t.Helper()
	var whole struct {
		Parameters struct{ Panes []map[string]json.RawMessage }
	}
	if err := json.Unmarshal(bytes.TrimSuffix(wholeReply(t, svc, ""), []byte{0}), &whole); err != nil {
		t.Fatal(err)
	}
	for _, p := range whole.Parameters.Panes {
		for k := range p {
			if !contains(fields, k) {
				delete(p, k)
			}
		}
	}
	return whole.Parameters.Panes
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func TestListPaneFieldsGivesTheSelectedMembersOfEachListedPane(t *testing.T) {
	svc := newRecordsService(t)
	w, err := svc.CreateWorkspace("w", "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, argv := range [][]string{
		{"cat"},
		// A title with quotes, braces, brackets and commas, which the cutting must skip over.
		{"sh", "-c", `read x; printf '\033]0;a "q" {x} [y], z\\\007'; exec cat`},
		{"sh", "-c", "read x; exit 3"}, // exits when told, not during the first listing
	} {
		p, err := svc.SpawnPane(service.SpawnRequest{Workspace: w.ID, Argv: argv, Env: map[string]string{"K": `v"}`}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	pr := newPaneRecords()
	all := func(string) bool { return true }
	selections := [][]string{
		{"id"},
		{"id", "workspace", "tab", "title", "state", "lifecycle", "attention"},
		{"status", "pid", "exited_at"},
		{"env", "argv", "title", "agent", "cgroup"},
		paneFieldNames,
	}
	check := func(what string) {
		t.Helper()
		for _, fields := range selections {
			sel := make([]mux.PaneField, len(fields))
			for i, f := range fields {
				sel[len(fields)-1-i] = mux.PaneField(f) // any order
			}
			set, err := parsePaneFields(sel)
			if err != nil {
				t.Fatal(err)
			}
			msg, err := pr.listPaneFields(svc, "", "", set, nil, all)
			if err != nil {
				t.Fatal(err)
			}
			if msg[len(msg)-1] != 0 {
				t.Fatalf("reply without its NUL: %q", msg)
			}
			var got struct {
				Parameters struct{ Panes []map[string]json.RawMessage }
			}
			if err := json.Unmarshal(msg[:len(msg)-1], &got); err != nil {
				t.Fatalf("%s %v: %v\n%s", what, fields, err, msg)
			}
			if want := selectWhole(t, svc, fields); !reflect.DeepEqual(got.Parameters.Panes, want) {
				t.Fatalf("%s %v: selected\n%s\nwant %v", what, fields, msg, want)
			}
		}
		// ListPanes from the same records is still the whole encoding.
		got, err := pr.listPanes(svc, "", "", all)
		if err != nil {
			t.Fatal(err)
		}
		if want := wholeReply(t, svc, ""); !bytes.Equal(got, want) {
			t.Fatalf("%s: ListPanes after selections gives\n%s\nwant\n%s", what, got, want)
		}
	}
	check("first listing")
	deadline := time.Now().Add(10 * time.Second)
	for _, id := range ids[1:] {
		if _, err := svc.SendInput(context.Background(), id, []byte("\n")); err != nil {
			t.Fatal(err)
		}
	}
	for {
		p1, _ := svc.GetPane(ids[1])
		p2, _ := svc.GetPane(ids[2])
		if strings.HasPrefix(p1.Title, `a "q"`) && p2.State == service.StateExited {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("title or exit not seen: %+v %+v", p1, p2)
		}
		time.Sleep(10 * time.Millisecond)
	}
	check("after a title and an exit")
	if _, err := svc.ResizePane(ids[0], 100, 30); err != nil {
		t.Fatal(err)
	}
	check("after a resize")

	set, _ := parsePaneFields([]mux.PaneField{"id"})
	msg, err := pr.listPaneFields(svc, "", "", set, nil, func(id string) bool { return id != ids[0] })
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"parameters":{"panes":[{"id":"` + ids[1] + `"},{"id":"` + ids[2] + `"}]}}` + "\x00"; string(msg) != want {
		t.Fatalf("a pane the caller may not read is listed, or one it may is not: %s", msg)
	}
	if _, err := pr.listPaneFields(svc, "ws_none", "", set, nil, all); err == nil || !strings.Contains(err.Error(), "not_found.workspace") {
		t.Fatalf("unknown workspace: %v", err)
	}
}

func TestListPaneFieldsPagesFollowEachOtherToTheEndAndRefuseAGoneCursor(t *testing.T) {
	svc := newRecordsService(t)
	w, err := svc.CreateWorkspace("w", "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := 0; i < 6; i++ {
		p, err := svc.SpawnPane(service.SpawnRequest{Workspace: w.ID, Argv: []string{"cat"}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	pr := newPaneRecords()
	hidden := ids[2]
	allowed := func(id string) bool { return id != hidden }
	set, _ := parsePaneFields([]mux.PaneField{"id"})
	page := func(after string, limit int) ([]string, *string, error) {
		msg, err := pr.listPaneFields(svc, "", "", set, &panePage{after: after, started: after == "", limit: limit}, allowed)
		if err != nil {
			return nil, nil, err
		}
		var r struct {
			Parameters struct {
				Panes []struct{ ID string }
				Next  *string
			}
		}
		if err := json.Unmarshal(msg[:len(msg)-1], &r); err != nil {
			t.Fatalf("%v: %s", err, msg)
		}
		var got []string
		for _, p := range r.Parameters.Panes {
			got = append(got, p.ID)
		}
		return got, r.Parameters.Next, nil
	}
	want := []string{ids[0], ids[1], ids[3], ids[4], ids[5]} // the hidden pane counts on no page
	var all []string
	after, calls := "", 0
	for {
		got, next, err := page(after, 2)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, got...)
		if calls++; next == nil {
			break
		}
		if *next != got[len(got)-1] {
			t.Fatalf("next %q is not the page's last pane %v", *next, got)
		}
		after = *next
	}
	if !reflect.DeepEqual(all, want) || calls != 3 {
		t.Fatalf("pages of 2 give %v in %d calls, want %v in 3", all, calls, want)
	}
	if got, next, _ := page("", 5); next != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("a limit of exactly the panes listed: %v next %v", got, next)
	}
	if got, next, _ := page(ids[5], 0); next != nil || len(got) != 0 {
		t.Fatalf("after the last pane: %v next %v", got, next)
	}
	var e *service.Error
	for _, gone := range []string{hidden, "pane_none"} {
		if _, _, err := page(gone, 2); !errors.As(err, &e) || e.Code != "not_found.pane" || e.Data["pane"] != gone {
			t.Fatalf("after a pane not listed (%s): %v", gone, err)
		}
	}
	if err := svc.RemovePane(context.Background(), ids[1], true); err != nil {
		t.Fatal(err)
	}
	if _, _, err := page(ids[1], 2); !errors.As(err, &e) || e.Code != "not_found.pane" {
		t.Fatalf("after a removed pane: %v", err)
	}
}

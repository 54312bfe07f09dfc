package snapshot

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// wholeDoc is snapshot.json as one json.Encoder makes it of the whole
// Snapshot (what the kept pane parts must reproduce byte for byte).
func wholeDoc(t *testing.T, snap *Snapshot) []byte {
	t.Helper()
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	if err := e.Encode(sanitized(snap)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestSnapshotFromKeptPartsIsTheWholeEncoding(t *testing.T) {
	s := Open(t.TempDir(), WithClock(newClock().Now))
	snap := fullSnapshot()
	check := func(what string) {
		t.Helper()
		mustSave(t, s, snap, nil)
		got, err := os.ReadFile(filepath.Join(s.Dir(), FileName))
		if err != nil {
			t.Fatal(err)
		}
		if want := wholeDoc(t, snap); !bytes.Equal(got, want) {
			t.Fatalf("%s: snapshot.json is\n%s\nthe whole encoding is\n%s", what, got, want)
		}
	}
	check("first save")
	check("nothing changed")
	snap.Panes[1].Title = "a <title> & more"
	check("a title changed")
	snap.Panes[0].Agent.ResumeArgv[2] = "sess-2" // in place: the kept Pane is a copy
	check("an agent's argv changed in place")
	snap.Panes[0].Env["LANG"] = "de_DE.UTF-8"
	check("an env value changed in place")
	snap.Workspaces[0].Git.Branch = "next"
	check("a workspace's git branch changed in place")
	snap.Tabs[0].Layout.First.Pane = "pane_2"
	check("a tab's layout changed in place")
	snap.Notifications[0].ReadAt = nil
	check("a notification marked unread")
	snap.Notifications = append(snap.Notifications, Notification{ID: "n_2", Title: "<b>&", Severity: "info", Source: "x"})
	check("a notification added")
	snap.Tabs = append(snap.Tabs, Tab{ID: "tab_2", Workspace: "ws_1"})
	check("a tab without layout added")
	snap.Panes = snap.Panes[1:]
	check("a pane removed")
	snap.Panes = nil
	check("no panes")
	snap.Notifications = []Notification{}
	check("no notifications")
	snap.Tabs, snap.Workspaces = nil, []Workspace{}
	check("no workspaces or tabs")
}

// TestSameComparesEveryField: a change to any one field of a Pane,
// Workspace, Tab or Notification (or of what it points to) makes its
// comparison false, so a field added without a comparison fails here.
func TestSameComparesEveryField(t *testing.T) {
	f := fullSnapshot()
	t.Run("Pane", func(t *testing.T) { checkSameEveryField(t, f.Panes[0], clonePane, samePane, 20) })
	t.Run("Workspace", func(t *testing.T) { checkSameEveryField(t, f.Workspaces[0], cloneWorkspace, sameWorkspace, 16) })
	t.Run("Tab", func(t *testing.T) { checkSameEveryField(t, f.Tabs[0], cloneTab, sameTab, 10) })
	t.Run("Notification", func(t *testing.T) {
		checkSameEveryField(t, f.Notifications[0], cloneNotification, sameNotification, 9)
	})
}

// checkSameEveryField changes each leaf field under base in turn (a
// struct type met again below itself, as Layout in Layout, is followed
// once) and fails when same does not see the change.
func checkSameEveryField[T any](t *testing.T, base T, clone func(T) T, same func(a, b *T) bool, least int) {
	type leaf struct {
		path  string
		index []int
	}
	var leaves []leaf
	var walk func(typ reflect.Type, path string, index []int, depth map[reflect.Type]int)
	walk = func(typ reflect.Type, path string, index []int, depth map[reflect.Type]int) {
		if typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || typ.String() == "time.Time" {
			leaves = append(leaves, leaf{path, index})
			return
		}
		if depth[typ] > 1 {
			return
		}
		depth[typ]++
		defer func() { depth[typ]-- }()
		for i := 0; i < typ.NumField(); i++ {
			walk(typ.Field(i).Type, path+"."+typ.Field(i).Name, append(append([]int{}, index...), i), depth)
		}
	}
	walk(reflect.TypeOf(base), reflect.TypeOf(base).Name(), nil, map[reflect.Type]int{})
	for _, l := range leaves {
		b := clone(base)
		v := reflect.ValueOf(&b).Elem()
		for _, i := range l.index {
			if v.Kind() == reflect.Pointer {
				if v.IsNil() {
					t.Fatalf("%s: nil in the fixture", l.path)
				}
				v = v.Elem()
			}
			v = v.Field(i)
		}
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				t.Fatalf("%s: nil in the fixture", l.path)
			}
			v = v.Elem()
		}
		switch v.Kind() {
		case reflect.String:
			v.SetString(v.String() + "x")
		case reflect.Int, reflect.Int64:
			v.SetInt(v.Int() + 1)
		case reflect.Float64:
			v.SetFloat(v.Float() + 0.125)
		case reflect.Bool:
			v.SetBool(!v.Bool())
		case reflect.Slice:
			v.Set(reflect.Append(v, reflect.ValueOf("x")))
		case reflect.Map:
			v.SetMapIndex(reflect.ValueOf("X_NEW"), reflect.ValueOf("x"))
		case reflect.Struct: // time.Time
			v.Set(reflect.ValueOf(v.Interface().(time.Time).Add(time.Second)))
		default:
			t.Fatalf("%s: no change made for kind %s", l.path, v.Kind())
		}
		a := clone(base)
		if same(&a, &b) {
			t.Errorf("the comparison does not see a change of %s", l.path)
		}
	}
	if len(leaves) < least {
		t.Fatalf("only %d fields walked", len(leaves))
	}
}

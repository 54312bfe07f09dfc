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

func TestSnapshotFromKeptPanePartsIsTheWholeEncoding(t *testing.T) {
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
	snap.Panes = snap.Panes[1:]
	check("a pane removed")
	snap.Panes = nil
	check("no panes")
}

// TestSamePaneComparesEveryField: a change to any one field of a Pane (or
// of what it points to) makes samePane false, so a field added to Pane
// without a comparison fails here.
func TestSamePaneComparesEveryField(t *testing.T) {
	base := fullSnapshot().Panes[0]
	type leaf struct {
		path  string
		index []int
	}
	var leaves []leaf
	var walk func(typ reflect.Type, path string, index []int)
	walk = func(typ reflect.Type, path string, index []int) {
		if typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || typ.String() == "time.Time" {
			leaves = append(leaves, leaf{path, index})
			return
		}
		for i := 0; i < typ.NumField(); i++ {
			walk(typ.Field(i).Type, path+"."+typ.Field(i).Name, append(append([]int{}, index...), i))
		}
	}
	walk(reflect.TypeOf(base), "Pane", nil)
	for _, l := range leaves {
		b := clonePane(base)
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
		a := clonePane(base)
		if samePane(&a, &b) {
			t.Errorf("samePane does not see a change of %s", l.path)
		}
	}
	if len(leaves) < 20 {
		t.Fatalf("only %d fields walked", len(leaves))
	}
}

package snapshot

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestSettingsRoundTripAndBadLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config", "signaltty", "settings.conf")
	if v, p, err := ReadSettings(path); err != nil || len(v) != 0 || p != nil {
		t.Fatalf("missing file: %v %v %v", v, p, err)
	}
	want := map[string]string{"history_rows": "5000", "run.max_active": "8"}
	if err := WriteSettings(path, want); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("settings file mode: %v %v", fi, err)
	}
	if v, p, err := ReadSettings(path); err != nil || !reflect.DeepEqual(v, want) || p != nil {
		t.Fatalf("read back %v %v %v, want %v", v, p, err, want)
	}
	text := "# comment\n\n  history_rows=7 \nnonsense\nhistory_rows = 9\n= 3\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	v, p, err := ReadSettings(path)
	if err != nil || !reflect.DeepEqual(v, map[string]string{"history_rows": "9"}) || len(p) != 3 {
		t.Fatalf("hand-written file: %v, problems %q, %v", v, p, err)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// setTOML changes a key in place, adds it under its table's header or a
// new table, keeps every other line, and refuses what it cannot edit.
func TestSetTOMLKeepsTheRestAndRefusesWhatItCannotEdit(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, before string
		ok           bool
	}{
		{"missing file", "", true},
		{"no table", "model = \"x\" # mine\n", true},
		{"table without key", "[features]\nother = true\n[tui]\na = 1\n", true},
		{"key with another value", "[features]\ndaemon_auto_start = true # was on\n", true},
		{"key later in the table", "[features]\nx = 1\n\ndaemon_auto_start = true\n[y]\nz = 2\n", true},
		{"dotted keys", "features.daemon_auto_start = true\n", false},
		{"not toml", "[features\n", false},
	}
	for _, c := range cases {
		f := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".toml")
		if c.before != "" {
			os.WriteFile(f, []byte(c.before), 0o600)
		}
		_, _, err := setTOML(f, tomlEdit{table: []string{"features"}, key: "daemon_auto_start", value: "false"})
		after, _ := os.ReadFile(f)
		if !c.ok {
			if err == nil || (c.before != "" && string(after) != c.before) {
				t.Errorf("%s: err %v, file %q: must be refused and untouched", c.name, err, after)
			}
			continue
		}
		var doc struct {
			Features map[string]any `toml:"features"`
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if _, derr := toml.Decode(string(after), &doc); derr != nil || doc.Features["daemon_auto_start"] != false {
			t.Errorf("%s: %q (%v)", c.name, after, derr)
		}
		for _, l := range strings.Split(c.before, "\n") {
			if l != "" && !strings.Contains(l, "daemon_auto_start") && !strings.Contains(string(after), l) {
				t.Errorf("%s: line %q lost: %q", c.name, l, after)
			}
		}
		if changed, _, err := setTOML(f, tomlEdit{table: []string{"features"}, key: "daemon_auto_start", value: "false"}); changed || err != nil {
			t.Errorf("%s: a second call changed it (%v)", c.name, err)
		}
	}
}

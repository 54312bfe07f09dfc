package snapshot

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// styledRow is a coloured row of 80 bytes of text.
func styledRow(i int) string {
	t := rows80(i, 1)[0]
	return "\x1b[1;31m" + t[:7] + "\x1b[m\x1b]8;;http://x/\x07" + t[7:20] + "\x1b[m\x1b]8;;\x07" + t[20:]
}

// A tail keeps its rows' colours through a save and a load, and its bound
// counts their text: coloured rows keep as many rows as plain ones, up to
// the file bound.
func TestStyledTailKeepsColoursAndRows(t *testing.T) {
	if n := savedTextLen(styledRow(3)); n != 80 {
		t.Fatalf("text of a styled row: %d bytes, want 80", n)
	}
	rows := make([]string, 1000)
	for i := range rows {
		rows[i] = styledRow(i)
	}
	fit := MaxTailBytes / 81
	dir := t.TempDir()
	mustSave(t, Open(dir), fullSnapshot(), map[string][]string{"pane_1": rows})
	_, tails, _ := mustLoad(t, Open(dir))
	if got := tails["pane_1"]; !reflect.DeepEqual(got, rows[len(rows)-fit:]) {
		t.Fatalf("loaded %d rows (last %q), want the newest %d as saved", len(got), got[len(got)-1], fit)
	}

	// Rows whose sequences outgrow the file bound: fewer rows, the file
	// within it.
	heavy := make([]string, 1000)
	for i := range heavy {
		heavy[i] = strings.Repeat("\x1b[38;2;1;2;3mx\x1b[m", 80)
	}
	got := TrimTail(heavy)
	if len(got) > MaxTailFileBytes || len(got)+len(heavy[0])+1 <= MaxTailFileBytes {
		t.Errorf("heavily styled tail: %d bytes, want the most whole rows within %d", len(got), MaxTailFileBytes)
	}
}

// A snapshot of a version before StyledTails has plain tails: a control
// character in one is a space, never the start of a sequence; the current
// version's tails keep them.
func TestPlainTailsOfOlderVersions(t *testing.T) {
	dir := t.TempDir()
	mustSave(t, Open(dir), fullSnapshot(), map[string][]string{"pane_1": {"\x1b[31mred\x1b[m", "plain"}})
	_, tails, _ := mustLoad(t, Open(dir))
	if got := tails["pane_1"]; !reflect.DeepEqual(got, []string{"\x1b[31mred\x1b[m", "plain"}) {
		t.Errorf("current version: %q", got)
	}
	path := filepath.Join(dir, FileName)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["snapshot_version"] = 1
	data, _ = json.Marshal(doc)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	_, tails, info := mustLoad(t, Open(dir))
	if got := tails["pane_1"]; info.FromVersion != 1 || !reflect.DeepEqual(got, []string{" [31mred [m", "plain"}) {
		t.Errorf("version 1 (read as %d): %q", info.FromVersion, got)
	}
}

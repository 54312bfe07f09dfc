package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad: arbitrary bytes as snapshot.json (and as a pane's tail) never
// crash the loader: it loads them, or backs the file up and starts empty,
// or refuses a future version; and what it loaded saves again.
// Longer runs: go test -run '^$' -fuzz FuzzLoad -fuzztime 10m ./snapshot/
func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"snapshot_version":1,"server":{},"workspaces":[{"id":"w1","name":"w","tabs":["t1"],"active_tab":"t1"}],`+
		`"tabs":[{"id":"t1","workspace":"w1","layout":{"kind":"pane","pane":"p1"},"active_pane":"p1"}],`+
		`"panes":[{"id":"p1","tab":"t1","argv":["sh"],"cols":80,"rows":24,"state":"live"}]}`), []byte("a\nb"))
	f.Add([]byte(`{"snapshot_version":99}`), []byte(""))
	f.Add([]byte(`{"snapshot_version":1,"panes":[{"id":"../x"}],"tabs":[{"id":"t","layout":{"kind":"split","first":{"kind":"split"}}}]}`), []byte("\x00\xff"))
	f.Add([]byte(""), []byte(nil))
	f.Add([]byte("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["), []byte("x"))
	f.Fuzz(func(t *testing.T, data, tail []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, FileName), data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, historyDir), 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, historyDir, "p1"+tailExt), tail, 0o600)
		st := Open(dir)
		snap, _, info, err := st.Load()
		var fe *FutureVersionError
		switch {
		case errors.As(err, &fe):
			return
		case err != nil:
			t.Fatalf("Load: %v", err)
		case info.Missing:
			t.Fatalf("a snapshot.json was there, Load says missing")
		case snap == nil:
			if info.CorruptBackup == "" {
				t.Fatalf("nothing loaded and no backup: %+v", info)
			}
			if _, err := os.Stat(filepath.Join(dir, FileName)); !os.IsNotExist(err) {
				t.Fatalf("the unreadable snapshot is still in place after its backup: %v", err)
			}
			return
		}
		if _, err := st.Save(snap, nil); err != nil {
			t.Fatalf("saving what was loaded: %v", err)
		}
		if _, _, _, err := Open(dir).Load(); err != nil {
			t.Fatalf("loading it again: %v", err)
		}
	})
}

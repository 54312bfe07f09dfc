package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// bigState is 200 panes in 20 workspaces of 2 tabs (5 panes each), every
// pane with a full 64 KiB tail of 80-column rows.
func bigState() (*Snapshot, map[string][]string) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	snap := &Snapshot{Server: Server{Version: "bench", Reason: "debounce"}}
	tails := make(map[string][]string)
	rows := MaxTailBytes / 81
	for w := 0; w < 20; w++ {
		ws := Workspace{ID: fmt.Sprintf("ws_%02d", w), Name: fmt.Sprint("w", w), Handle: fmt.Sprint("w", w), Cwd: "/home/u/src", CreatedAt: t0}
		for tb := 0; tb < 2; tb++ {
			tab := Tab{ID: fmt.Sprintf("tab_%02d_%d", w, tb), Workspace: ws.ID, Title: "t", CreatedAt: t0}
			ws.Tabs = append(ws.Tabs, tab.ID)
			var layout *Layout
			for p := 0; p < 5; p++ {
				id := fmt.Sprintf("pane_%02d_%d_%d", w, tb, p)
				snap.Panes = append(snap.Panes, Pane{
					ID: id, Workspace: ws.ID, Tab: tab.ID, Title: "bash", Cwd: "/home/u/src", Argv: []string{"bash", "-l"},
					Env: map[string]string{"TERM": "xterm-256color"}, Cols: 80, Rows: 24, State: "live",
					RestoreState: RestoreLive, CreatedAt: t0,
					Agent: &Agent{Kind: "claude", SessionID: "0f9c2b1e-5d7a-4c1b-9e3f-2a6b8c4d0e1f", ResumeArgv: []string{"claude", "--resume", "0f9c2b1e"}},
				})
				leaf := &Layout{Kind: "pane", Pane: id}
				if layout == nil {
					layout = leaf
				} else {
					layout = &Layout{Kind: "split", Axis: "cols", Ratio: 0.5, First: layout, Second: leaf}
				}
				tab.ActivePane = id
				tails[id] = rows80(w*1000+tb*100+p, rows)
			}
			tab.Layout = layout
			snap.Tabs = append(snap.Tabs, tab)
		}
		ws.ActiveTab = ws.Tabs[0]
		snap.Workspaces = append(snap.Workspaces, ws)
	}
	for i := 0; i < MaxNotifications; i++ {
		snap.Notifications = append(snap.Notifications, Notification{ID: fmt.Sprint("n_", i), Pane: snap.Panes[i%200].ID,
			Title: "agent finished", Body: "all tests pass", Severity: "info", Source: "agent", CreatedAt: t0.Add(time.Duration(i) * time.Second)})
	}
	return snap, tails
}

func stateBytes(b *testing.B, dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// BenchmarkSave200Panes measures a save into a fresh state directory
// (every tail written) and a re-save with unchanged tails, with real fsyncs.
func BenchmarkSave200Panes(b *testing.B) {
	snap, tails := bigState()
	b.Run("first", func(b *testing.B) {
		var n int64
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			dir := b.TempDir()
			s := Open(dir, WithRotation(0, 0))
			b.StartTimer()
			res, err := s.Save(snap, tails)
			if err != nil || res.TailsWritten != 200 {
				b.Fatal(err, res.TailsWritten)
			}
			b.StopTimer()
			n = stateBytes(b, dir)
			os.RemoveAll(dir)
			b.StartTimer()
		}
		b.SetBytes(n)
		b.ReportMetric(float64(n), "disk-bytes")
	})
	b.Run("unchanged", func(b *testing.B) {
		dir := b.TempDir()
		s := Open(dir, WithRotation(0, 0))
		res, err := s.Save(snap, tails)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(res.Bytes)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			res, err := s.Save(snap, tails)
			if err != nil || res.TailsWritten != 0 {
				b.Fatal(err, res.TailsWritten)
			}
		}
		b.ReportMetric(float64(res.Bytes), "json-bytes")
	})
}

func BenchmarkLoad200Panes(b *testing.B) {
	snap, tails := bigState()
	dir := b.TempDir()
	if _, err := Open(dir, WithRotation(0, 0)).Save(snap, tails); err != nil {
		b.Fatal(err)
	}
	n := stateBytes(b, dir)
	b.SetBytes(n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		got, gotTails, info, err := Open(dir).Load()
		if err != nil || len(got.Panes) != 200 || len(gotTails) != 200 || len(info.Warnings) > 0 {
			b.Fatal(err, info.Warnings)
		}
	}
}

// BenchmarkReplaceFile: what the disk alone costs a save of snapshot.json:
// 720 KB (BenchmarkSave1000's snapshot.json, 1000 panes in 1000 tabs),
// 400 KB and 1 byte written to a temporary file, fsynced, renamed over the
// target, and the directory fsynced; the two fsyncs are timed apart
// (file-fsync-ns, dir-fsync-ns per op), with the p50 and p99 of the whole.
// The directory is $SIGNALTTY_BENCH_DIR when set (to measure the disk of a
// state directory), otherwise a temporary one.
func BenchmarkReplaceFile(b *testing.B) {
	for _, size := range []int{720 << 10, 400 << 10, 1} {
		b.Run(fmt.Sprintf("%dB", size), func(b *testing.B) {
			dir := b.TempDir()
			if d := os.Getenv("SIGNALTTY_BENCH_DIR"); d != "" {
				var err error
				if dir, err = os.MkdirTemp(d, "bench-"); err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { os.RemoveAll(dir) })
			}
			data := make([]byte, size)
			for i := range data {
				data[i] = 'a' + byte(i%26)
			}
			target := filepath.Join(dir, FileName)
			var fileSync, dirSync time.Duration
			var ops []time.Duration
			b.SetBytes(int64(size))
			for b.Loop() {
				start := time.Now()
				f, err := os.CreateTemp(dir, ".bench-*")
				if err != nil {
					b.Fatal(err)
				}
				if _, err := f.Write(data); err != nil {
					b.Fatal(err)
				}
				t0 := time.Now()
				if err := f.Sync(); err != nil {
					b.Fatal(err)
				}
				fileSync += time.Since(t0)
				if err := f.Close(); err != nil {
					b.Fatal(err)
				}
				if err := os.Rename(f.Name(), target); err != nil {
					b.Fatal(err)
				}
				t0 = time.Now()
				if err := syncDir(dir); err != nil {
					b.Fatal(err)
				}
				dirSync += time.Since(t0)
				ops = append(ops, time.Since(start))
			}
			slices.Sort(ops)
			b.ReportMetric(float64(ops[len(ops)/2].Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(ops[len(ops)*99/100].Nanoseconds()), "p99-ns")
			b.ReportMetric(float64(fileSync.Nanoseconds())/float64(b.N), "file-fsync-ns/op")
			b.ReportMetric(float64(dirSync.Nanoseconds())/float64(b.N), "dir-fsync-ns/op")
		})
	}
}

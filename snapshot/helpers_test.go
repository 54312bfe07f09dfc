package snapshot

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 3, 14, 15, 9, 26, 535897932, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func ptr[T any](v T) *T { return &v }

// fullSnapshot sets every field of the schema (checked by TestFixtureIsFull).
func fullSnapshot() *Snapshot {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 600000000, time.UTC)
	return &Snapshot{
		SnapshotVersion: Version,
		Server: Server{
			Version:  "0.9.0",
			SavedAt:  t0,
			Protocol: Protocol,
			Reason:   "shutdown",
		},
		Workspaces: []Workspace{{
			ID: "ws_1", Name: "ci", Handle: "ci", Cwd: "/home/u/src",
			Tabs: []string{"tab_1"}, ActiveTab: "tab_1", AutoResume: true,
			Git:       &Git{Root: "/home/u/src-worktrees/main", Branch: "main", Detached: true, Commit: "3dd3ccda43d3dbae15ab9a22cde520afa3305fa3", Dirty: ptr(true), Worktree: true, Repo: "/home/u/src", Missing: true},
			CreatedAt: t0,
		}},
		Tabs: []Tab{{
			ID: "tab_1", Workspace: "ws_1", Title: "build",
			Layout: &Layout{Kind: "split", Axis: "cols", Ratio: 0.25,
				First:  &Layout{Kind: "pane", Pane: "pane_1"},
				Second: &Layout{Kind: "pane", Pane: "pane_2"}},
			ActivePane: "pane_2", CreatedAt: t0, Run: "r7",
		}},
		Panes: []Pane{{
			ID: "pane_1", Workspace: "ws_1", Tab: "tab_1", Title: "claude", Cwd: "/home/u/src",
			Argv: []string{"claude"}, Env: map[string]string{"TERM": "xterm-256color", "LANG": "C.UTF-8"}, EnvUnset: []string{"OLDPWD"},
			EnvLost: []string{"ANTHROPIC_API_KEY"}, Cols: 120, Rows: 40, State: "exited",
			Status:       &WaitStatus{Code: ptr(3), Signal: "SIGTERM", CoreDumped: true},
			RestoreState: RestoreResumable, Lifecycle: "idle", Attention: "unread", LastMessage: "done",
			Agent: &Agent{Kind: "claude", SessionID: "sess-1", ResumeArgv: []string{"claude", "--resume", "sess-1"},
				Model: "opus", ConfigEnv: map[string]string{"CLAUDE_CONFIG_DIR": "/home/u/.claude"}, ResumeSource: ResumeOfficial},
			CreatedAt: t0, ExitedAt: ptr(t0.Add(time.Hour)), Epoch: 2,
			ShutdownSave: true, HistoryRows: 500,
		}, {
			ID: "pane_2", Workspace: "ws_1", Tab: "tab_1", Title: "bash", Cwd: "/tmp",
			Argv: []string{"bash", "-l"}, Cols: 80, Rows: 24, State: "live", RestoreState: RestoreLive,
			CreatedAt: t0,
		}},
		Notifications: []Notification{{
			ID: "n_1", Pane: "pane_1", Workspace: "ws_1", Title: "finished", Body: "all green",
			Severity: "info", Source: "agent", CreatedAt: t0, ReadAt: ptr(t0.Add(time.Minute)),
		}},
	}
}

// zeroFields lists the fields under v (following pointers, slices' first
// element and maps) that hold their zero value.
func zeroFields(v reflect.Value, path string) []string {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return []string{path}
		}
		return zeroFields(v.Elem(), path)
	case reflect.Struct:
		if l, ok := v.Interface().(Layout); ok {
			// A union: a leaf sets Kind and Pane, a split the rest.
			var out []string
			for _, f := range map[string][]string{"pane": {"Kind", "Pane"}, "split": {"Kind", "Axis", "Ratio", "First", "Second"}}[l.Kind] {
				out = append(out, zeroFields(v.FieldByName(f), path+"."+f)...)
			}
			if l.Kind != "pane" && l.Kind != "split" {
				out = append(out, path+".Kind")
			}
			return out
		}
		if v.Type() == reflect.TypeOf(time.Time{}) {
			if v.Interface().(time.Time).IsZero() {
				return []string{path}
			}
			return nil
		}
		var out []string
		for i := 0; i < v.NumField(); i++ {
			out = append(out, zeroFields(v.Field(i), path+"."+v.Type().Field(i).Name)...)
		}
		return out
	case reflect.Slice:
		if v.Len() == 0 {
			return []string{path}
		}
		return zeroFields(v.Index(0), path+"[0]")
	case reflect.Map:
		if v.Len() == 0 {
			return []string{path}
		}
		return nil
	default:
		if v.IsZero() {
			return []string{path}
		}
		return nil
	}
}

// tree returns the regular files under dir, by path relative to it.
func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			out[rel] = b
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// noTemps fails if a temporary file is anywhere under dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	for name := range tree(t, dir) {
		if isTemp(filepath.Base(name)) {
			t.Errorf("temporary file left behind: %s", name)
		}
	}
}

// rows80 returns n rows of 80 printable characters, numbered from first.
func rows80(first, n int) []string {
	out := make([]string, n)
	for i := range out {
		s := fmt.Sprintf("%06d ", first+i)
		out[i] = s + strings.Repeat("abcdefghij", 8)[:80-len(s)]
	}
	return out
}

func mustSave(t *testing.T, s *Store, snap *Snapshot, tails map[string][]string) SaveResult {
	t.Helper()
	res, err := s.Save(snap, tails)
	if err != nil {
		t.Fatalf("Save: %v", err)
	}
	if res.TailErr != nil || res.RotateErr != nil {
		t.Fatalf("Save: tails %v, rotation %v", res.TailErr, res.RotateErr)
	}
	return res
}

func mustLoad(t *testing.T, s *Store) (*Snapshot, map[string][]string, LoadInfo) {
	t.Helper()
	snap, tails, info, err := s.Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return snap, tails, info
}

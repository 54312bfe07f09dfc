package tests

import (
	"encoding/json"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// restoredPane is the part of a pane record persistence adds.
type restoredPane struct {
	harness.Pane
	RestoreState string `json:"restore_state"`
	RestoredRows int64  `json:"restored_rows"`
}

type persistence struct {
	Enabled      bool    `json:"enabled"`
	StateDir     string  `json:"state_dir"`
	Frozen       bool    `json:"frozen"`
	LastError    *string `json:"last_error"`
	RestoredFrom string  `json:"restored_from"`
}

func statusPersistence(t *testing.T, d *harness.Daemon) persistence {
	t.Helper()
	var r struct {
		Status struct {
			Persistence persistence `json:"persistence"`
		} `json:"status"`
	}
	d.JSON(t, &r, "status")
	return r.Status.Persistence
}

func restoredPanes(t *testing.T, d *harness.Daemon) map[string]restoredPane {
	t.Helper()
	var r struct {
		Panes []restoredPane `json:"panes"`
	}
	d.JSON(t, &r, "pane", "list")
	out := map[string]restoredPane{}
	for _, p := range r.Panes {
		out[p.ID] = p
	}
	return out
}

func stateDir(d *harness.Daemon) string { return filepath.Join(d.Dir, "state", "signaltty") }

// grepTree fails the test if any file under dir contains s.
func grepTree(t *testing.T, dir, s string) {
	t.Helper()
	n := 0
	filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return nil
		}
		n++
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), s) {
			t.Errorf("%s contains %q", path, s)
		}
		return nil
	})
	if n == 0 {
		t.Fatalf("no files under %s", dir)
	}
}

func TestRestartRestoresTombstones(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "proj")
	sh := d.Spawn(t, []string{"--workspace", "proj", "--env", "PS1=$ ", "--env", "GITHUB_TOKEN=canary-gh-5150", "--env", "LANG=C.UTF-8",
		"--cols", "100", "--rows", "30"}, "bash", "--norc", "--noprofile")
	d.Send(t, sh.ID, `echo hello-before-restart\n`)
	d.WaitLine(t, sh.ID, "hello-before-restart")
	sleeper := d.Spawn(t, []string{"--split", sh.ID, "--axis", "rows"}, "sleep", "1000")
	three := d.Spawn(t, []string{"--workspace", "proj"}, "sh", "-c", "echo exiting-with-three; exit 3")
	d.WaitExited(t, three.ID)
	var run struct{ Run string }
	d.JSON(t, &run, "run", "--key", "k1", "--workspace", "proj", "--", "true")
	_, tabsBefore, _ := d.GetWorkspace(t, "proj")
	before := restoredPanes(t, d)
	d.Stop(t) // SIGTERM: saves, then hangs up the panes

	dir := stateDir(d)
	var snap struct {
		SnapshotVersion int `json:"snapshot_version"`
		Panes           []struct {
			ID           string            `json:"id"`
			State        string            `json:"state"`
			RestoreState string            `json:"restore_state"`
			Env          map[string]string `json:"env"`
		} `json:"panes"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "snapshot.json"))
	if err != nil || json.Unmarshal(b, &snap) != nil {
		t.Fatalf("snapshot.json: %v\n%s", err, b)
	}
	states := map[string]string{}
	for _, p := range snap.Panes {
		states[p.ID] = p.State + "/" + p.RestoreState
		if p.ID == sh.ID && p.Env["LANG"] != "C.UTF-8" {
			t.Errorf("allowlisted LANG not saved: %v", p.Env)
		}
	}
	if snap.SnapshotVersion != 2 || states[sh.ID] != "live/LIVE" || states[sleeper.ID] != "live/LIVE" || !strings.HasPrefix(states[three.ID], "exited/") {
		t.Fatalf("saved states %v (version %d): the SIGTERM save must show running panes as live", states, snap.SnapshotVersion)
	}
	grepTree(t, dir, "canary-gh-5150")

	d2 := harness.Start(t, harness.Options{Dir: d.Dir})
	if p := statusPersistence(t, d2); p.RestoredFrom != "snapshot.json" || !p.Enabled {
		t.Fatalf("persistence after restart: %+v", p)
	}
	after := restoredPanes(t, d2)
	for id, want := range map[string]string{sh.ID: "RESTORED", sleeper.ID: "RESTORED", three.ID: "EXITED"} {
		p, ok := after[id]
		if !ok {
			t.Fatalf("pane %s missing after restart", id)
		}
		if p.RestoreState != want || p.State != "exited" || p.PID() != 0 {
			t.Errorf("pane %s: restore_state %s state %s pid %d, want %s, exited, no pid", id, p.RestoreState, p.State, p.PID(), want)
		}
		if b := before[id]; p.Title != b.Title || p.Cols != b.Cols || p.Rows != b.Rows || p.Tab != b.Tab || p.Workspace != ws.ID {
			t.Errorf("pane %s changed: %+v, was %+v", id, p.Pane, b.Pane)
		}
	}
	if p := after[three.ID]; p.Status == nil || p.Status.Code == nil || *p.Status.Code != 3 {
		t.Errorf("exited pane lost its status: %+v", p.Status)
	}
	_, tabsAfter, _ := d2.GetWorkspace(t, "proj")
	if len(tabsAfter) != len(tabsBefore) || tabsAfter[0].Layout.Leaves()[1] != sleeper.ID || *tabsAfter[0].Layout.Axis != "rows" {
		t.Errorf("layout not restored: %+v", tabsAfter)
	}
	var c struct {
		harness.Capture
		RestoredRows int64 `json:"restored_rows"`
	}
	d2.JSON(t, &c, "pane", "capture", "--pane", sh.ID)
	if c.Epoch == 0 {
		t.Errorf("restored rows are numbered anew, so their epoch must change (still %d)", c.Epoch)
	}
	if !c.HasLine("hello-before-restart") || c.RestoredRows == 0 {
		t.Errorf("restored tail not captured (restored_rows %d):\n%s", c.RestoredRows, strings.Join(c.Trimmed(), "\n"))
	}
	// Runs are memory-only.
	var runs struct {
		Runs []any `json:"runs"`
	}
	d2.JSON(t, &runs, "run", "list")
	if len(runs.Runs) != 0 {
		t.Errorf("runs survived a restart: %v", runs.Runs)
	}
	// Restored panes have no process: input fails, relaunch starts the saved command.
	d2.Fail(t, "conflict.pane_exited", 5, "pane", "send", "--pane", sh.ID, "--text", "x")
	var rel struct {
		Pane restoredPane `json:"pane"`
	}
	d2.JSON(t, &rel, "pane", "relaunch", "--pane", sh.ID)
	if rel.Pane.RestoreState != "LIVE" || rel.Pane.PID() == 0 || rel.Pane.ID != sh.ID {
		t.Fatalf("relaunch: %+v", rel.Pane)
	}
	d2.Fail(t, "conflict.pane_live", 5, "pane", "relaunch", "--pane", sh.ID)
	env := harness.Environ(t, rel.Pane.PID())
	if env["PS1"] != "" || env["LANG"] != "C.UTF-8" || env["SIGNALTTY_PANE"] != sh.ID {
		t.Errorf("relaunched env: PS1=%q LANG=%q SIGNALTTY_PANE=%q (only allowlisted variables are kept)", env["PS1"], env["LANG"], env["SIGNALTTY_PANE"])
	}
	d2.Send(t, sh.ID, `echo after-relaunch\n`)
	d2.WaitLine(t, sh.ID, "after-relaunch")
	var hist struct {
		Lines []string `json:"lines"`
	}
	d2.JSON(t, &hist, "pane", "capture", "--pane", sh.ID, "--start", "0", "--end", "3")
	if !strings.Contains(strings.Join(hist.Lines, "\n"), "hello-before-restart") {
		t.Errorf("relaunched pane lost its earlier rows: %q", hist.Lines)
	}
}

func TestCorruptAndFutureSnapshots(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, content string }{
		{"garbage", "{not json"},
		{"truncated", `{"snapshot_version":1,"server":{"version":"0.1.0"},"workspaces":[{"id":"ws_1","na`},
		{"empty", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := harness.TempDir(t)
			sd := filepath.Join(dir, "state", "signaltty")
			os.MkdirAll(sd, 0o700)
			os.WriteFile(filepath.Join(sd, "snapshot.json"), []byte(c.content), 0o600)
			d := harness.Start(t, harness.Options{Dir: dir})
			p := statusPersistence(t, d)
			if !strings.HasPrefix(p.RestoredFrom, "corrupt: ") {
				t.Fatalf("restored_from %q", p.RestoredFrom)
			}
			backup := strings.TrimPrefix(p.RestoredFrom, "corrupt: ")
			if b, err := os.ReadFile(backup); err != nil || string(b) != c.content {
				t.Fatalf("backup %s: %v %q", backup, err, b)
			}
			if !strings.Contains(d.Stderr(), backup) {
				t.Errorf("the log does not name the backup %s:\n%s", backup, d.Stderr())
			}
			if st := d.Status(t); st.Workspaces != 0 {
				t.Errorf("started with %d workspaces", st.Workspaces)
			}
		})
	}
	t.Run("future", func(t *testing.T) {
		dir := harness.TempDir(t)
		sd := filepath.Join(dir, "state", "signaltty")
		os.MkdirAll(sd, 0o700)
		content := `{"snapshot_version":99,"workspaces":[{"id":"ws_x","name":"from the future"}]}`
		os.WriteFile(filepath.Join(sd, "snapshot.json"), []byte(content), 0o600)
		r := harness.RunTimeout(t, 20*time.Second, append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(dir, "state"),
			"XDG_RUNTIME_DIR="+filepath.Join(dir, "run"), "SIGNALTTY_LOGIND=0",
			"SIGNALTTY_ADDRESS=unix:"+filepath.Join(dir, "run", "s")), harness.Bin(t, "signalttyd"))
		if r.Code == 0 || !strings.Contains(r.Stderr, "99") || !strings.Contains(r.Stderr, "1") {
			t.Fatalf("a snapshot from a newer version must stop the daemon with both versions named: %s", r)
		}
		if b, _ := os.ReadFile(filepath.Join(sd, "snapshot.json")); string(b) != content {
			t.Fatalf("the future snapshot was changed: %q", b)
		}
	})
}

func TestSaveFailureKeepsRunningAndRetries(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	d.CreateWorkspace(t, "w")
	d.JSON(t, &struct{}{}, "save")
	snapPath := filepath.Join(stateDir(d), "snapshot.json")
	// As root, permissions do not stop writes: a directory in the way does.
	os.Rename(snapPath, snapPath+".moved")
	if err := os.Mkdir(snapPath, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(snapPath, "x"), nil, 0o600)
	r := d.CLI(t, "--json", "save")
	if r.Code != 1 || !strings.Contains(r.Stdout, `"code":"internal"`) {
		t.Fatalf("save into an obstacle: %s", r)
	}
	if p := statusPersistence(t, d); p.LastError == nil {
		t.Fatalf("status shows no save error: %+v", p)
	}
	d.CreateWorkspace(t, "still-works")
	os.RemoveAll(snapPath)
	d.JSON(t, &struct{}{}, "save")
	if p := statusPersistence(t, d); p.LastError != nil {
		t.Fatalf("error not cleared after a good save: %v", *p.LastError)
	}
	b, err := os.ReadFile(snapPath)
	if err != nil || !strings.Contains(string(b), "still-works") {
		t.Fatalf("later save did not write: %v", err)
	}
}

func TestSnapshotListAndRestore(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	d.CreateWorkspace(t, "saved")
	p := d.Spawn(t, []string{"--workspace", "saved"}, "sleep", "1000")
	d.JSON(t, &struct{}{}, "save") // the first save is kept in snapshots/
	var list struct {
		Snapshots []struct {
			Name       string `json:"name"`
			Workspaces int    `json:"workspaces"`
			Panes      int    `json:"panes"`
		} `json:"snapshots"`
	}
	d.JSON(t, &list, "snapshot", "list")
	// The first save of a state directory is kept (the next only 15 minutes later).
	if len(list.Snapshots) != 1 || list.Snapshots[0].Workspaces != 1 {
		t.Fatalf("snapshot list: %+v", list)
	}
	name := list.Snapshots[0].Name
	d.Fail(t, "conflict.pane_live", 5, "snapshot", "restore", name)
	d.Kill(t, p.ID)
	d.JSON(t, &struct{}{}, "workspace", "remove", "--workspace", "saved")
	d.CreateWorkspace(t, "other")
	d.Fail(t, "not_found.snapshot", 3, "snapshot", "restore", "snapshot-19700101T000000Z.json")
	d.JSON(t, &struct{}{}, "snapshot", "restore", name)
	panes := restoredPanes(t, d)
	if len(panes) != list.Snapshots[0].Panes {
		t.Fatalf("after restoring %s: %d panes, the snapshot has %d", name, len(panes), list.Snapshots[0].Panes)
	}
	for _, rp := range panes {
		if rp.RestoreState != "RESTORED" && rp.RestoreState != "EXITED" {
			t.Errorf("restored pane %s is %s", rp.ID, rp.RestoreState)
		}
	}
	var ws struct {
		Workspaces []harness.Workspace `json:"workspaces"`
	}
	d.JSON(t, &ws, "workspace", "list")
	if len(ws.Workspaces) != 1 || ws.Workspaces[0].Name != "saved" {
		t.Fatalf("workspaces after restore: %+v", ws.Workspaces)
	}
}

// TestKill9WhileSaving kills the daemon at random moments while it saves
// and checks every start finds the previous or the new snapshot, never a
// corrupt or empty one.
func TestKill9WhileSaving(t *testing.T) {
	t.Parallel()
	iterations := 100
	if testing.Short() {
		iterations = 20
	}
	dir := harness.TempDir(t)
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	prev := 0
	for i := 0; i < iterations; i++ {
		d := harness.Start(t, harness.Options{Dir: dir, WithoutRace: true})
		st := d.Status(t)
		p := statusPersistence(t, d)
		if i > 0 && (p.RestoredFrom != "snapshot.json" || st.Workspaces < prev) {
			t.Fatalf("iteration %d: restored from %q with %d workspaces (had at least %d saved)", i, p.RestoredFrom, st.Workspaces, prev)
		}
		prev = st.Workspaces
		d.CreateWorkspace(t, "w")
		d.JSON(t, &struct{}{}, "save")
		prev++ // this one is on disk now
		// More changes and saves in flight, then SIGKILL at a random moment.
		cli, env := d.CLIProgram(), d.ClientEnv()
		busy := make(chan struct{})
		go func() { // no t here: the daemon dies under these calls
			defer close(busy)
			for j := 0; j < 5; j++ {
				for _, args := range [][]string{{"workspace", "create", "--name", "x"}, {"save"}} {
					c := exec.Command(cli, args...)
					c.Env = env
					c.Run()
				}
			}
		}()
		time.Sleep(time.Duration(rng.Intn(30)) * time.Millisecond) // the random kill moment, not synchronisation
		syscall.Kill(d.Pid(), syscall.SIGKILL)
		d.WaitExit(t, 10*time.Second)
		<-busy
		os.Remove(d.Socket)
		matches, _ := filepath.Glob(filepath.Join(dir, "state", "signaltty", "snapshot.corrupt-*"))
		if len(matches) > 0 {
			t.Fatalf("iteration %d left a corrupt snapshot: %v", i, matches)
		}
	}
}

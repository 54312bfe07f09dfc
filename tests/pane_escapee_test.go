package tests

// A pane's processes that left its session and process group (a double
// fork, setsid, SIGHUP ignored) end with the pane when the daemon has no
// cgroups: they carry the pane's mark (docs/termination.md, "Descendants
// outside the process group").

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

func TestPaneEndStopsProcessesThatLeftItsSession(t *testing.T) {
	t.Parallel()
	d := harness.Start(t, harness.Options{Env: []string{"SIGNALTTY_CGROUPS=off"}})
	dir := harness.TempDir(t)
	ws := d.CreateWorkspace(t, "escapees").ID
	for _, tc := range []struct {
		name, rest string
		kill       bool
	}{
		{"the leader exits", "exit 0", false},
		{"the pane is killed", "exec sleep 600", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			// Double fork: the subshell exits at once, its setsid child is
			// reparented away from the pane, in a session of its own, with
			// SIGHUP ignored (exec keeps it ignored for sleep) and the PTY
			// closed.
			script := fmt.Sprintf(`(setsid sh -c 'trap "" HUP; echo $$ > %[1]s; exec sleep 600' </dev/null >/dev/null 2>&1 &); `+
				`while [ ! -s %[1]s ]; do sleep 0.01; done; %[2]s`, file, tc.rest)
			p := d.Spawn(t, []string{"--workspace", ws}, "sh", "-c", script)
			pid := escapeePid(t, file)
			t.Cleanup(func() {
				if !harness.Gone(pid) {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			if st, ok := harness.ReadProc(pid); !ok || st.Session == p.PID() || st.Ppid == p.PID() || st.Pgrp == p.PID() {
				t.Fatalf("the escapee did not leave the pane's session (pane pid %d): %v", p.PID(), st)
			}
			if tc.kill {
				d.Kill(t, p.ID)
			}
			harness.WaitGone(t, harness.PollTimeout, "the pane's end stops the escapee", pid)
		})
	}
	t.Run("status and doctor count nothing left running", func(t *testing.T) {
		harness.Eventually(t, harness.PollTimeout, "runs.escaped 0", func() (bool, string) {
			st := d.Status(t)
			return st.Runs.Escaped == 0, fmt.Sprintf("runs.escaped %d", st.Runs.Escaped)
		})
		if r := d.CLI(t, "doctor"); strings.Contains(r.Stdout, "pane(s) ended") {
			t.Errorf("doctor warns of escapees that were stopped: %s", r)
		}
	})
}

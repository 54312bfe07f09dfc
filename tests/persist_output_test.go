package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/signaltty/signaltty/snapshot"
	"github.com/signaltty/signaltty/tests/harness"
)

// tailFile is the path of a pane's saved rows.
func tailFile(d *harness.Daemon, pane string) string {
	return filepath.Join(stateDir(d), "history", snapshot.TailFile(pane))
}

func inode(path string) uint64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// Pane output alone gets saved within save_output_interval_ms, only the
// tails of panes that printed are rewritten, and a line on a pane's screen
// is in its restored rows after the daemon is killed with SIGKILL.
func TestPaneOutputSurvivesADaemonCrash(t *testing.T) {
	t.Parallel()
	d := harness.Start(t, harness.Options{Env: []string{"SIGNALTTY_SAVE_OUTPUT_INTERVAL_MS=1000"}})
	d.CreateWorkspace(t, "w")
	sh := d.Spawn(t, []string{"--workspace", "w", "--env", "PS1=$ "}, "bash", "--norc", "--noprofile")
	quiet := d.Spawn(t, []string{"--workspace", "w"}, "sh", "-c", "echo quiet-pane-line; exec sleep 1000")
	d.WaitLine(t, quiet.ID, "quiet-pane-line")
	d.Send(t, sh.ID, `echo first-output-line\n`)
	d.WaitLine(t, sh.ID, "first-output-line")
	saved := func(path, s string) func() (bool, string) {
		return func() (bool, string) {
			b, err := os.ReadFile(path)
			return err == nil && strings.Contains(string(b), s), fmt.Sprintf("%s: %v\n%s", path, err, b)
		}
	}
	harness.Eventually(t, 30*time.Second, "the printing pane's output is saved", saved(tailFile(d, sh.ID), "first-output-line"))
	harness.Eventually(t, 30*time.Second, "the quiet pane's output is saved", saved(tailFile(d, quiet.ID), "quiet-pane-line"))
	quietIno := inode(tailFile(d, quiet.ID))

	d.Send(t, sh.ID, `echo crash-survivor-line\n`)
	d.WaitLine(t, sh.ID, "crash-survivor-line")
	harness.Eventually(t, 30*time.Second, "the new output is saved", saved(tailFile(d, sh.ID), "crash-survivor-line"))
	if i := inode(tailFile(d, quiet.ID)); i != quietIno {
		t.Errorf("the tail of a pane that printed nothing new was rewritten (inode %d → %d)", quietIno, i)
	}

	syscall.Kill(d.Pid(), syscall.SIGKILL)
	d.WaitExit(t, 10*time.Second)
	os.Remove(d.Socket)
	d2 := harness.Start(t, harness.Options{Dir: d.Dir})
	c := d2.Capture(t, sh.ID)
	if !c.HasLine("crash-survivor-line") {
		t.Errorf("restored rows of the pane after SIGKILL lack its last line:\n%s", c.Dump())
	}
}

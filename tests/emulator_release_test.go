package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// A pane that printed a coloured prompt and stayed idle past the release
// delay (SIGNALTTY_EMULATOR_RELEASE_MS, short here) shows the same screen to
// a capture and to an attached client as before, and its next output
// continues it.
func TestIdlePaneShowsTheSameScreenAfterItsEmulatorIsReleased(t *testing.T) {
	t.Parallel()
	const delay = 200 * time.Millisecond
	d := harness.Start(t, harness.Options{Env: []string{"SIGNALTTY_EMULATOR_RELEASE_MS=" + strconv.Itoa(int(delay/time.Millisecond))}})
	d.CreateWorkspace(t, "w")
	p := d.Spawn(t, []string{"--workspace", "w"}, "bash", "--norc", "--noprofile", "-i")
	// (--text reads backslash escapes: \\ is one backslash.)
	d.Send(t, p.ID, `PS1='\\[\\e[1;32m\\]ready\\[\\e[m\\]> '; printf 'wide 日本語 \\e[4munder\\e[m\\n'`+"\n")
	before := d.WaitCapture(t, p.ID, "the coloured prompt", func(c harness.Capture) bool {
		return c.Contains("wide 日本語 under") && c.HasLine("ready>")
	})
	// Idle for several delays: the daemon releases the emulator meanwhile
	// (the behaviour under test is what idling does, so the test idles).
	time.Sleep(5 * delay)
	after := d.Capture(t, p.ID)
	if strings.Join(after.Trimmed(), "\n") != strings.Join(before.Trimmed(), "\n") {
		t.Fatalf("capture after idling:\n%s\nbefore:\n%s", after.Dump(), before.Dump())
	}
	time.Sleep(5 * delay)
	m := d.Tmux(t, p.Cols, p.Rows, "signaltty", "attach", p.ID)
	harness.Eventually(t, harness.PollTimeout, "the attached screen", func() (bool, string) {
		screen := m.Screen(t)
		for i, l := range before.Trimmed() {
			if i >= len(screen) || strings.TrimRight(screen[i], " ") != l {
				return false, strings.Join(screen, "\n")
			}
		}
		return strings.Contains(m.ScreenEscapes(t), "ready"), ""
	})
	time.Sleep(5 * delay)
	d.Send(t, p.ID, "echo next-$((6*7))\n")
	d.WaitLine(t, p.ID, "next-42")
}

// TestIdlePaneResidentSize (a measurement): SIGNALTTY_MEASURE_PANES=N bash
// panes at their prompt, the daemon's resident size per pane with emulator
// release off and with it on (after the panes idled past the delay), and a
// tmux server's for the same N bash windows:
//
//	SIGNALTTY_MEASURE_PANES=1000 go test -count=1 -run TestIdlePaneResidentSize -v ./tests/
func TestIdlePaneResidentSize(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("SIGNALTTY_MEASURE_PANES"))
	if n == 0 {
		t.Skip("a measurement: set SIGNALTTY_MEASURE_PANES (e.g. 1000)")
	}
	// The delay outlasts spawning and waiting for every prompt, so that
	// waiting (a capture rebuilds a released pane) releases nothing.
	const delay = 60 * time.Second
	for _, release := range []string{"0", strconv.Itoa(int(delay / time.Millisecond))} {
		d := harness.Start(t, harness.Options{WithoutRace: true, Env: []string{"SIGNALTTY_EMULATOR_RELEASE_MS=" + release}})
		d.CreateWorkspace(t, "m")
		base := procStatus(t, d.Pid(), "VmRSS")
		c := d.Dial(t)
		var ids []string
		for i := 0; i < n; i++ {
			var r struct {
				Pane struct {
					ID string `json:"id"`
				} `json:"pane"`
			}
			harness.MustCall(t, c, "dev.signaltty.Mux.SpawnPane", map[string]any{
				"workspace": "m", "argv": []string{"bash", "--norc", "--noprofile", "-i"}}, &r)
			ids = append(ids, r.Pane.ID)
		}
		for _, id := range ids {
			d.WaitCapture(t, id, "the prompt", func(c harness.Capture) bool { return c.Contains("bash-") })
		}
		before := procStatus(t, d.Pid(), "VmRSS")
		if release != "0" {
			time.Sleep(delay + 10*time.Second) // idle past the delay, and the release pass after it
		} else {
			time.Sleep(10 * time.Second)
		}
		rss := procStatus(t, d.Pid(), "VmRSS")
		t.Logf("signalttyd, release %s ms: %d bash panes at their prompt: RSS %d KiB (idle daemon %d KiB, %d KiB once every prompt showed), %.1f KiB per pane",
			release, n, rss, base, before, float64(rss-base)/float64(n))
		d.Stop(t)
	}
	harness.NeedTmux(t)
	dir := t.TempDir()
	sock := filepath.Join(dir, "tmux.sock")
	tmux := func(args ...string) string {
		out, err := exec.Command("tmux", append([]string{"-S", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v %s", args, err, out)
		}
		return string(out)
	}
	tmux("new-session", "-d", "-x", "80", "-y", "24", "sleep 100000")
	defer exec.Command("tmux", "-S", sock, "kill-server").Run()
	pid, _ := strconv.Atoi(strings.TrimSpace(tmux("display-message", "-p", "#{pid}")))
	base := procStatus(t, pid, "VmRSS")
	for i := 0; i < n; i++ {
		tmux("new-window", "-d", "bash --norc --noprofile -i")
	}
	time.Sleep(6 * time.Second)
	rss := procStatus(t, pid, "VmRSS")
	t.Logf("tmux %s: %d bash windows at their prompt: RSS %d KiB (one window %d KiB), %.1f KiB per pane",
		strings.TrimSpace(tmux("-V")), n, rss, base, float64(rss-base)/float64(n))
}
